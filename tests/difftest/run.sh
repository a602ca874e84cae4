#!/usr/bin/env bash
# tests/difftest/run.sh WASMDBG [MODULES [KERNELS]]: the differential test (README.md here).
#   1. MODULES (200) random modules from binaryen's wasm-opt -ttf on wasmdbg, wabt's
#      wasm-interp and node, compared export by export (tests/difftest/modules.py);
#   2. KERNELS (MODULES / 4) random kernels through `wasmdbg run --json` and the Octez
#      tick model, compared run by run (tests/difftest/kernels.py).
# DIFF_SEED picks the random modules and kernels (default: a new seed, printed; the same
# seed gives the same ones), DIFF_JOBS the parallel jobs (the CPU count), DIFF_OUT where
# mismatches are kept (build/difftest: mismatch/NAME/ holds the module and what differed).
# A part whose tools are missing is skipped, saying which. Ends with the sum of both
# parts: `N passed, N failed, N skipped`; exit status 1 when something failed.
set -uo pipefail
if [ $# -lt 1 ]; then
    echo "usage: bash tests/difftest/run.sh path/to/wasmdbg [MODULES [KERNELS]]" >&2
    exit 2
fi
wasmdbg=$1
modules=${2:-200}
kernels=${3:-$((modules / 4))}
cd "$(dirname "$0")/../.."
seed=${DIFF_SEED:-$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')}
jobs=${DIFF_JOBS:-$(nproc 2>/dev/null || echo 2)}
out=${DIFF_OUT:-build/difftest}
passed=0
failed=0
skipped=0

part() {
    local log status=0 line
    log=$(mktemp)
    python3 "$@" --seed "$seed" --jobs "$jobs" --out "$out" | tee "$log" || status=$?
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    rm -f "$log"
    if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed,\ ([0-9]+)\ skipped ]]; then
        passed=$((passed + BASH_REMATCH[1]))
        failed=$((failed + BASH_REMATCH[2]))
        skipped=$((skipped + BASH_REMATCH[3]))
    fi
    if [ "$status" -ne 0 ] && [ "${BASH_REMATCH[2]:-0}" -eq 0 ]; then
        echo "FAIL harness: $1 exited with status $status"
        failed=$((failed + 1))
    fi
}

if ! command -v python3 >/dev/null 2>&1; then
    echo "skip modules: python3 not found"
    echo "skip kernels: python3 not found"
    echo "0 passed, 0 failed, 2 skipped"
    exit 0
fi
echo "== difftest: seed $seed (DIFF_SEED=$seed reruns these), $modules modules, $kernels kernels"
[ "$modules" -gt 0 ] && part tests/difftest/modules.py --wasmdbg "$wasmdbg" --count "$modules"
[ "$kernels" -gt 0 ] && part tests/difftest/kernels.py --wasmdbg "$wasmdbg" --count "$kernels"
[ "$failed" -gt 0 ] && echo "mismatches: $out/mismatch/ (tests/difftest/README.md)"
echo "difftest: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
