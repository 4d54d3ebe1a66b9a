# Sourced by the benchmarks that count instructions (CALLGRIND=DIR): checks DIR holds a valgrind
# that runs Swift binaries (3.24 or later; Debian 12's 3.19 dies in them) and builds the
# sigsuspend shim (sigsuspend.c). Exports CALLGRIND_VALGRIND, CALLGRIND_CONTROL, CALLGRIND_ANNOTATE,
# VALGRIND_LIB and CALLGRIND_PRELOAD for the scripts; see bench/callgrind/README.md.
callgrind_setup() {
    local dir=$1 out=$2
    CALLGRIND_VALGRIND="$dir/valgrind.bin"
    [ -x "$CALLGRIND_VALGRIND" ] || CALLGRIND_VALGRIND="$dir/valgrind"
    CALLGRIND_CONTROL="$dir/callgrind_control"
    CALLGRIND_ANNOTATE="$dir/callgrind_annotate"
    if [ ! -x "$CALLGRIND_VALGRIND" ] || [ ! -x "$CALLGRIND_CONTROL" ] || [ ! -x "$CALLGRIND_ANNOTATE" ]; then
        echo "CALLGRIND=$dir: no valgrind, callgrind_control and callgrind_annotate there" >&2
        return 1
    fi
    if [ -z "${VALGRIND_LIB:-}" ] && [ -d "$dir/../libexec/valgrind" ]; then
        VALGRIND_LIB=$(cd "$dir/../libexec/valgrind" && pwd)
        export VALGRIND_LIB
    fi
    local version
    version=$("$CALLGRIND_VALGRIND" --version | sed 's/^valgrind-//')
    case "$version" in
        3.1[0-9]*|3.2[0-3]*|3.[0-9].*) echo "CALLGRIND=$dir: valgrind $version dies in Swift binaries; 3.24 or later is needed" >&2; return 1 ;;
    esac
    mkdir -p "$out"
    # callgrind_control talks to the program through the vgdb beside it; Debian 13's needs a newer
    # glibc than Debian 12's, whose own vgdb (any version's speaks the same protocol) serves instead.
    if ! "$dir/vgdb" --help >/dev/null 2>&1; then
        if ! command -v vgdb >/dev/null; then
            echo "CALLGRIND=$dir: its vgdb does not run here, and no other vgdb is installed (apt-get install valgrind)" >&2
            return 1
        fi
        cp "$CALLGRIND_CONTROL" "$out/callgrind_control"
        CALLGRIND_CONTROL="$out/callgrind_control"
    fi
    CALLGRIND_PRELOAD="$out/sigsuspend.so"
    cc -shared -fPIC -O2 -o "$CALLGRIND_PRELOAD" "$(dirname "${BASH_SOURCE[0]}")/sigsuspend.c" -ldl
    export CALLGRIND_VALGRIND CALLGRIND_CONTROL CALLGRIND_ANNOTATE CALLGRIND_PRELOAD
}
