#!/usr/bin/env bash
# tests/budget/run.sh WASMDBG [--update]: the tests of `wasmdbg budget` (tick budgets for CI).
#
#   1. Scripted checks: each tests/budget/NAME.cmd holds the arguments of one wasmdbg command
#      line ($SHARED: the shared folder, ../shared or $WD_SHARED_DIR; $TMP: a scratch
#      directory). Its stdout, stderr and exit status must equal NAME.out, NAME.err and
#      NAME.status exactly (nothing is masked: the output has no wall times). They cover a
#      budget that holds, bounds exceeded by a function, a phase and a level, tolerances at
#      the edge (ticks and percent) and one tick over, a stale tick model, a missing function,
#      unknown fields, a stuck kernel, the --json and --github formats, usage errors.
#      --update rewrites the expected files (review the diff).
#   2. JUnit XML (--junit FILE) against tests/budget/*.junit.xml.
#   3. `update`: a new budget (no file yet) and an update of an existing file (tolerances,
#      tracked functions and description kept) equal the expected files, and `check` then
#      passes; `update` on a stuck kernel exits 1 and leaves the file alone.
#   4. `wasmdbg diff` of two profiles of the example kernel (two inputs files): exact output,
#      text and JSON; exit 2 for different tick models, usage errors, a file that is not a
#      profile.
#   5. Determinism: the same check twice (text, JSON, GitHub annotations, JUnit) gives
#      byte-identical output.
# Ends with `budget: N passed, N failed`.
set -uo pipefail
cd "$(dirname "$0")/../.."
wasmdbg=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
update=${2:-}
SHARED=${WD_SHARED_DIR:-../shared}
TMP=$(mktemp -d)
export SHARED TMP
trap 'rm -rf "$TMP"' EXIT
. tests/cases.sh
passed=0
failed=0
dir=tests/budget
K=(kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json --no-kernel-debug)

ok() {
    passed=$((passed + 1))
}

fail() {
    echo "FAILED: $*"
    failed=$((failed + 1))
}

# same NAME EXPECTED ACTUAL: compares two files (or, with --update, rewrites EXPECTED).
same() {
    if [ "$update" = "--update" ]; then
        cp "$3" "$2"
        ok
    elif cmp -s "$2" "$3"; then
        ok
    else
        fail "$1: $3 differs from $2"
        diff "$2" "$3" | head -n 12 | sed 's/^/    /'
    fi
}

# status NAME EXPECTED ACTUAL
status() {
    if [ "$2" = "$3" ]; then ok; else fail "$1: exit status $3, expected $2"; fi
}

# ---- 1. scripted checks ---------------------------------------------------------------------

for cmd in "$dir"/*.cmd; do
    if run_case "${cmd%.cmd}" /dev/null cat; then ok; else fail "${cmd%.cmd}"; fi
done

# ---- 2. JUnit XML ---------------------------------------------------------------------------

st=0
"$wasmdbg" budget check "${K[@]}" --budget $dir/over-function.budget.json \
    --junit "$TMP/over.xml" >/dev/null 2>&1 || st=$?
status junit-over 1 $st
same junit-over $dir/over-function.junit.xml "$TMP/over.xml"
st=0
"$wasmdbg" budget check "$SHARED/kernels/stack_overflow.wasm" \
    --inputs kernels/counter/counter.inputs.json --budget $dir/stuck.budget.json \
    --junit "$TMP/stuck.xml" >/dev/null 2>&1 || st=$?
status junit-stuck 1 $st
same junit-stuck $dir/stuck.junit.xml "$TMP/stuck.xml"
if command -v python3 >/dev/null; then
    python3 -c 'import sys, xml.dom.minidom as m; [m.parse(f) for f in sys.argv[1:]]' \
        "$TMP/over.xml" "$TMP/stuck.xml" && ok || fail "junit: not well-formed XML"
fi

# ---- 3. update, then check ------------------------------------------------------------------

st=0
"$wasmdbg" budget update "${K[@]}" --budget "$TMP/new.json" >"$TMP/update.out" 2>&1 || st=$?
status update-new 0 $st
sed "s#$TMP#<tmp>#g" "$TMP/update.out" >"$TMP/update.masked"
same update-new-output $dir/update-new.out.expected "$TMP/update.masked"
same update-new $dir/update-new.expected.json "$TMP/new.json"
st=0
"$wasmdbg" budget check "${K[@]}" --budget "$TMP/new.json" >/dev/null 2>&1 || st=$?
status check-after-update-new 0 $st

# An existing file with headroom and tolerances, and one over budget: both updated to
# the measures, keeping tolerances, tracked functions and the description.
for b in holds over-function; do
    cp $dir/$b.budget.json "$TMP/$b.json"
    st=0
    "$wasmdbg" budget update "${K[@]}" --budget "$TMP/$b.json" >/dev/null 2>&1 || st=$?
    status update-$b 0 $st
    same update-$b $dir/update-$b.expected.json "$TMP/$b.json"
    st=0
    "$wasmdbg" budget check "${K[@]}" --budget "$TMP/$b.json" >/dev/null 2>&1 || st=$?
    status check-after-update-$b 0 $st
done

# A stuck kernel has no budget: exit 1, the file is left as it was.
cp $dir/stuck.budget.json "$TMP/stuck.json"
st=0
"$wasmdbg" budget update "$SHARED/kernels/stack_overflow.wasm" \
    --inputs kernels/counter/counter.inputs.json --budget "$TMP/stuck.json" >/dev/null 2>&1 ||
    st=$?
status update-stuck 1 $st
cmp -s $dir/stuck.budget.json "$TMP/stuck.json" && ok || fail "update-stuck: the file changed"

# ---- 4. wasmdbg diff -------------------------------------------------------------------------

for v in old:kernels/counter/counter.inputs.json new:$dir/counter-more.inputs.json; do
    "$wasmdbg" profile "${K[@]:0:1}" --inputs "${v#*:}" --no-kernel-debug --without-time \
        --json -o "$TMP/prof-${v%%:*}" >"$TMP/${v%%:*}.json" 2>/dev/null
done
"$wasmdbg" profile "${K[@]:0:1}" --inputs kernels/counter/counter.inputs.json \
    --tick-model flat-1 --no-kernel-debug --without-time --json -o "$TMP/prof-flat" \
    >"$TMP/flat.json" 2>/dev/null
(cd "$TMP" && "$wasmdbg" diff old.json new.json) >"$TMP/diff.out" 2>&1
status diff 0 $?
same diff $dir/diff-counter.out.expected "$TMP/diff.out"
(cd "$TMP" && "$wasmdbg" diff old.json new.json --json) >"$TMP/diff.json" 2>&1
status diff-json 0 $?
same diff-json $dir/diff-counter.json.expected "$TMP/diff.json"
"$wasmdbg" diff "$TMP/old.json" "$TMP/flat.json" >/dev/null 2>&1
status diff-tick-models 2 $?
"$wasmdbg" diff "$TMP/old.json" >/dev/null 2>&1
status diff-usage 2 $?
"$wasmdbg" diff "$TMP/old.json" README.md >/dev/null 2>&1
status diff-not-a-profile 2 $?

# ---- 5. determinism -------------------------------------------------------------------------

for fmt in text --json --github; do
    args=()
    [ $fmt != text ] && args=("$fmt")
    for i in 1 2; do
        "$wasmdbg" budget check "${K[@]}" --budget $dir/over-level.budget.json "${args[@]}" \
            --junit "$TMP/j$i.xml" >"$TMP/d$i.out" 2>&1
    done
    cmp -s "$TMP/d1.out" "$TMP/d2.out" && ok || fail "determinism ($fmt): outputs differ"
    cmp -s "$TMP/j1.xml" "$TMP/j2.xml" && ok || fail "determinism ($fmt): JUnit files differ"
done

echo "budget: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
