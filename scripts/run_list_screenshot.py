"""A picture of the run browser's run list at a given width, from a running `playscout serve`
(docs/screenshots/runs-1280.png: the README's Quick tour after its judged run).

    .venv/bin/python scripts/run_list_screenshot.py http://127.0.0.1:8780 docs/screenshots/runs-1280.png
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the browser helpers live with the tests that use them too

from tests.browser import chromium, show  # noqa: E402


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("url", help="The server, e.g. http://127.0.0.1:8780")
    p.add_argument("out", type=Path, help="The PNG to write.")
    p.add_argument("--width", type=int, default=1280)
    p.add_argument("--height", type=int, default=600)
    p.add_argument("--open-reasons", action="store_true", help="Unfold the first run's reasons.")
    args = p.parse_args()
    driver = chromium(width=args.width, height=args.height)
    try:
        show(driver, f"{args.url.rstrip('/')}/viewer")
        if args.open_reasons:
            driver.execute_script(
                "const d = document.querySelector('td.acc details'); if (d) d.open = true;"
            )
        args.out.parent.mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(args.out))
    finally:
        driver.quit()
    print(f"wrote {args.out} ({args.width} px wide)")


if __name__ == "__main__":
    main()
