"""Typer options derived from a job's options dataclass (:mod:`aac.jobs.options`): a command written as
``def cmd(options: ProcessOptions, prefect: bool = typer.Option(...))`` and decorated with :func:`job_options`
gets one Typer option per field (its flags, help, default and bounds as declared with the field) and is called
with one options object."""

from __future__ import annotations

import inspect
import types
import typing
from pathlib import Path
from typing import Any, Optional

import typer

from aac.jobs.options import OptionSpec, takes_fields_of


def cli_type(tp: Any) -> Any:
    """The type Typer parses a field as: a path for ``str | Path``, a repeatable option for a tuple."""
    union = typing.get_origin(tp) in (typing.Union, types.UnionType)
    args = [a for a in typing.get_args(tp) if a is not type(None)] if union else [tp]
    optional = union and len(args) < len(typing.get_args(tp))
    if Path in args:
        base: Any = Path
    elif len(args) == 1 and typing.get_origin(args[0]) is tuple:
        base = list[typing.get_args(args[0])[0]]
    elif len(args) == 1:
        base = args[0]
    else:
        raise TypeError(f"no command-line type for {tp!r}")
    return Optional[base] if optional else base


def typer_parameter(spec: OptionSpec) -> inspect.Parameter:
    """One Typer option from a field's declaration."""
    return inspect.Parameter(spec.name, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                             default=typer.Option(spec.default, *spec.cli_flags, help=spec.help, **spec.cli),
                             annotation=cli_type(spec.type))


def job_options(cls: type) -> typing.Callable[[typing.Callable], typing.Callable]:
    """Decorate a command taking ``options: cls`` (then its own Typer options) so that Typer sees the fields of
    ``cls`` as options. A field declared ``in_cli=False`` keeps its default: the command derives it."""
    return takes_fields_of(cls, lambda spec: typer_parameter(spec) if spec.in_cli else None)
