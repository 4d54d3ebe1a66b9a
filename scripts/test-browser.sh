#!/usr/bin/env bash
# The viewer in a real headless Chromium against apsio-devbackend and a scripted test device
# (Tests/Browser). Leaves a PNG of the page under .build/browser-test and prints its path.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/swift-env.sh

swift build --product apsio-devbackend
bin=$(swift build --show-bin-path)
exec /usr/bin/python3 Tests/Browser/viewer_test.py --devbackend "$bin/apsio-devbackend" --artifacts .build/browser-test
