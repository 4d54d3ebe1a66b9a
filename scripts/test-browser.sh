#!/usr/bin/env bash
# The viewer in a real headless Chromium against the demo (scripts/demo.sh) with the real apsiod
# watching the demo service (Tests/Browser/viewer_test.py). Leaves a PNG of the page under
# .build/browser-test and prints its path.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/swift-env.sh

for product in apsio-devbackend apsiod apsioctl; do swift build --product "$product"; done
bin=$(swift build --show-bin-path)
exec /usr/bin/python3 Tests/Browser/viewer_test.py --demo scripts/demo.sh --bin "$bin" --artifacts .build/browser-test
