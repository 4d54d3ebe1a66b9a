#!/usr/bin/env bash
# Builds the release binaries with the static Swift standard library and checks that they need
# no Swift runtime at run time: only libc-level and Debian libraries.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/swift-env.sh

swift build -c release --static-swift-stdlib --product apsiod
swift build -c release --static-swift-stdlib --product apsioctl
bin=$(swift build -c release --show-bin-path)

status=0
for binary in apsiod apsioctl; do
    libs=$(ldd "$bin/$binary" | awk '{print $1}')
    swift_libs=$(echo "$libs" | grep -Ei 'swift|Foundation|dispatch|BlocksRuntime|icu' || true)
    # The operator's command talks to the daemon over its socket and writes settings files: TLS
    # and the journal are the daemon's, and apsioctl must run where neither library is installed.
    daemon_libs=""
    if [ "$binary" = apsioctl ]; then
        daemon_libs=$(echo "$libs" | grep -E 'libssl|libcrypto|libsystemd' || true)
    fi
    if [ -n "$swift_libs" ]; then
        echo "FAIL: $binary links Swift runtime libraries:" $swift_libs >&2
        status=1
    elif [ -n "$daemon_libs" ]; then
        echo "FAIL: $binary links the daemon's libraries:" $daemon_libs >&2
        status=1
    else
        echo "ok: $binary links only:" $(echo "$libs" | tr '\n' ' ')
    fi
    "$bin/$binary" --version
done
exit $status
