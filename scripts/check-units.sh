#!/usr/bin/env bash
# Checks the systemd units without a running systemd:
# - apsiod.service's exposure rating from `systemd-analyze security --offline=yes` is 2.0 or lower,
#   apsio-backend.service's 2.5 or lower (docs/packaging.md says what each relaxed setting is for);
# - `systemd-analyze verify` accepts the units.
#
# Usage: scripts/check-units.sh [ROOT]
# verify needs what the units name (/usr/sbin/apsiod, /bin/kill) and systemd's own targets. Given
# ROOT, a Debian root with systemd and the package installed (scripts/test-package.sh makes one),
# it runs there under chroot. Without ROOT it runs on this machine when the package is installed
# here, and is skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0

rate() { # UNIT MAX_EXPOSURE
    # systemd-analyze compares --threshold with the exposure times ten (it prints 1.5 for 15).
    local threshold rating
    threshold=$(awk -v max="$2" 'BEGIN { printf "%d", max * 10 }')
    if rating=$(systemd-analyze security --offline=yes --threshold="$threshold" "systemd/$1" 2>&1); then
        echo "ok: $(echo "$rating" | tail -n 1 | sed 's/^→ *//') (at most $2)"
    else
        echo "$rating" | grep -E '✗|Overall' >&2 || echo "$rating" >&2
        echo "FAIL: $1 is exposed more than $2 allows" >&2
        status=1
    fi
}
rate apsiod.service 2.0
rate apsio-backend.service 2.5

root="${1:-}"
# The units of the packages installed there (in ROOT, one or both of apsio and apsio-backend).
units=()
for unit in apsiod.service apsiod.socket apsio-backend.service; do
    [ -f "$root/lib/systemd/system/$unit" ] && units+=("/lib/systemd/system/$unit")
done
if [ -n "$root" ] && [ ${#units[@]} -eq 0 ]; then
    echo "FAIL: no unit of apsio or apsio-backend installed in $root" >&2
    exit 1
elif [ -n "$root" ]; then
    # Man pages are not installed in a minimal root; the Documentation= lines are checked by
    # the package's lintian run instead.
    verify=(chroot "$root" systemd-analyze verify --man=no "${units[@]}")
elif [ ${#units[@]} -gt 0 ]; then
    verify=(systemd-analyze verify "${units[@]}")
else
    echo "skipped: systemd-analyze verify (the package is not installed here; scripts/test-package.sh runs it in a Debian root)"
    exit $status
fi
if output=$("${verify[@]}" 2>&1) && [ -z "$output" ]; then
    echo "ok: systemd-analyze verify accepts ${units[*]##*/}"
else
    echo "$output" >&2
    echo "FAIL: systemd-analyze verify rejects the units" >&2
    status=1
fi
exit $status
