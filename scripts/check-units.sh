#!/usr/bin/env bash
# Checks the systemd units without a running systemd:
# - apsiod.service's exposure rating from `systemd-analyze security --offline=yes` is 2.0 or lower
#   (docs/packaging.md says what each relaxed setting is for);
# - `systemd-analyze verify` accepts both units.
#
# Usage: scripts/check-units.sh [ROOT]
# verify needs what the units name (/usr/sbin/apsiod, /bin/kill) and systemd's own targets. Given
# ROOT, a Debian root with systemd and the package installed (scripts/test-package.sh makes one),
# it runs there under chroot. Without ROOT it runs on this machine when the package is installed
# here, and is skipped otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."

max_exposure=2.0
status=0

# systemd-analyze compares --threshold with the exposure times ten (it prints 1.5 for 15).
threshold=$(awk -v max="$max_exposure" 'BEGIN { printf "%d", max * 10 }')
if rating=$(systemd-analyze security --offline=yes --threshold="$threshold" systemd/apsiod.service 2>&1); then
    echo "ok: $(echo "$rating" | tail -n 1 | sed 's/^→ *//') (at most $max_exposure)"
else
    echo "$rating" | grep -E '✗|Overall' >&2 || echo "$rating" >&2
    echo "FAIL: apsiod.service is exposed more than $max_exposure allows" >&2
    status=1
fi

units=(/lib/systemd/system/apsiod.service /lib/systemd/system/apsiod.socket)
root="${1:-}"
if [ -n "$root" ]; then
    # Man pages are not installed in a minimal root; the Documentation= lines are checked by
    # the package's lintian run instead.
    verify=(chroot "$root" systemd-analyze verify --man=no "${units[@]}")
elif [ -x /usr/sbin/apsiod ] && [ -f /lib/systemd/system/apsiod.service ]; then
    verify=(systemd-analyze verify "${units[@]}")
else
    echo "skipped: systemd-analyze verify (the package is not installed here; scripts/test-package.sh runs it in a Debian root)"
    exit $status
fi
if output=$("${verify[@]}" 2>&1) && [ -z "$output" ]; then
    echo "ok: systemd-analyze verify accepts apsiod.service and apsiod.socket"
else
    echo "$output" >&2
    echo "FAIL: systemd-analyze verify rejects the units" >&2
    status=1
fi
exit $status
