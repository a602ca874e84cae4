#!/usr/bin/env bash
# tests/golden/run.sh WASMDBG [--update]: runs every tests/golden/NAME.cmd (the arguments of
# one wasmdbg command line; $SHARED is the shared folder, ../shared or $WD_SHARED_DIR) and
# compares its stdout, stderr and exit status with NAME.out, NAME.err and NAME.status.
# Outputs carry tick counts, so any cost change shows as a diff to review. --update
# rewrites the expected files (make golden-update).
set -uo pipefail
cd "$(dirname "$0")/../.."
wasmdbg=$1
update=${2:-}
SHARED=${WD_SHARED_DIR:-../shared}
export SHARED
TMP=$(mktemp -d)
export TMP
trap 'rm -rf "$TMP"' EXIT
. tests/cases.sh
passed=0
failed=0
for cmd in tests/golden/*.cmd; do
    if run_case "${cmd%.cmd}" /dev/null cat; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
done
# --timings-file: one JSON line per debug line, as the reference debugger writes it
# (timing_buffer.ml): whole seconds, and the rest in nanoseconds rounded to an integer.
"$wasmdbg" run "$SHARED/kernels/debug_kernel.wasm" --inputs \
    "$SHARED/kernels/empty-two-levels.inputs.json" --timings-file "$TMP/timings.jsonl" \
    >/dev/null 2>&1
if [ -s "$TMP/timings.jsonl" ] && ! grep -Evq \
    '^\{"elapsed":\{"secs":[0-9]+,"nanos":[0-9]{1,9}\},"message":"[^"]*"\}$' \
    "$TMP/timings.jsonl"; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "--timings-file: not {\"elapsed\":{\"secs\":S,\"nanos\":N},\"message\":M} with integers:"
    head -n 3 "$TMP/timings.jsonl" | sed 's/^/    /'
fi

# Numbers given to options are whole numbers: --ticks-per-snapshot 2.5 is a usage error
# naming the option (the message of every numeric option).
st=0
"$wasmdbg" run kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json \
    --ticks-per-snapshot 2.5 >"$TMP/tps.out" 2>"$TMP/tps.err" || st=$?
want="wasmdbg: --ticks-per-snapshot: expected a whole number of at least 2, got 2.5"
if [ $st = 2 ] && [ ! -s "$TMP/tps.out" ] && [ "$(head -n 1 "$TMP/tps.err")" = "$want" ]; then
    passed=$((passed + 1))
else
    failed=$((failed + 1))
    echo "--ticks-per-snapshot 2.5: exit $st, $(head -n 1 "$TMP/tps.err")"
fi

echo "golden: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
