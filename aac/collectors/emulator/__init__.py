"""A GitHub REST API emulator over a snapshot file: the collector's offline default and its test bed.

It serves, over real HTTP on 127.0.0.1, the subset of the REST API the collector uses (code search, repository
metadata and license, file contents, a raw-content route, ``/rate_limit``) in GitHub's JSON shapes, so PyGithub
runs against it unchanged with ``base_url=server.url``. To prove anything it must be as hostile as GitHub; the
``github`` profile reproduces each of the following (every knob in :class:`Profile`, all randomness seeded):

(pathologies and their public evidence: see the bottom of this docstring)
"""

from .profiles import GITHUB, IDEAL, PROFILES, Profile, get_profile
from .server import EmulatorServer
from .snapshot import SnapshotError, check_record, iter_snapshot, load_snapshot

__all__ = ["EmulatorServer", "GITHUB", "IDEAL", "PROFILES", "Profile", "SnapshotError", "check_record",
           "generate_snapshot", "get_profile", "iter_snapshot", "load_snapshot"]


def __getattr__(name: str):
    if name == "generate_snapshot":  # the generator's grammar tables load only when needed
        from .generator import generate_snapshot

        return generate_snapshot
    raise AttributeError(name)
