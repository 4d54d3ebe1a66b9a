#!/usr/bin/env bash
# Builds libFuzzer binaries: fuzz/out/TARGET/fuzz-TARGET for each TARGET named (default: all).
#   fuzz/build.sh [TARGET...]
# Sourced by fuzz/run.sh and fuzz/replay.sh; see docs/fuzzing.md for what each target checks.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/swift-env.sh

all_targets=(response request json control config gzip zstd queue cursor redact pattern resp otlp)

# The entry point of each target, and the package modules it imports ("" for none).
entry_of() {
    case "$1" in
        response) echo fuzz/ResponseParserFuzz.swift ;;
        request) echo fuzz/RequestParserFuzz.swift ;;
        json) echo fuzz/JSONFuzz.swift ;;
        control) echo fuzz/ControlFuzz.swift ;;
        config) echo fuzz/ConfigFuzz.swift ;;
        gzip) echo fuzz/GzipFuzz.swift ;;
        zstd) echo fuzz/ZstdFuzz.swift ;;
        queue) echo fuzz/QueueFuzz.swift ;;
        cursor) echo fuzz/CursorFuzz.swift ;;
        redact) echo fuzz/RedactorFuzz.swift ;;
        pattern) echo fuzz/RedactionPatternFuzz.swift ;;
        resp) echo fuzz/RESPFuzz.swift ;;
        otlp) echo fuzz/OTLPProtobufFuzz.swift ;;
        *) return 1 ;;
    esac
}
modules_of() {
    case "$1" in
        response | request | resp) echo "" ;;
        json | otlp) echo "ApsioJSON ApsioCore ApsioWire" ;;
        control) echo "ApsioJSON ApsioCore ApsioPOSIX ApsioControl" ;;
        redact | pattern) echo "ApsioCore ApsioRedaction" ;;
        gzip | zstd) echo "ApsioCore ApsioNet" ;;
        config) echo "ApsioJSON ApsioCore ApsioRedaction ApsioPOSIX ApsioNet ApsioState ApsioConfiguration" ;;
        queue | cursor) echo "ApsioJSON ApsioCore ApsioPOSIX ApsioState" ;;
    esac
}

# The HTTP parsers import nothing: they compile into their fuzzer directly, without any module.
http_parsers=(
    HTTPLimits HTTPHeaders HTTPParseError HTTPSyntax HTTPHeadParser HTTPBodyFramer ChunkedDecoder
    HTTPResponseHead HTTPResponseParser HTTPRequestHead HTTPRequestParser HTTPDate RetryAfter QueryString
)

# The other targets import package modules. Each is compiled here from the package's sources, with
# the fuzzer's coverage and ASan, under its own name so that the sources' imports work unchanged.
# Modules are compiled whole, except ApsioNet: only the files the targets need, which keeps OpenSSL
# out of the fuzzers and the build short. When a source starts using another file of ApsioNet, the
# build names the missing type: add that file here.
sources_of() {
    local files=()
    case "$1" in
        ApsioNet)
            for name in Compression/Gzip Compression/GzipError Compression/DeflateCompressor \
                Compression/CompressorPool Compression/Zstd Compression/ZstdError Compression/ZstdCompressor \
                Compression/ZstdStored HTTP/Client/HTTPEndpoint HTTP/Client/HTTPClientError \
                HTTP/Client/Proxy/HTTPProxy HTTP/Client/Proxy/ProxyCredentials HTTP/Client/Proxy/NoProxy \
                HTTP/Client/Proxy/ProxySettings HTTP/Messages/HTTPParseError; do
                files+=("Sources/ApsioNet/$name.swift")
            done ;;
        *) mapfile -t files < <(find "Sources/$1" -name '*.swift' | sort) ;;
    esac
    printf '%s\n' "${files[@]}"
}

out=fuzz/out
modules=$out/modules
# The package's own Swift settings (Package.swift's `strict`), and the C modules' maps.
swift_flags=(
    -O -g -sanitize=fuzzer,address -parse-as-library -swift-version 6 -package-name apsio
    -enable-upcoming-feature ExistentialAny -enable-upcoming-feature InternalImportsByDefault
    -I "$modules" -I Sources/CLinux -I Sources/CZlib -I Sources/CIsal -I Sources/CZstd
)

# The gold linker warns about ASan's symbols for every binary; harmless.
quiet() { grep -v "Cannot export local symbol '__asan" >&2 || true; }

# The modules each module imports: built first, and a change to one rebuilds those that import it.
imports_of() {
    case "$1" in
        ApsioJSON | ApsioCore) echo "" ;;
        ApsioWire) echo "ApsioJSON ApsioCore" ;;
        ApsioRedaction) echo "ApsioCore" ;;
        ApsioPOSIX | ApsioNet) echo "ApsioCore" ;;
        ApsioState | ApsioControl) echo "ApsioJSON ApsioCore ApsioPOSIX" ;;
        ApsioConfiguration) echo "ApsioJSON ApsioCore ApsioRedaction ApsioPOSIX ApsioNet ApsioState" ;;
    esac
}

# Rebuilt when one of its sources, a module it imports, or this script is newer than its object, or
# when its list of sources changed.
build_module() {
    local module=$1 object=$modules/$1.o
    local sources dependencies=()
    mapfile -t sources < <(sources_of "$module")
    for dependency in $(imports_of "$module"); do dependencies+=("$modules/$dependency.o"); done
    # A file moved out of the module is newer than nothing: the list of sources is compared too.
    local list=$modules/$1.sources
    if [ -f "$object" ] && [ "$(printf '%s\n' "${sources[@]}")" = "$(cat "$list" 2>/dev/null)" ] \
        && [ -z "$(find "${sources[@]}" "${dependencies[@]}" fuzz/build.sh -newer "$object" | head -1)" ]; then
        return
    fi
    mkdir -p "$modules"
    echo "fuzz: compiling $module (${#sources[@]} files)" >&2
    # -enable-testing: entry points reach internal types (the queue, the schemas) with @testable import.
    local status=0
    swiftc "${swift_flags[@]}" -enable-testing -wmo -module-name "$module" \
        -emit-module -emit-module-path "$modules/$module.swiftmodule" -c -o "$object" "${sources[@]}" 2>&1 | quiet \
        || status=${PIPESTATUS[0]}
    [ "$status" -eq 0 ] || { rm -f "$object"; echo "fuzz: compiling $module failed" >&2; exit 1; }
    # The compiler leaves an object it would write unchanged untouched; its time must say it is current.
    touch "$object"
    printf '%s\n' "${sources[@]}" >"$list"
}

build_target() {
    local target=$1 entry
    entry=$(entry_of "$target") || { echo "unknown target $target (${all_targets[*]})" >&2; exit 2; }
    local binary=$out/$target/fuzz-$target
    local sources=(fuzz/FuzzSupport.swift "$entry")
    local objects=()
    case "$target" in
        response | request)
            sources+=(fuzz/HTTPFuzzLimits.swift)
            for name in "${http_parsers[@]}"; do sources+=("Sources/ApsioNet/HTTP/Messages/$name.swift"); done ;;
        queue | cursor) sources+=(fuzz/FuzzFiles.swift) ;;
        # The RESP parser imports nothing either.
        resp) for name in RESPValue RESPLimits RESPReplyParser; do sources+=("Sources/ApsioRedis/RESP/$name.swift"); done ;;
    esac
    for module in $(modules_of "$target"); do
        build_module "$module"
        objects+=("$modules/$module.o")
    done
    mkdir -p "$out/$target"
    rm -f "$binary"
    echo "fuzz: linking $target" >&2
    # The C modules' maps name their libraries (zlib, ISA-L, libzstd), which the link picks up by itself.
    local status=0
    swiftc "${swift_flags[@]}" -o "$binary" "${sources[@]}" "${objects[@]}" 2>&1 | quiet || status=${PIPESTATUS[0]}
    [ "$status" -eq 0 ] && [ -x "$binary" ] || { echo "fuzz: building $target failed" >&2; exit 1; }
}

# Run as a script, build what was asked; sourced, only define the functions.
if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    targets=("$@")
    [ ${#targets[@]} -gt 0 ] || targets=("${all_targets[@]}")
    for target in "${targets[@]}"; do build_target "$target"; done
fi
