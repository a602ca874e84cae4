#!/usr/bin/env bash
# tests/fuzz/corpus.sh NAME DIR: fills DIR, the corpus of fuzz target NAME, with its seeds
# (files already there are kept: what earlier runs found stays):
#   - tests/fuzz/seeds/NAME/ (small hand-written ones) and tests/regress/NAME/ (inputs of
#     fixed bugs: a regression shows at once, when libFuzzer runs the corpus first);
#   - the repository's and the shared folder's examples of what the target reads:
#     pvm           kernels: the shared ones, counter, and the tests' .wat kernels (those
#                   importing smart_rollup_core, converted with wat2wasm into build/fuzz/wat)
#     decode, run   modules: the spec tests' (converted with wast2json into
#                   build/spec-json, as tests/spec/run.sh does, when not there yet), the
#                   shared kernels, kernels/, tests' and bench's .wasm files and tests'
#                   .wat files (wat2wasm, into build/fuzz/wat)
#     inputs        inputs files (shared kernels, kernels/counter, tests)
#     tickmodel     model files of tests/budget
#     budget        budget files of tests/budget
#     trace         traces recorded by `wasmdbg profile --record` (build/release/wasmdbg,
#                   made if missing) of the shared kernels and counter, in build/fuzz/traces
#     repl          the REPL tests' command scripts (tests/repl/*.in, *.x)
# The shared folder is ../shared or $WD_SHARED_DIR; what is missing is left out. Seeds are
# copied, never linked, and only at fuzz time: large ones are not committed.
set -uo pipefail
cd "$(dirname "$0")/../.."
[ $# -eq 2 ] || { echo "usage: $0 NAME DIR" >&2; exit 2; }
name=$1
dir=$2
shared=${WD_SHARED_DIR:-../shared}
mkdir -p "$dir"

# put PREFIX FILE...: copies each file as PREFIX-BASENAME, unless it is there.
put() {
    local prefix=$1 f
    shift
    for f in "$@"; do
        [ -f "$f" ] && [ ! -e "$dir/$prefix-$(basename "$f")" ] && cp "$f" "$dir/$prefix-$(basename "$f")"
    done
    return 0
}

# The spec tests' modules, converted once into build/spec-json/SCRIPT/.
spec_modules() {
    local w n json
    command -v wast2json >/dev/null 2>&1 || return 0
    for w in "${WD_SPEC_DIR:-$shared/spec}"/*.wast; do
        [ -f "$w" ] || continue
        n=$(basename "$w" .wast)
        json=build/spec-json/$n/$n.json
        if [ ! -f "$json" ]; then
            mkdir -p "build/spec-json/$n"
            wast2json "$w" -o "$json" >/dev/null 2>&1 || rm -f "$json"
        fi
        put spec build/spec-json/"$n"/*.wasm
    done
}

# The repository's text modules, converted once into build/fuzz/wat; with an argument, only
# those that contain it.
wat_modules() {
    local w out=build/fuzz/wat grep=${1:-}
    command -v wat2wasm >/dev/null 2>&1 || return 0
    mkdir -p "$out"
    for w in tests/octez/modules/*.wat tests/golden/data/*.wat tests/repl/*.wat \
        tests/budget/*.wat tests/profile/*.wat tests/unit/data/*.wat; do
        [ -f "$out/$(basename "$w" .wat).wasm" ] ||
            wat2wasm --debug-names "$w" -o "$out/$(basename "$w" .wat).wasm" >/dev/null 2>&1
    done
    for w in "$out"/*.wasm; do
        [ -z "$grep" ] || grep -q "$grep" "$w" && put wat "$w"
    done
}

# Traces of a few kernels, recorded once into build/fuzz/traces.
traces() {
    local t=build/fuzz/traces k=$shared/kernels w=build/release/wasmdbg
    if [ ! -d "$t" ]; then
        [ -x "$w" ] || make --no-print-directory BUILD=release "$w" >/dev/null 2>&1 || return 0
        mkdir -p "$t/out"
        record() { "$w" profile "$@" -o "$t/out" >/dev/null 2>&1; }
        record "$k/debug_kernel.wasm" --inputs "$k/empty-two-levels.inputs.json" --record "$t/debug.trace"
        record "$k/echo.wasm" --inputs "$k/echo.inputs.json" --record "$t/echo.trace"
        record "$k/unreachable_rust.wasm" --inputs "$k/empty-two-levels.inputs.json" \
            --record "$t/unreachable.trace"
        record kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json \
            --record "$t/counter.trace"
        record tests/golden/data/trap-dwarf.wasm --inputs "$k/empty-two-levels.inputs.json" \
            --mode cct --max-depth 3 --record "$t/trap-dwarf-cct.trace"
        record kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json \
            --max-ticks 150000018000 --record "$t/counter-stopped.trace"
        rm -rf "$t/out"
    fi
    put trace "$t"/*.trace
}

put seed tests/fuzz/seeds/"$name"/*
put regress tests/regress/"$name"/*
case $name in
decode | run)
    spec_modules
    wat_modules
    put shared "$shared"/kernels/*.wasm
    put repo kernels/*.wasm kernels/*/*.wasm tests/golden/data/*.wasm tests/unit/data/*.wasm \
        bench/workloads/*.wasm
    ;;
pvm)
    wat_modules smart_rollup_core
    put shared "$shared"/kernels/*.wasm
    put repo kernels/*/*.wasm tests/golden/data/*.wasm
    ;;
inputs)
    put shared "$shared"/kernels/*.inputs.json
    put repo kernels/*/*.inputs.json tests/budget/*.inputs.json tests/golden/data/*.json \
        tests/repl/*.installer.json
    ;;
tickmodel) put repo tests/budget/*.model.json ;;
budget) put repo tests/budget/*.budget.json tests/budget/update-*.expected.json ;;
trace) traces ;;
repl) put repo tests/repl/*.in tests/repl/*.x ;;
*)
    echo "corpus: unknown fuzz target $name" >&2
    exit 2
    ;;
esac
exit 0
