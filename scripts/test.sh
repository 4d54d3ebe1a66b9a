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

# The suite runs some 30 daemons and 36 private buses at once, each with its own inotify instances
# (apsiod 3, dbus-daemon 1), all as one user: at the peak 129, past Debian's default of 128 per
# user (fs.inotify.max_user_instances), and the next reader opened fails with EMFILE ("Too many
# open files"). One box runs one apsiod; the test machine gets room for the suite, where it can.
if [ "$(cat /proc/sys/fs/inotify/max_user_instances 2>/dev/null || echo 1024)" -lt 1024 ]; then
    sysctl -q -w fs.inotify.max_user_instances=1024 2>/dev/null \
        || sudo -n sysctl -q -w fs.inotify.max_user_instances=1024 2>/dev/null \
        || echo "fs.inotify.max_user_instances is below 1024 and cannot be raised: tests that open a journal may fail with EMFILE" >&2
fi

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
