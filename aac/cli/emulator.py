"""`aac emulator serve|generate`: run the GitHub emulator, or write a synthetic snapshot."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer, eval_app: typer.Typer) -> None:
    emulator = typer.Typer(help="A GitHub REST API emulator over a snapshot file (offline crawls and tests).",
                           no_args_is_help=True)
    app.add_typer(emulator, name="emulator")

    @emulator.command()
    def serve(
        snapshot: Path = typer.Option(..., "--snapshot", help="JSON Lines snapshot (repo, path, content, ...)."),
        port: int = typer.Option(8765, "--port", min=0, max=65535, help="Port on 127.0.0.1 (0 = any free port)."),
        profile: str = typer.Option("github", "--profile", help="github (hostile, the default) | ideal"),
        seed: int = typer.Option(0, "--seed", help="Seed of every random choice the emulator makes."),
        real_clock: bool = typer.Option(False, "--real-clock",
                                        help="Wall-clock rate-limit windows (default: a virtual clock that "
                                             "clients advance with POST /_emulator/clock/advance)."),
    ) -> None:
        """Serve the snapshot until SIGTERM/SIGINT; prints the base URL first."""
        import signal
        import sys
        import threading

        from aac.collectors.clock import RealClock

        from aac.collectors.emulator.profiles import get_profile
        from aac.collectors.emulator.server import EmulatorServer
        from aac.collectors.emulator.snapshot import SnapshotError

        try:
            server = EmulatorServer(snapshot, get_profile(profile), seed=seed,
                                    clock=RealClock() if real_clock else None, port=port)
        except (SnapshotError, ValueError) as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2)
        stop = threading.Event()
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: stop.set())
        try:
            server.start()
        except OSError as exc:
            typer.echo(f"error: cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}", err=True)
            raise typer.Exit(2)
        n = len(server.api.index.files)
        typer.echo(server.url)
        typer.echo(f"serving {n} files of {len(server.api.index.repos)} repos, profile {server.profile.name}, "
                   f"seed {seed}, {'real' if real_clock else 'virtual'} clock", err=True)
        sys.stdout.flush()
        try:
            while not stop.wait(0.5):
                pass
        finally:
            server.stop()
        typer.echo("emulator stopped", err=True)

    @emulator.command()
    def generate(
        files: int = typer.Option(..., "--files", min=0, help="Number of files (records) to write."),
        seed: int = typer.Option(0, "--seed", help="Same seed, same snapshot."),
        out: Path = typer.Option(..., "--out", help="Output JSON Lines file."),
    ) -> None:
        """Write a synthetic snapshot with the shape of real agent-config data (see the README)."""
        import json
        import os
        import time

        from aac.collectors.emulator.generator import generate_snapshot

        t0 = time.perf_counter()
        out.parent.mkdir(parents=True, exist_ok=True)
        special = out.exists() and not out.is_file()  # a pipe or device: write through, never replace it
        tmp = out if special else out.with_name(out.name + ".tmp")  # else atomic: no half-written snapshot
        with open(tmp, "w", encoding="utf-8", buffering=1 << 20) as fh:
            dumps = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode
            for rec in generate_snapshot(files, seed):
                fh.write(dumps(rec))
                fh.write("\n")
        if not special:
            os.replace(tmp, out)
        typer.echo(f"wrote {files} files to {out} in {time.perf_counter() - t0:.1f} s", err=True)
