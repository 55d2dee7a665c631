"""The one error hierarchy: every error AAC raises on purpose is an :class:`AacError`, and its class says the exit
status the ``aac`` command ends with (``aac.cli.main`` reads ``exit_code``; a command that catches one to say more
exits with the same ``exit_code``).

| status | class | meaning |
|---|---|---|
| 2 | :class:`InputError` | the command was called wrongly: an option, or an input it names (missing, malformed, an unknown name, a corpus another command is writing, a folder it may not write) |
| 1 | :class:`RunError` | the run could not finish: an outside service failed, its setup is missing (a token), the data it found is unfit |
| 3 | :class:`Refused` | the command refuses to produce the result: it would be unsafe |

Python's own ``OSError``, ``ValueError`` and ``KeyError`` that reach the command are input errors (status 2).
Each class keeps the built-in base it had (``ValueError``, ``RuntimeError``) so existing ``except`` clauses hold.
"""

from __future__ import annotations


class AacError(Exception):
    """An error AAC raises on purpose; ``exit_code`` is the status of the ``aac`` command it ends."""

    exit_code = 1


class InputError(AacError):
    """Bad usage, or an input the command names that it cannot use (exit status 2)."""

    exit_code = 2


class RunError(AacError):
    """The run could not finish: a service, the setup or the data found (exit status 1)."""

    exit_code = 1


class Refused(AacError):
    """The result would be unsafe: nothing is written (exit status 3)."""

    exit_code = 3
