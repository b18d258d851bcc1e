"""``python -m latency_lab_web``: serve the app on 127.0.0.1, port ``$PORT`` or 8000 (development server)."""

from __future__ import annotations

import os
import sys

from latency_lab_web import create_app


def main() -> None:
    """Run the development server with the embedded defaults."""
    port_text = os.environ.get("PORT", "8000")
    try:
        port = int(port_text)
    except ValueError:
        sys.exit(f"PORT must be a whole number, got {port_text!r}")
    if not 0 < port < 65536:
        sys.exit(f"PORT must be between 1 and 65535, got {port}")
    create_app().run(host="127.0.0.1", port=port, debug=False)


if __name__ == "__main__":
    main()
