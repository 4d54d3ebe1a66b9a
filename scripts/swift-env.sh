# Sourced by the scripts: finds the Swift toolchain when it is not on PATH yet.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
    PATH="/opt/swift/usr/bin:$PATH"
    export PATH
fi
command -v swift >/dev/null 2>&1 || { echo "swift is not installed (see https://www.swift.org/install/linux/)" >&2; exit 1; }
