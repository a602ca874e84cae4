#!/usr/bin/env bash
# tests/regress/run.sh BUILD_DIR: the inputs of fixed bugs, tests/regress/TARGET/FILE, each
# replayed once through the fuzz target that found it, built with a plain main
# (BUILD_DIR/replay-TARGET: `make BUILD=... fuzz-replay`; tests/fuzz/replay.c): the target's
# own checks, and the sanitizers of an asan build, must pass. `make fuzz` also runs them
# first, as part of each target's corpus. One test per file; ends with
# `regress: N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
bin=$1
passed=0
failed=0
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
echo "regress: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
