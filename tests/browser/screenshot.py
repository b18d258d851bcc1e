"""Regenerate docs/screenshot.png, the README's picture of the calculator.

    .venv/bin/python tests/browser/screenshot.py [--preset n97-wan] [--out docs/screenshot.png]

Serves the app (``create_app``) on a free local port, opens the calculator with the preset in headless
Debian chromium (``/usr/bin/chromium``, or ``CHROMIUM``) through Playwright, waits until every plot is
drawn and saves a screenshot of the top of the page. Not a test: pytest does not collect it.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

from app import create_app  # noqa: E402

#: Every plot is drawn from its current figure (see plots_drawn.js).
PLOTS_DRAWN = (Path(__file__).parent / "plots_drawn.js").read_text(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", default="n97-wan", help="the preset shown (default: n97-wan)")
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshot.png", help="the PNG written")
    parser.add_argument("--width", type=int, default=1280, help="viewport width in CSS pixels")
    parser.add_argument("--height", type=int, default=960, help="height of the picture in CSS pixels")
    args = parser.parse_args(argv)

    server = make_server("127.0.0.1", 0, create_app(), threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=os.environ.get("CHROMIUM", "/usr/bin/chromium"))
            page = browser.new_page(viewport={"width": args.width, "height": args.height}, device_scale_factor=1)
            page.goto(f"http://127.0.0.1:{server.server_port}/?preset={args.preset}")
            page.wait_for_function(PLOTS_DRAWN)
            page.wait_for_timeout(500)  # plotly's transitions
            args.out.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(args.out))
            browser.close()
    finally:
        server.shutdown()
    print(f"wrote {args.out} ({args.out.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
