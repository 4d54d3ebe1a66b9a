#!/usr/bin/env bash
# The install test of the Debian packages, apsio and apsio-backend. Builds them, checks them with
# lintian, then installs each with dpkg into a fresh Debian 12 root under chroot (systemd is never
# started there: the maintainer scripts must notice that and only enable the units), installs it
# again as an upgrade, removes it and purges it, checking after each step what an operator would
# find.
#
# Needs root (chroot, mounts in a private mount namespace that vanish with it) and the Debian
# mirror. The root's base is made with mmdebstrap once and kept in .build/package-test; nothing
# is cached anywhere else.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
mirror="${APSIO_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite=bookworm

fail() { echo "FAIL: $*" >&2; exit 1; }
ok() { echo "ok: $*"; }

# ---- Inside the private mount namespace: the chroot steps. ------------------------------------
if [ "${1:-}" = "--in-namespace" ]; then
    root="$2"
    deb="$3"
    version="$4"
    backend_deb="$5"
    in_root() { chroot "$root" "$@"; }

    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    mount -t tmpfs -o mode=0755 tmpfs "$root/run"
    cp "$deb" "$root/tmp/apsio.deb"
    cp "$backend_deb" "$root/tmp/apsio-backend.deb"

    in_root dpkg -i /tmp/apsio.deb >/dev/null || fail "dpkg -i refused the package"
    ok "dpkg -i installed the package in a fresh $suite root"

    passwd_entry=$(in_root getent passwd apsio) || fail "no user apsio after installation"
    group_entry=$(in_root getent group apsio) || fail "no group apsio after installation"
    IFS=: read -r _ _ uid gid _ home shell <<<"$passwd_entry"
    [ "$uid" -lt 1000 ] || fail "apsio is not a system user (uid $uid)"
    [ "$gid" = "$(cut -d: -f3 <<<"$group_entry")" ] || fail "apsio's primary group is not apsio"
    [ "$shell" = /usr/sbin/nologin ] || fail "apsio can log in (shell $shell)"
    [ "$home" = /var/lib/apsio ] || fail "apsio's home is $home, not its state directory"
    groups=$(in_root id -nG apsio)
    [ "$groups" = apsio ] || fail "apsio was added to groups: $groups (the unit grants them instead)"
    ok "system user and group apsio (uid $uid), in no other group, no login shell"

    motd_mode=$(in_root stat -c '%U:%G %a' /run/motd.d/50-apsio) || fail "no indicator file /run/motd.d/50-apsio"
    [ "$motd_mode" = "apsio:apsio 644" ] || fail "/run/motd.d/50-apsio is $motd_mode, want apsio:apsio 644"
    in_root setpriv --reuid apsio --regid apsio --init-groups sh -c 'echo "Your team is viewing example live" > /run/motd.d/50-apsio' \
        || fail "the user apsio cannot write the indicator file"
    ok "/run/motd.d/50-apsio made by tmpfiles.d, writable by apsio (and only that file)"
    ! in_root setpriv --reuid apsio --regid apsio --init-groups sh -c ': > /run/motd.d/60-other' 2>/dev/null \
        || fail "the user apsio can create other files in /run/motd.d"

    state_mode=$(in_root stat -c '%U:%G %a' /var/lib/apsio)
    [ "$state_mode" = "apsio:apsio 770" ] || fail "/var/lib/apsio is $state_mode, want apsio:apsio 770"
    ok "/var/lib/apsio exists before the first start, apsio:apsio 0770"

    [ "$(in_root apsioctl --version)" = "apsioctl $version" ] || fail "apsioctl --version does not say $version"
    [ "$(in_root /usr/sbin/apsiod --version)" = "apsiod $version" ] || fail "apsiod --version does not say $version"
    ok "apsioctl --version and apsiod --version run in the root: $version"

    # Every library the binaries load must come from a package the .deb depends on (or from
    # libc6, which every Debian system has); a missing one would fail only on other machines.
    depends=$(dpkg-deb -f "$deb" Depends | sed 's/([^)]*)//g; s/[|,]/ /g' | tr -s ' ')
    for binary in /usr/sbin/apsiod /usr/bin/apsioctl; do
        for library in $(readelf -d "$root$binary" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
            owner=$(in_root dpkg -S "*/$library" 2>/dev/null | head -n 1 | cut -d: -f1) \
                || fail "no package in the root provides $library, which $binary needs"
            grep -qw -- "$owner" <<<"$depends" || fail "$binary needs $library from $owner, not in Depends: $depends"
        done
    done
    ok "Depends covers every library the binaries need ($depends)"

    in_root dpkg --verify apsio || fail "dpkg --verify finds files that differ from md5sums"
    ok "dpkg --verify: every installed file matches md5sums"

    conffiles=$(in_root dpkg-query -W -f='${Conffiles}' apsio)
    for file in /etc/apsio/apsiod.conf /etc/apsio/apps.d/example.conf.example; do
        grep -q "^ $file " <<<"$conffiles" || fail "$file is not a conffile"
    done
    ok "/etc/apsio/apsiod.conf and apps.d/example.conf.example are conffiles"

    for link in multi-user.target.wants/apsiod.service sockets.target.wants/apsiod.socket; do
        [ -L "$root/etc/systemd/system/$link" ] || fail "not enabled: /etc/systemd/system/$link is missing"
    done
    ok "apsiod.service and apsiod.socket enabled, nothing started (no systemd in a chroot)"

    "$repo/scripts/check-units.sh" "$root" | grep -v '^ok: Overall' || fail "the installed units do not verify"

    # What a running daemon and operator leave behind: stored choices, a queue, the runtime
    # directory and the indicator.
    in_root install -d -o apsio -g apsio -m 0750 /var/lib/apsio/apps/example/queue
    echo '{"allowLive":true}' > "$root/var/lib/apsio/settings.json"
    in_root chown apsio:apsio /var/lib/apsio/settings.json
    in_root install -d -o apsio -g apsio -m 0755 /run/apsio
    echo "# operator's own setting" >> "$root/etc/apsio/apsiod.conf"

    in_root dpkg -i /tmp/apsio.deb >/dev/null || fail "installing the package again (an upgrade) failed"
    grep -q "operator's own setting" "$root/etc/apsio/apsiod.conf" || fail "an upgrade overwrote the operator's apsiod.conf"
    [ -f "$root/var/lib/apsio/settings.json" ] || fail "an upgrade lost /var/lib/apsio"
    ok "installed again (upgrade): user kept, operator's apsiod.conf and the state kept"

    in_root dpkg --remove apsio >/dev/null || fail "dpkg --remove failed"
    [ ! -e "$root/usr/sbin/apsiod" ] || fail "/usr/sbin/apsiod is still there after remove"
    [ ! -e "$root/run/motd.d/50-apsio" ] || fail "the indicator /run/motd.d/50-apsio outlived the package"
    [ -f "$root/var/lib/apsio/settings.json" ] || fail "remove (not purge) dropped the state"
    [ -f "$root/etc/apsio/apsiod.conf" ] || fail "remove (not purge) dropped the configuration"
    ok "removed: binaries and the indicator gone, configuration and state kept for a reinstall"

    in_root dpkg --purge apsio >/dev/null || fail "dpkg --purge failed"
    for path in /var/lib/apsio /run/apsio /etc/apsio \
        /etc/systemd/system/multi-user.target.wants/apsiod.service \
        /etc/systemd/system/sockets.target.wants/apsiod.socket \
        /etc/systemd/system/apsiod.service /etc/systemd/system/apsiod.socket; do
        [ ! -e "$root$path" ] && [ ! -L "$root$path" ] || fail "$path is still there after purge"
    done
    in_root getent passwd apsio >/dev/null || fail "purge removed the system user (Debian keeps them)"
    ok "purged: /var/lib/apsio, /run/apsio, /etc/apsio and the unit links gone; the system user stays"

    # ---- apsio-backend ----
    in_root dpkg -i /tmp/apsio-backend.deb >/dev/null || fail "dpkg -i refused apsio-backend"
    ok "dpkg -i installed apsio-backend"
    passwd_entry=$(in_root getent passwd apsio-backend) || fail "no user apsio-backend after installation"
    IFS=: read -r _ _ uid _ _ home shell <<<"$passwd_entry"
    [ "$uid" -lt 1000 ] || fail "apsio-backend is not a system user (uid $uid)"
    [ "$shell" = /usr/sbin/nologin ] || fail "apsio-backend can log in (shell $shell)"
    in_root getent group apsio-backend >/dev/null || fail "no group apsio-backend after installation"
    state_mode=$(in_root stat -c '%U:%G %a' /var/lib/apsio-backend)
    [ "$state_mode" = "apsio-backend:apsio-backend 700" ] || fail "/var/lib/apsio-backend is $state_mode"
    ok "system user apsio-backend (uid $uid), no login shell, /var/lib/apsio-backend 0700"

    [ -f "$root/lib/systemd/system/apsio-backend.service" ] || fail "no apsio-backend.service"
    [ -L "$root/etc/systemd/system/multi-user.target.wants/apsio-backend.service" ] || fail "apsio-backend.service not enabled"
    conffiles=$(in_root dpkg-query -W -f='${Conffiles}' apsio-backend)
    for file in /etc/apsio-backend/backend.conf /etc/apsio-backend/apps.d/example.conf.example; do
        grep -q "^ $file " <<<"$conffiles" || fail "$file is not a conffile of apsio-backend"
    done
    [ -d "$root/etc/apsio-backend/apps.d" ] || fail "no /etc/apsio-backend/apps.d"
    ok "apsio-backend.service installed and enabled; backend.conf and apps.d/example.conf.example are conffiles"
    in_root dpkg --verify apsio-backend || fail "dpkg --verify finds apsio-backend files that differ from md5sums"
    # The nginx example is the file the tests run nginx from, unchanged.
    cmp -s "$root/usr/share/doc/apsio-backend/examples/nginx-apsio-backend.conf" \
        "$repo/packaging/examples/nginx-apsio-backend.conf" \
        || fail "/usr/share/doc/apsio-backend/examples/nginx-apsio-backend.conf is not packaging/examples/nginx-apsio-backend.conf"
    ok "the nginx example is in /usr/share/doc/apsio-backend/examples, as tested"
    in_root /usr/sbin/apsio-backend --help | grep -q -- '--config DIR' || fail "apsio-backend --help does not run"
    # The shipped backend.conf is read without a problem: only the missing live origin stops it.
    start_error=$(in_root timeout 30 /usr/sbin/apsio-backend 2>&1 >/dev/null | head -n 1 || true)
    [ "$start_error" = "apsio-backend: give --live-origin or LiveOrigin= in /etc/apsio-backend/backend.conf" ] \
        || fail "the shipped configuration gives: $start_error"
    ok "apsio-backend runs in the root and reads the shipped backend.conf without a problem"

    depends=$(dpkg-deb -f "$backend_deb" Depends | sed 's/([^)]*)//g; s/[|,]/ /g' | tr -s ' ')
    for library in $(readelf -d "$root/usr/sbin/apsio-backend" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        owner=$(in_root dpkg -S "*/$library" 2>/dev/null | head -n 1 | cut -d: -f1) \
            || fail "no package in the root provides $library, which apsio-backend needs"
        grep -qw -- "$owner" <<<"$depends" || fail "apsio-backend needs $library from $owner, not in Depends: $depends"
    done
    ok "Depends of apsio-backend covers every library it needs ($depends)"

    "$repo/scripts/check-units.sh" "$root" | grep -v '^ok: Overall' || fail "the installed backend unit does not verify"

    echo "# operator's own setting" >> "$root/etc/apsio-backend/backend.conf"
    printf '[App]\nAppKey=apsio_app_operator\n' > "$root/etc/apsio-backend/apps.d/web.conf"
    in_root dpkg -i /tmp/apsio-backend.deb >/dev/null || fail "installing apsio-backend again (an upgrade) failed"
    grep -q "operator's own setting" "$root/etc/apsio-backend/backend.conf" || fail "an upgrade overwrote backend.conf"
    [ -f "$root/etc/apsio-backend/apps.d/web.conf" ] || fail "an upgrade lost the operator's app file"
    ok "apsio-backend installed again (upgrade): backend.conf and the operator's app file kept"

    in_root dpkg --remove apsio-backend >/dev/null || fail "dpkg --remove apsio-backend failed"
    [ ! -e "$root/usr/sbin/apsio-backend" ] || fail "/usr/sbin/apsio-backend is still there after remove"
    [ -f "$root/etc/apsio-backend/backend.conf" ] || fail "remove (not purge) dropped backend.conf"
    ok "apsio-backend removed: the binary gone, its configuration kept"

    in_root dpkg --purge apsio-backend >/dev/null || fail "dpkg --purge apsio-backend failed"
    for path in /etc/apsio-backend /var/lib/apsio-backend /lib/systemd/system/apsio-backend.service \
        /etc/systemd/system/multi-user.target.wants/apsio-backend.service /etc/systemd/system/apsio-backend.service; do
        [ ! -e "$root$path" ] && [ ! -L "$root$path" ] || fail "$path is still there after purging apsio-backend"
    done
    in_root getent passwd apsio-backend >/dev/null || fail "purge removed the system user apsio-backend (Debian keeps them)"
    ok "apsio-backend purged: /etc/apsio-backend, /var/lib/apsio-backend and the unit gone; the system user stays"
    exit 0
fi

# ---- On the host. ------------------------------------------------------------------------------
cd "$repo"
[ "$(id -u)" -eq 0 ] || fail "the install test needs root (chroot and mount)"
for tool in mmdebstrap lintian unshare chroot; do
    command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/install-deps.sh installs it)"
done

built=$(packaging/build-deb.sh | tail -n 2)
backend_deb=$(head -n 1 <<<"$built")
deb=$(tail -n 1 <<<"$built")
version=$(dpkg-deb -f "$deb" Version)
ok "built $deb and $backend_deb"

# lintian says so when it runs as root; that is no finding about the package.
for package in "$deb" "$backend_deb"; do
    if lintian_output=$(lintian --fail-on error,warning "$package" 2>&1); then
        ok "lintian: no error, no warning in $(basename "$package")"
    else
        echo "$lintian_output" | grep -v 'running with root privileges' >&2
        fail "lintian finds errors or warnings in $(basename "$package")"
    fi
done

# The completion, with stand-ins for the two bash-completion helpers it calls.
completion_of() { # WORDS...: the completions offered for the last word
    bash -c '
        _init_completion() { cur=${COMP_WORDS[COMP_CWORD]}; prev=${COMP_WORDS[COMP_CWORD-1]}; words=("${COMP_WORDS[@]}"); cword=$COMP_CWORD; }
        _filedir() { COMPREPLY=(DIRECTORY); }
        . "$1"; shift
        COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
        _apsioctl; echo "${COMPREPLY[*]}"' _ packaging/bash-completion/apsioctl "$@"
}
config=$(mktemp -d)
trap 'rm -rf "$config"' EXIT
mkdir "$config/apps.d"
touch "$config/apps.d/nginx.conf" "$config/apps.d/postgres.conf" "$config/apps.d/example.conf.example"
[ "$(completion_of apsioctl a)" = "apps allow-live" ] || fail "completion of 'apsioctl a': $(completion_of apsioctl a)"
[ "$(completion_of apsioctl --json consent '')" = "grant deny" ] || fail "completion of consent: $(completion_of apsioctl --json consent '')"
[ "$(completion_of apsioctl --config-dir "$config" allow-live on '')" = "nginx postgres" ] \
    || fail "completion of app names: $(completion_of apsioctl --config-dir "$config" allow-live on '')"
[ "$(completion_of apsioctl data-saver on '')" = "" ] || fail "data-saver takes no app, completion offered some"
ok "bash completion: commands, their arguments and the configured apps"

# A fresh root: Debian's essential packages, systemd (for systemd-analyze verify and its targets)
# and the package's own Depends, so dpkg -i checks that they are all it needs.
test_dir="$repo/.build/package-test"
mkdir -p "$test_dir"
include=$( (echo systemd; dpkg-deb -f "$deb" Depends; echo ,; dpkg-deb -f "$backend_deb" Depends) | sed 's/([^)]*)//g' | tr ',' '\n' \
    | tr -d ' ' | grep -v '^$' | LC_ALL=C sort -u | paste -sd, -)
base="$test_dir/$suite-$(echo "$mirror $include" | sha256sum | cut -c1-16).tar"
if [ ! -f "$base" ]; then
    rm -rf "$test_dir/$suite"-*.tar "$test_dir"/*.partial "$test_dir/tmp"
    echo "Making a $suite root with $include (kept in ${base#"$repo"/})"
    # mmdebstrap assembles the root in TMPDIR before it writes the archive.
    mkdir -p "$test_dir/tmp"
    TMPDIR="$test_dir/tmp" mmdebstrap --quiet --mode=root --variant=essential --include="$include" \
        --format=tar "$suite" "$base.partial" "$mirror"
    rm -rf "$test_dir/tmp"
    mv "$base.partial" "$base"
fi

root="$test_dir/root"
cleanup() {
    rm -rf "$config"
    # The mounts lived in the namespace, which is gone: nothing under $root is mounted here.
    rm -rf --one-file-system "$root"
}
trap cleanup EXIT
rm -rf --one-file-system "$root"
mkdir -p "$root"
tar --numeric-owner -C "$root" -xf "$base"

unshare --mount --propagation private -- "$0" --in-namespace "$root" "$deb" "$version" "$backend_deb"
