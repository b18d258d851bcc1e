"""The real-stack bench's browser client (issue 28): Debian's headless Chromium driven by Playwright, run inside the
client namespace.

    python browser_client.py '{"url": ..., "chromium": "/usr/bin/chromium", "timeout_s": 60}'

Launches a new Chromium for the one load (a fresh temporary profile, network prediction off in its preferences: no HTTP cache, no socket, no learned
preconnect survives from an earlier load), loads the page up to its load event and prints one JSON document: the
Navigation Timing entry and every Resource Timing entry (times in ms from the navigation's start, as the browser
reports them), and the wall time of the launch and the load. Needs Playwright for Python (requirements-dev.txt);
its own browser download is not used.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: Chromium's switches: as root inside ``ip netns exec`` the sandbox cannot start (--no-sandbox); nothing may
#: touch the network but the page's own loads (no QUIC, no background or component updates, no prediction or
#: preconnect, no DNS prefetch: the page names addresses, and the model's page has no hints); the bench's
#: self-signed certificate is accepted; no disk cache is kept.
FLAGS = [
    "--no-sandbox",
    "--ignore-certificate-errors",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-default-apps",
    "--disable-sync",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--no-pings",
    "--no-first-run",
    "--disk-cache-size=1",
    "--media-cache-size=1",
    "--dns-prefetch-disable",
    "--disable-features=NetworkPrediction,Prerender2,LoadingPredictorUseOptimizationGuide,"
    "PreconnectToSearch,SpeculationRulesPrefetchFuture,NetworkServiceInProcess,HttpsUpgrades,"
    "OptimizationHints,MediaRouter,Translate",
]

#: The new profile's preferences: no network prediction (Chromium's "preload pages" setting: its loading predictor
#: would otherwise preconnect to the navigation's origin beside the navigation's own connection)
PREFERENCES = {"net": {"network_prediction_options": 2}}

TIMINGS = """() => {
  const keys = ['name', 'initiatorType', 'startTime', 'fetchStart', 'connectStart', 'connectEnd', 'secureConnectionStart',
                'requestStart', 'responseStart', 'responseEnd', 'transferSize', 'encodedBodySize', 'nextHopProtocol'];
  const pick = (e, extra) => Object.fromEntries(keys.concat(extra).map(k => [k, e[k]]));
  const nav = performance.getEntriesByType('navigation')[0];
  return {
    navigation: pick(nav, ['domInteractive', 'domContentLoadedEventStart', 'loadEventStart', 'loadEventEnd']),
    resources: performance.getEntriesByType('resource').map(e => pick(e, [])),
    timeOrigin: performance.timeOrigin,
  };
}"""


def main() -> None:
    from playwright.sync_api import sync_playwright

    spec: dict[str, Any] = json.loads(sys.argv[1])
    with sync_playwright() as pw:
        t = time.monotonic()
        profile = tempfile.TemporaryDirectory(prefix="llrs-chromium-")
        (Path(profile.name) / "Default").mkdir()
        (Path(profile.name) / "Default" / "Preferences").write_text(json.dumps(PREFERENCES))
        browser = pw.chromium.launch_persistent_context(
            profile.name,
            executable_path=spec.get("chromium", "/usr/bin/chromium"),
            args=FLAGS + spec.get("flags", []),
            service_workers="block",
        )
        try:
            page = browser.pages[0] if browser.pages else browser.new_page()
            launched = time.monotonic() - t
            t = time.monotonic()
            page.goto(spec["url"], wait_until="load", timeout=spec.get("timeout_s", 60) * 1000)
            loaded = time.monotonic() - t
            # the load event's handlers have run once loadEventEnd is set
            page.wait_for_function("performance.getEntriesByType('navigation')[0].loadEventEnd > 0")
            out = page.evaluate(TIMINGS)
        finally:
            browser.close()
            profile.cleanup()
    out["launch_s"] = launched
    out["load_s"] = loaded
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
