#!/usr/bin/env bash
# Builds apsio_VERSION_ARCH.deb (apsiod, apsioctl) and apsio-backend_VERSION_ARCH.deb with
# dpkg-deb, doing by hand what debhelper would: stripped binaries, compressed man pages and
# changelog, conffiles, md5sums, Installed-Size, and Depends computed from the libraries the
# binaries need.
#
# Usage: packaging/build-deb.sh [OUTPUT_DIR]     (default .build/deb)
# Prints the path of the backend's package, then the agent's on the last line. Needs dpkg-dev (dpkg-shlibdeps,
# dpkg-parsechangelog) and binutils (strip); scripts/install-deps.sh installs both.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
cd "$repo"
. scripts/swift-env.sh

fail() { echo "build-deb: $*" >&2; exit 1; }

out_dir="$(mkdir -p "${1:-$repo/.build/deb}" && cd "${1:-$repo/.build/deb}" && pwd)"
packaging="$repo/packaging"

# The version is the one the binaries report; the changelog must have an entry for it, so that a
# version bump without a word about it fails here rather than shipping a stale changelog.
version=$(sed -n 's/^ *package static let current = "\([^"]*\)".*/\1/p' Sources/ApsioCore/Basics/ApsioVersion.swift)
[ -n "$version" ] || fail "no version found in Sources/ApsioCore/Basics/ApsioVersion.swift"
changelog_version=$(dpkg-parsechangelog -l "$packaging/debian/changelog" -S Version)
[ "$version" = "$changelog_version" ] \
    || fail "ApsioVersion is $version but packaging/debian/changelog's latest entry is $changelog_version: add an entry for $version"
arch=$(dpkg --print-architecture)
# File dates and the archive's own dates come from the changelog: the same sources give the
# same package.
SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(dpkg-parsechangelog -l "$packaging/debian/changelog" -S Timestamp)}"
export SOURCE_DATE_EPOCH

for file in "$packaging/etc/apsio/apsiod.conf" "$packaging/etc/apsio/apps.d/example.conf.example" \
    "$packaging/etc/apsio-backend/backend.conf" "$packaging/etc/apsio-backend/apps.d/example.conf.example" \
    "$packaging/examples/nginx-apsio-backend.conf"; do
    [ -f "$file" ] || fail "missing ${file#"$repo"/}"
done

swift build -c release --static-swift-stdlib --product apsiod
swift build -c release --static-swift-stdlib --product apsioctl
swift build -c release --static-swift-stdlib --product apsio-backend
bin=$(swift build -c release --static-swift-stdlib --show-bin-path)

work="$out_dir/work"
root="$work/debian/apsio"
rm -rf "$work"
mkdir -p "$root/DEBIAN"

install_man() { # SOURCE SECTION [ROOT]
    local into="${3:-$root}"
    install -d -m 0755 "$into/usr/share/man/man$2"
    gzip -9n -c "$1" > "$into/usr/share/man/man$2/$(basename "$1").gz"
}

# What every package gets once its files are in place: conffiles, Depends, Installed-Size, the
# control file, md5sums, the dates, and the archive, held to its size budget.
finish_package() { # ROOT TEMPLATE EXTRA_DEPENDS MAX_BYTES BINARY...
    local root="$1" template="$2" extra="$3" max_bytes="$4"
    shift 4
    local name
    name=$(sed -n 's/^Package: //p' "$template")
    # Every file under /etc is a conffile: dpkg keeps the operator's changes across upgrades.
    (cd "$root" && find etc -type f -printf '/%p\n' | LC_ALL=C sort) > "$root/DEBIAN/conffiles"
    chmod 0644 "$root/DEBIAN/conffiles"

    # Depends: the Debian packages holding the libraries the binaries are linked against, with the
    # versions their symbols need. dpkg-shlibdeps fails on a library no Debian package provides,
    # which is the check that the release build links only Debian's libraries.
    rm -rf "$work/debian/control"
    printf 'Source: apsio\n\nPackage: %s\nArchitecture: any\n' "$name" > "$work/debian/control"
    local binaries=() binary shlibs
    for binary in "$@"; do binaries+=(-e "$root$binary"); done
    # dpkg 1.21 warns that the binaries are not in their package's directory even when they are (it
    # tests a variable it has emptied by then); that one line is dropped, any other warning shown.
    shlibs=$(cd "$work" && dpkg-shlibdeps -O "${binaries[@]}" \
        2> >(grep -v "binaries to analyze should already be installed in their package's directory" >&2) \
        | sed -n 's/^shlibs:Depends=//p')
    [ -n "$shlibs" ] || fail "dpkg-shlibdeps found no library dependencies for $name"

    # Installed-Size as dpkg-gencontrol counts it: KiB per file, rounded up, and one per other entry.
    local installed_size
    installed_size=$(cd "$root" && find . -path ./DEBIAN -prune -o ! -path . -printf '%y %s\n' \
        | awk '{ if ($1 == "f") total += int(($2 + 1023) / 1024); else total += 1 } END { print total }')
    {
        grep '^Package:' "$template"
        [ "$name" = apsio ] || echo "Source: apsio"
        echo "Version: $version"
        echo "Architecture: $arch"
        grep -E '^(Maintainer|Section|Priority):' "$template"
        echo "Installed-Size: $installed_size"
        echo "Depends: $shlibs, $extra"
        sed -n '/^Description:/,$p' "$template"
    } > "$root/DEBIAN/control"

    # md5sums of every file but the conffiles, as dh_md5sums writes it (dpkg records those apart).
    (cd "$root" && find . -path ./DEBIAN -prune -o -path ./etc -prune -o -type f -printf '%P\0' \
        | LC_ALL=C sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
    chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/md5sums"

    find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

    local deb="$out_dir/${name}_${version}_${arch}.deb"
    rm -f "$deb"
    # xz -8: a 32 MiB window, where dpkg-deb's default -6 has 8 MiB. The binaries of one package
    # carry the same static Swift runtime and Foundation (about 9 MB each); with the wider window
    # the second copy compresses against the first (docs/packaging.md, "Binary sizes").
    dpkg-deb --root-owner-group -Zxz -z8 --build "$root" "$deb" >/dev/null
    # The budget the package is held to: a larger one fails here, not on a tester's metered link.
    local deb_bytes
    deb_bytes=$(stat -c %s "$deb")
    [ "$deb_bytes" -le "$max_bytes" ] \
        || fail "$(basename "$deb") is $deb_bytes bytes, over the $max_bytes-byte budget (docs/packaging.md, \"Binary sizes\")"
    built="$deb"
}

install -D -m 0755 "$bin/apsiod" "$root/usr/sbin/apsiod"
install -D -m 0755 "$bin/apsioctl" "$root/usr/bin/apsioctl"
# What dh_strip does to an executable; the debug symbols are not shipped.
strip --remove-section=.comment --remove-section=.note "$root/usr/sbin/apsiod" "$root/usr/bin/apsioctl"

install -D -m 0644 "$repo/systemd/apsiod.service" "$root/lib/systemd/system/apsiod.service"
install -D -m 0644 "$repo/systemd/apsiod.socket" "$root/lib/systemd/system/apsiod.socket"

install -D -m 0644 "$packaging/debian/tmpfiles.conf" "$root/usr/lib/tmpfiles.d/apsio.conf"

install -D -m 0644 "$packaging/etc/apsio/apsiod.conf" "$root/etc/apsio/apsiod.conf"
install -d -m 0755 "$root/etc/apsio/apps.d"
install -m 0644 "$packaging/etc/apsio/apps.d/"* "$root/etc/apsio/apps.d/"

install_man "$packaging/man/apsiod.8" 8
install_man "$packaging/man/apsioctl.1" 1
# apsio.conf(5) comes with the configuration reader; the package carries it once it exists.
if [ -f "$packaging/man/apsio.conf.5" ]; then
    install_man "$packaging/man/apsio.conf.5" 5
else
    echo "build-deb: note: packaging/man/apsio.conf.5 is missing; the package has no apsio.conf(5)" >&2
fi

install -D -m 0644 "$packaging/bash-completion/apsioctl" "$root/usr/share/bash-completion/completions/apsioctl"

doc="$root/usr/share/doc/apsio"
install -D -m 0644 "$packaging/debian/copyright" "$doc/copyright"
# A native package (its version has no Debian revision) names its changelog changelog.gz.
gzip -9n -c "$packaging/debian/changelog" > "$doc/changelog.gz"
if [ -s "$packaging/debian/lintian-overrides" ]; then
    install -D -m 0644 "$packaging/debian/lintian-overrides" "$root/usr/share/lintian/overrides/apsio"
fi

for script in postinst prerm postrm; do
    install -m 0755 "$packaging/debian/$script" "$root/DEBIAN/$script"
done
mkdir -p "$work/debian"
# adduser for postinst; procps for /bin/kill, the unit's ExecReload.
finish_package "$root" "$packaging/debian/control" "adduser, procps" 6000000 /usr/sbin/apsiod /usr/bin/apsioctl
agent_deb="$built"

# ---- apsio-backend: the backend, its unit, its configuration and its own user. -----------------
backend_root="$work/debian/apsio-backend"
mkdir -p "$backend_root/DEBIAN"
install -D -m 0755 "$bin/apsio-backend" "$backend_root/usr/sbin/apsio-backend"
strip --remove-section=.comment --remove-section=.note "$backend_root/usr/sbin/apsio-backend"
install -D -m 0644 "$repo/systemd/apsio-backend.service" "$backend_root/lib/systemd/system/apsio-backend.service"
install -D -m 0644 "$packaging/etc/apsio-backend/backend.conf" "$backend_root/etc/apsio-backend/backend.conf"
install -d -m 0755 "$backend_root/etc/apsio-backend/apps.d"
install -m 0644 "$packaging/etc/apsio-backend/apps.d/"* "$backend_root/etc/apsio-backend/apps.d/"
install_man "$packaging/man/apsio-backend.8" 8 "$backend_root"
backend_doc="$backend_root/usr/share/doc/apsio-backend"
install -D -m 0644 "$packaging/debian/copyright" "$backend_doc/copyright"
gzip -9n -c "$packaging/debian/changelog" > "$backend_doc/changelog.gz"
# The nginx configuration the tests run (docs/nginx.md), uncompressed so that it can be copied
# into /etc/nginx/conf.d as it is.
install -D -m 0644 "$packaging/examples/nginx-apsio-backend.conf" "$backend_doc/examples/nginx-apsio-backend.conf"
for script in postinst prerm postrm; do
    install -m 0755 "$packaging/debian/apsio-backend/$script" "$backend_root/DEBIAN/$script"
done
# One binary, so no second runtime to compress against the first: its own budget.
finish_package "$backend_root" "$packaging/debian/apsio-backend/control" "adduser, procps" 5000000 /usr/sbin/apsio-backend

echo "$built"
echo "$agent_deb"
