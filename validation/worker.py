"""The ns-3 worker process: imports ns-3 once, JIT-compiles ``harness.cc`` and runs scenarios.

Run by :mod:`validation.sim` as ``python -m validation.worker`` (or the file path) with its working
directory set to an empty temporary folder, because ``from ns import ns`` searches the working
directory recursively for shared libraries. The import takes about 15 s, so one worker runs many
scenarios: it reads one JSON request a line on stdin, ``{"id": ..., "setup": "key value ..."}``, and
answers one JSON line ``{"id": ..., "trace": "..."}`` (or ``"error"``) on its protocol channel.

C++ code may print to stdout (cling's warnings do), so the protocol channel is a duplicate of the
original stdout taken before fd 1 is pointed at stderr.
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

HARNESS = Path(__file__).with_name("harness.cc")


def main() -> int:
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)  # anything C++ prints goes to stderr
    sys.stdout = sys.stderr
    t0 = time.monotonic()
    import cppyy
    from ns import ns  # noqa: F401  (loads every ns-3 module into cppyy)

    cppyy.cppdef(HARNESS.read_text())
    run = cppyy.gbl.llab.RunScenario
    proto.write(json.dumps({"ready": True, "startup_s": round(time.monotonic() - t0, 2)}) + "\n")
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        req = json.loads(line)
        t = time.monotonic()
        try:
            trace = str(run(req["setup"]))
            reply = {"id": req.get("id"), "trace": trace, "wall_s": round(time.monotonic() - t, 3)}
        except Exception as exc:  # a C++ exception surfaces as a Python one
            reply = {"id": req.get("id"), "error": f"{type(exc).__name__}: {exc}"}
        proto.write(json.dumps(reply) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
