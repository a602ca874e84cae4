#!/usr/bin/env bash
# tests/regress/run.sh BUILD_DIR [--update|--cases]: one test per fixed bug, of two kinds.
#   - tests/regress/NAME.cmd: a wasmdbg command line (tests/cases.sh), usually on the module
#     NAME.wat beside it (whose comment says what went wrong), with its exact stdout, stderr
#     and exit status in NAME.out, NAME.err and NAME.status, run with BUILD_DIR/wasmdbg. The
#     bugs the differential test found (tests/difftest) end up here. --update rewrites them.
#   - tests/regress/TARGET/FILE: an input that made a fuzz target fail, replayed once through
#     that target built with a plain main (BUILD_DIR/replay-TARGET: `make BUILD=... fuzz-replay`;
#     tests/fuzz/replay.c): the target's own checks, and the sanitizers of an asan build, must
#     pass. `make fuzz` also runs them first, as part of each target's corpus. --cases: the
#     command lines only (make test replays the inputs on the asan build).
# Ends with `regress: N passed, N failed[, N skipped]`.
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -ge 1 ] || { echo "usage: $0 BUILD_DIR [--update|--cases]" >&2; exit 2; }
bin=$1
wasmdbg=$bin/wasmdbg
update=${2:-}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
. tests/cases.sh
passed=0
failed=0
for cmd in tests/regress/*.cmd; do
    if run_case "${cmd%.cmd}" /dev/null cat; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
done
if [ "$update" != --cases ]; then
    for dir in tests/regress/*/; do
        target=$(basename "$dir")
        for f in "$dir"*; do
            [ -f "$f" ] || continue
            if [ ! -x "$bin/replay-$target" ]; then
                echo "FAILED: $f: no $bin/replay-$target (make fuzz-replay)"
                failed=$((failed + 1))
                continue
            fi
            if out=$(timeout 300 "$bin/replay-$target" "$f" 2>&1); then
                passed=$((passed + 1))
            else
                echo "FAILED: $f (replay-$target):"
                echo "$out" | grep -v '^ *#[0-9]' | head -n 12 | sed 's/^/   /'
                failed=$((failed + 1))
            fi
        done
    done
fi
echo "regress: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
