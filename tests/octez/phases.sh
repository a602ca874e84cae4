#!/usr/bin/env bash
# tests/octez/phases.sh [PVMSTEPS]: wasmdbg's decode and init step counts (vm/pvmticks.c,
# printed by the test-only tool tests/octez/pvmsteps.c) against the reference model's
# (shared/reference/octez-ticks/model, octez_static.decode_steps and init_steps) for every
# module the model parses: the shared kernels, the example kernel, the benchmark
# workloads and the modules of tests/octez/modules (built with wat2wasm).
# One line per module, then `N passed, N failed[, N skipped (why)]`; exit 1 on a failure.
set -uo pipefail

cd "$(dirname "$0")/../.."
tool=${1:-}
shared=${WD_SHARED_DIR:-../shared}
model=$shared/reference/octez-ticks/model
if [ -z "$tool" ]; then
    tool=build/release/pvmsteps
    make -s --no-print-directory "$tool" >/dev/null || {
        echo "cannot build $tool"
        echo "0 passed, 1 failed"
        exit 1
    }
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
modules=()
for f in "$shared"/kernels/*.wasm kernels/counter/counter.wasm bench/*.wasm \
    bench/workloads/*.wasm; do
    [ -f "$f" ] && modules+=("$f")
done
skipped=0
why=""
for w in tests/octez/modules/*.wat; do
    if ! command -v wat2wasm >/dev/null 2>&1; then
        skipped=$((skipped + 1))
        why="wat2wasm not found"
        continue
    fi
    out=$tmp/$(basename "${w%.wat}").wasm
    if wat2wasm --debug-names "$w" -o "$out" 2>"$tmp/wat2wasm.err"; then
        modules+=("$out")
    else
        echo "FAIL $w: wat2wasm: $(head -n 1 "$tmp/wat2wasm.err")"
        echo "0 passed, 1 failed"
        exit 1
    fi
done

if ! command -v python3 >/dev/null 2>&1 || [ ! -f "$model/octez_static.py" ]; then
    echo "0 passed, 0 failed, $((${#modules[@]} + skipped)) skipped (python3 or the model" \
        "at $model not found)"
    exit 0
fi

# The model's figures: `FILE D N`, N `-` when the model does not count init (a start
# function), or `FILE skip REASON` for a module it does not parse.
python3 - "$model" "${modules[@]}" >"$tmp/model.txt" <<'PY'
import sys
sys.path.insert(0, sys.argv[1])
from wasmparse import Unsupported, parse
from octez_static import decode_steps, init_steps
for path in sys.argv[2:]:
    try:
        m = parse(open(path, 'rb').read())
    except (Unsupported, IndexError, UnicodeDecodeError, ValueError) as e:
        print(path, 'skip', e)
        continue
    try:
        n = init_steps(m)
    except Unsupported:
        n = '-'
    print(path, decode_steps(m), n)
PY
"$tool" "${modules[@]}" >"$tmp/wasmdbg.txt"

passed=0
failed=0
while read -r path d n; do
    shown=$path
    case $path in # a module built here: named by its source
    "$tmp"/*) shown=tests/octez/modules/$(basename "${path%.wasm}").wat ;;
    esac
    if [ "$d" = skip ]; then
        echo "skip $shown: the model does not parse it ($n)"
        skipped=$((skipped + 1))
        why="the model does not parse every module"
        continue
    fi
    ours=$(awk -v p="$path" '$1 == p { $1 = ""; print substr($0, 2) }' "$tmp/wasmdbg.txt")
    read -r od on <<<"$ours"
    if [ "$od" = "$d" ] && { [ "$n" = - ] || [ "$on" = "$n" ]; }; then
        echo "ok   $shown: decode $od, init $on (model $d, $n)"
        passed=$((passed + 1))
    else
        echo "FAIL $shown: wasmdbg ${ours:-nothing}; model decode $d, init $n"
        failed=$((failed + 1))
    fi
done <"$tmp/model.txt"

line="$passed passed, $failed failed"
[ "$skipped" -gt 0 ] && line="$line, $skipped skipped ($why)"
echo "$line"
[ "$failed" -eq 0 ]
