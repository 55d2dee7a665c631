"""``python -m aac.hooks run --agent NAME``: what the installed hooks call. Exits 0 whatever happens."""

import sys

try:
    from aac.hooks.run import main

    code = main()
except BaseException as exc:  # noqa: BLE001 - even a broken install must not break the agent
    try:
        from aac.hooks.paths import log

        log(f"hook entry failed: {type(exc).__name__}: {exc}")
    except BaseException:  # noqa: BLE001
        pass
    code = 0
sys.exit(code)
