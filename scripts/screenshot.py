"""Regenerate docs/screenshot.png, the README's picture: seed 000's table 1 as four scenarios side by side.

    .venv/bin/python scripts/screenshot.py [--path '/compare?...'] [--preset n97-wan] [--out docs/screenshot.png]

Serves the app (``create_app``) on a free local port, opens the page in headless Debian chromium
(``/usr/bin/chromium``, or ``CHROMIUM``) through Playwright, waits until every plot is drawn and saves a
screenshot of the top of the page. The default page is the comparison the side-by-side page opens in one click
(seed 000's table 1); ``--preset NAME`` takes the calculator with that preset instead, ``--path`` any page.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402
from werkzeug.serving import make_server  # noqa: E402

from latency_lab_web import create_app  # noqa: E402

#: Every plot is drawn from its current figure (see plots_drawn.js).
PLOTS_DRAWN = (ROOT / "tests" / "browser" / "plots_drawn.js").read_text(encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--preset", help="the calculator with this preset, instead of the comparison")
    parser.add_argument("--path", help="any page of the app (default: seed 000's table 1 side by side)")
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
            base = f"http://127.0.0.1:{server.server_port}"
            if args.path:
                page.goto(base + args.path)
            elif args.preset:
                page.goto(f"{base}/?preset={args.preset}")
            else:  # the comparison's one-click link: seed 000's table 1
                page.goto(base + "/compare")
                page.get_by_role("link", name="Seed 000's table 1 (Heidemann 1996) as four scenarios").click()
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
