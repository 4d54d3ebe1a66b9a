#!/usr/bin/env bash
# Redaction and OTLP encoding benchmark: the cost a journal line of the built-in rules, of
# Redact= patterns with and without a literal prefix, and of writing OTLP JSON; release build.
#
#   bench/redaction/run.sh                 # 200,000 lines a case, 5 rounds
#   LINES=50000 ROUNDS=3 bench/redaction/run.sh
#   (with the tests' realistic mix, Tests/ApsioRedactionTests/Fixtures/redaction/mix.txt, when it is there)
set -euo pipefail
cd "$(dirname "$0")/../.."
. scripts/swift-env.sh

LINES=${LINES:-200000}
ROUNDS=${ROUNDS:-5}

swift build -c release --product apsio-bench-redaction >&2
bench="$(swift build -c release --show-bin-path)/apsio-bench-redaction"
echo "machine: $(nproc) CPUs, $(uname -r)"
mix=Tests/ApsioRedactionTests/Fixtures/redaction/mix.txt
mix_args=()
if [ -f "$mix" ]; then mix_args=(--mix "$mix"); fi
"$bench" --lines "$LINES" --rounds "$ROUNDS" "${mix_args[@]}"
