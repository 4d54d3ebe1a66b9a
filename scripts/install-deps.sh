#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, when any is missing.
# Safe to run again: it does nothing when everything is there.
# Also makes .build/python-otlp, a Python environment with the OTLP protobuf definitions.
set -euo pipefail

packages=(
    libsystemd-dev zlib1g-dev libssl-dev pkg-config   # the C libraries apsiod links
    libisal-dev                                       # gzip of bodies sent (zlib reads those received)
    libzstd-dev                                       # zstd of bodies, sent and received (Compression=zstd)
    systemd-journal-remote                            # real journal files for the tests
    dbus python3-dbusmock                             # a private system bus with mock services
    openssl gzip zstd binutils                        # test certificates, gzip, zstd and readelf
    gcc libc6-dev                                     # tiny ELF files with and without a build-id
    python3 python3-venv                              # the OTLP wire check (below)
    chromium chromium-driver python3-selenium         # the viewer's browser test (scripts/test-browser.sh)
    fonts-dejavu-core                                 # legible text in the browser test's screenshot
    dpkg-dev lintian                                  # building and checking the .deb
    mmdebstrap                                        # a fresh Debian root for the install test
    systemd                                           # systemd-analyze for the unit checks (never started)
    util-linux                                        # setpriv: a control client run as nobody, a daemon without CAP_SYS_NICE
    python3-seccomp                                   # the unit's system call filter, applied to a test's daemon
    redis-server                                      # the fleet backend's shared state (started by the tests, on a private socket)
    nginx                                             # the load balancer in front of several backend instances
    tinyproxy                                         # an egress proxy between apsiod and its backend (started by the tests)
)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$package")
    fi
done
if [ ${#missing[@]} -gt 0 ]; then
    sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    echo "Installing: ${missing[*]}"
    # redis-server and nginx would start as services on their default ports on installation; the
    # tests start their own, on private sockets and ports. Without an init that refuses, say no.
    policy=/usr/sbin/policy-rc.d
    made_policy=no
    if [ ! -e "$policy" ]; then
        printf '#!/bin/sh\nexit 101\n' | "${sudo[@]}" tee "$policy" >/dev/null
        "${sudo[@]}" chmod +x "$policy"
        made_policy=yes
    fi
    "${sudo[@]}" apt-get update -qq
    status=0
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" || status=$?
    [ "$made_policy" = no ] || "${sudo[@]}" rm -f "$policy"
    [ "$status" -eq 0 ] || exit "$status"
fi

# The OTLP encoder's tests parse its output with the OpenTelemetry protobuf definitions
# (google.protobuf.json_format), which Debian does not package: a virtual environment of Debian's
# own python3, under the build directory, holds them. Pinned, so every machine checks against the
# same definitions; nothing is fetched when they are already there.
otlp_python_packages=(opentelemetry-proto==1.45.2 protobuf==7.36.2)
venv="$(cd "$(dirname "$0")/.." && pwd)/.build/python-otlp"
if ! "$venv/bin/python3" -c 'import opentelemetry.proto.collector.logs.v1.logs_service_pb2' 2>/dev/null \
    || ! "$venv/bin/python3" -m pip freeze 2>/dev/null | grep -qx "${otlp_python_packages[0]}"; then
    echo "Installing into $venv: ${otlp_python_packages[*]}"
    mkdir -p "$(dirname "$venv")"
    /usr/bin/python3 -m venv "$venv"
    "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check "${otlp_python_packages[@]}"
fi
