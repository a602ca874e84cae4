#!/usr/bin/env bash
# tests/octez/run.sh WASMDBG: the differential test of wasmdbg's ticks against the Octez
# tick model (../shared/reference/octez-ticks/model; $WD_SHARED_DIR overrides ../shared).
#
#   1. tests/octez/gen_corpus.py writes a corpus of small kernels (WAT, converted by
#      `wat2wasm --debug-names`, with their inputs files) into build/octez-corpus/.
#   2. Every corpus kernel, every .wasm of the shared kernels folder (with the inputs its
#      README gives it: echo*.wasm echo.inputs.json, tx-kernel*.wasm tx-kernel.inputs.json
#      and --rollup, the others empty-two-levels.inputs.json) and kernels/counter go
#      through the model (tests/octez/model.py: octez_ticks.py --json) and through
#      `WASMDBG run --json --no-kernel-debug`; tests/octez/compare.py compares them run by
#      run: effective ticks, profiler phases, outcome, reboot or yield, and the outboxes.
#
# One test per kernel: `ok NAME`, `FAIL NAME: ...` or `skip NAME: <the model's reason>`.
# Ends with `N passed, N failed[, N skipped]`; exit status 1 when something failed.
# OCTEZ_JOBS sets the parallel jobs (default: the CPU count); OCTEZ_ONLY=TEXT runs the
# kernels whose name contains TEXT.
set -uo pipefail
if [ $# -lt 1 ]; then
    echo "usage: bash tests/octez/run.sh path/to/wasmdbg" >&2
    exit 2
fi
wasmdbg=$1
if dir=$(cd "$(dirname "$1")" 2>/dev/null && pwd); then
    wasmdbg=$dir/$(basename "$1")
fi
cd "$(dirname "$0")/../.."
SHARED=${WD_SHARED_DIR:-../shared}
model_dir=$SHARED/reference/octez-ticks/model
kernels=$SHARED/kernels
out=build/octez-corpus
rollup=sr1D7tjtYDmnugNWh8sGW91WJ3TPpCpqX1Dg

# The kernels besides the corpus: NAME<TAB>WASM<TAB>INPUTS<TAB>ARGS.
extra_cases() {
    local k name inputs args
    for k in "$kernels"/*.wasm; do
        [ -e "$k" ] || continue
        name=$(basename "$k" .wasm)
        args=
        case $name in
        echo*) inputs=$kernels/echo.inputs.json ;;
        tx-kernel*) inputs=$kernels/tx-kernel.inputs.json args="--rollup $rollup" ;;
        *) inputs=$kernels/empty-two-levels.inputs.json ;;
        esac
        printf 'shared/%s\t%s\t%s\t%s\n' "$name" "$k" "$inputs" "$args"
    done
    printf 'counter\t%s\t%s\t\n' kernels/counter/counter.wasm kernels/counter/counter.inputs.json
}

if ! command -v python3 >/dev/null 2>&1; then
    n=0
    while IFS=$'\t' read -r name _; do
        echo "skip $name: python3 not found (the Octez tick model is a Python program)"
        n=$((n + 1))
    done < <(extra_cases)
    echo "skip corpus: python3 not found (the corpus generator and the model need it)"
    echo "0 passed, 0 failed, $((n + 1)) skipped"
    exit 0
fi

if [ ! -f "$model_dir/octez_ticks.py" ]; then
    echo "FAIL model: $model_dir/octez_ticks.py not found (set WD_SHARED_DIR)"
    echo "0 passed, 1 failed"
    exit 1
fi
if [ ! -x "$wasmdbg" ]; then
    echo "FAIL wasmdbg: $wasmdbg is not an executable"
    echo "0 passed, 1 failed"
    exit 1
fi

mkdir -p "$out"
corpus_failed=0
if ! gen_log=$(python3 tests/octez/gen_corpus.py "$out" 2>&1); then
    echo "FAIL corpus: gen_corpus.py failed: $(printf '%s\n' "$gen_log" | tail -n 1)"
    corpus_failed=1
else
    echo "== $gen_log"
fi
extra_cases >"$out/extra-cases.tsv"

# wasmdbg run's option for the ticks per snapshot, if it has one.
period_option=$("$wasmdbg" run --help 2>/dev/null |
    grep -oE -- '--(ticks-per-snapshot|ticks-per-period|period)\b' | head -n 1)
if [ -z "$period_option" ]; then
    echo "== wasmdbg run has no option for the ticks per snapshot: the tickcap-* kernels are skipped"
fi

corpus_args=()
if [ "$corpus_failed" -eq 0 ]; then
    corpus_args=(--corpus "$out/corpus.json")
fi
only_args=()
if [ -n "${OCTEZ_ONLY:-}" ]; then
    only_args=(--only "$OCTEZ_ONLY")
fi
result=$(mktemp)
trap 'rm -f "$result"' EXIT
python3 tests/octez/compare.py --model-dir "$model_dir" --wasmdbg "$wasmdbg" \
    --period-option="$period_option" --jobs "${OCTEZ_JOBS:-$(nproc 2>/dev/null || echo 2)}" \
    "${corpus_args[@]}" --cases "$out/extra-cases.tsv" "${only_args[@]}" |
    tee "$result" | grep --line-buffered -E '^(ok|FAIL|skip) '
status=${PIPESTATUS[0]}
passed=$(grep -c '^ok ' "$result")
failed=$(( $(grep -c '^FAIL ' "$result") + corpus_failed ))
skipped=$(grep -c '^skip ' "$result")
if [ "$status" -ne 0 ] && [ "$failed" -eq 0 ]; then
    echo "FAIL harness: compare.py exited with status $status"
    failed=1
fi
summary="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && summary="$summary, $skipped skipped"
echo "$summary"
[ "$failed" -eq 0 ]
