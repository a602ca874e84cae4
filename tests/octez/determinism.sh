#!/usr/bin/env bash
# tests/octez/determinism.sh RELEASE_WASMDBG [SWITCH_WASMDBG]: the same ticks at every event
# whichever way the interpreter charges them (DESIGN.md, "The invariant"). Every kernel of
# the corpus (tests/octez/gen_corpus.py, written into build/octez-corpus/ when missing), of
# the shared kernels and kernels/counter runs under `run --json` and `profile` with block
# charging (the reference), with every instruction charged on its own (WD_ALWAYS_SLOW=1),
# on unfused code (--no-fuse), both, and on the switch-dispatch build when given: the run
# figures and the time-ordered folded stacks (each call's and return's tick) must be the
# same. tests/octez/determinism.py does the comparing; `N passed, N failed` at the end.
set -uo pipefail
if [ $# -lt 1 ]; then
    echo "usage: bash tests/octez/determinism.sh path/to/wasmdbg [path/to/switch/wasmdbg]" >&2
    exit 2
fi
cd "$(dirname "$0")/../.."
SHARED=${WD_SHARED_DIR:-../shared}
if ! command -v python3 >/dev/null 2>&1; then
    echo "skipped: python3 is not installed (apt-get install python3)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
out=build/octez-corpus
if [ ! -f "$out/corpus.json" ]; then
    python3 tests/octez/gen_corpus.py "$out" >/dev/null || {
        echo "FAIL harness: gen_corpus.py could not write the corpus"
        echo "0 passed, 1 failed"
        exit 1
    }
fi
variants=("fast=$1" "slow=WD_ALWAYS_SLOW=1 $1" "no-fuse=$1 --no-fuse"
    "slow-no-fuse=WD_ALWAYS_SLOW=1 $1 --no-fuse")
if [ $# -ge 2 ]; then
    variants+=("switch=$2" "switch-slow=WD_ALWAYS_SLOW=1 $2")
fi
python3 tests/octez/determinism.py "$out/corpus.json" "$SHARED" "${variants[@]}"
