#!/usr/bin/env bash
# The test command: installs what the tests need when it is missing, runs every test, then checks
# that the release binaries carry their own Swift runtime.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/swift-env.sh

swift build --build-tests
swift test --skip-build
scripts/test-browser.sh
scripts/check-release.sh
