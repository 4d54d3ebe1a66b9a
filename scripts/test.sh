#!/usr/bin/env bash
# The test command: installs what the tests need when it is missing, checks the systemd units,
# runs every test (the end-to-end ones twice, sending protobuf and JSON), replays every fuzz input kept in fuzz/ once (docs/fuzzing.md), replays apsio-check's
# kept histories and runs its fixed seeds against the built binaries (docs/checking.md), runs the browser
# test against the demo and again through nginx (docs/nginx.md), checks that the release binaries
# carry their own Swift runtime, then builds the Debian package and installs it into a fresh
# Debian root.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
. scripts/swift-env.sh
scripts/check-units.sh

swift build --build-tests
# A crash of the test process (or of a binary a test runs) prints the crashed thread only, so
# that a log cut to its end still shows where it crashed.
SWIFT_BACKTRACE=threads=crashed,registers=crashed,images=mentioned swift test --skip-build
# The end-to-end suite again with the app sending OTLP/HTTP JSON (Encoding=, docs/otlp.md; protobuf
# is the default): the scripted backend reads either encoding as the same records.
APSIO_TEST_ENCODING=json SWIFT_BACKTRACE=threads=crashed,registers=crashed,images=mentioned \
    swift test --skip-build --filter ApsioEndToEndTests
fuzz/replay.sh
Tests/Check/apsio-check --replay Tests/Check/histories/*.json
Tests/Check/apsio-check --seeds "${APSIO_CHECK_SEEDS:-1-6}"
scripts/test-browser.sh
scripts/test-browser.sh --front nginx
scripts/check-release.sh
sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
"${sudo[@]}" scripts/test-package.sh
