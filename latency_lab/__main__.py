"""``python -m latency_lab``: the model's command line (see :mod:`latency_lab.cli`)."""

from __future__ import annotations

import os
import sys

from latency_lab.cli import main

if __name__ == "__main__":
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (``... | head``): stop quietly, as other command-line tools do.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 1
    sys.exit(status)
