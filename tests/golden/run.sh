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

# Limits (docs/limits.md) whose inputs or outputs are too large to keep as files:
# one_check NAME WANT COMMAND...: the last line of COMMAND's stdout and stderr must be WANT.
one_check() {
    local name=$1 want=$2 got
    shift 2
    got=$("$@" 2>&1 | tail -n 1)
    if [ "$got" = "$want" ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "$name: the last line is not the one expected:"
        echo "    want: $want"
        echo "    got:  $got"
    fi
}
# 1,000 reboots a level (vm/pvm.c MAX_REBOOTS): a kernel that always asks for one runs 1,001
# times (an output of 1,005 lines), the last one refused.
one_check "limit: reboots" "  run 1000: 1838 ticks (decode 177, link 2, init 832, kernel_run 819), reboot refused: the level had its 1000 reboots (/readonly/kernel/env/too_many_reboot)" \
    eval '"$wasmdbg" run tests/golden/data/limits/reboot-forever.wat \
        --inputs tests/golden/data/one-level.inputs.json --without-time | grep "run 1000:"'
# a br_table target whose edge costs more ticks than the 65,535 the translator keeps
# (decode/translate.c EDGE_MAX): a module of 64 KiB, made here
python3 tests/golden/data/limits/make.py --big "$TMP"
one_check "limit: br_table edge" "wasmdbg: $TMP/br-table-depth.wasm:0xaace: invalid: br_table target 21844 costs 65539 ticks to reach, more than this implementation's limit of 65535" \
    "$wasmdbg" invoke --tick-model pvm "$TMP/br-table-depth.wasm" f
# a REPL line of more than 1 MiB (cli/repl.c)
one_check "limit: REPL line" "Error: line too long (1048577 bytes)" \
    eval 'head -c 1048577 /dev/zero | tr "\\0" x | "$wasmdbg" debug kernels/counter/counter.wasm'

echo "golden: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
