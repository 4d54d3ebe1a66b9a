#!/usr/bin/env bash
# Installs the Debian packages the build and the tests need, when any is missing.
# Safe to run again: it does nothing when everything is there.
set -euo pipefail

packages=(
    libsystemd-dev zlib1g-dev libssl-dev pkg-config   # the C libraries apsiod links
    systemd-journal-remote                            # real journal files for the tests
    dbus python3-dbusmock                             # a private system bus with mock services
    openssl gzip binutils                             # test certificates, gzip and readelf
    gcc libc6-dev                                     # tiny ELF files with and without a build-id
)

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed'; then
        missing+=("$package")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=()
[ "$(id -u)" -eq 0 ] || sudo=(sudo)
echo "Installing: ${missing[*]}"
"${sudo[@]}" apt-get update -qq
DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
