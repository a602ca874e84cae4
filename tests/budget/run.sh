#!/usr/bin/env bash
# tests/budget/run.sh WASMDBG [--update]: the tests of `wasmdbg budget` (tick budgets for CI).
#
#   1. Scripted checks: each tests/budget/NAME.cmd holds the arguments of one wasmdbg command
#      line ($SHARED: the shared folder, ../shared or $WD_SHARED_DIR; $TMP: a scratch
#      directory). Its stdout, stderr and exit status must equal NAME.out, NAME.err and
#      NAME.status exactly (nothing is masked: the output has no wall times). They cover a
#      budget that holds, bounds exceeded by a function, a phase and a level, tolerances at
#      the edge (ticks and percent) and one tick over, a stale tick model, a missing function,
#      unknown fields, a stuck kernel, the --json and --github formats, usage errors; the
#      retired model pvm-2.0: a budget recorded under it, --tick-model pvm-2.0, a model file
#      based on it, a model file setting a structural cost, `diff` of a profile of it.
#      --update rewrites the expected files (review the diff).
#   2. JUnit XML (--junit FILE) against tests/budget/*.junit.xml.
#   3. `update`: a new budget (no file yet) and an update of an existing file (tolerances,
#      tracked functions and description kept) equal the expected files, and `check` then
#      passes; `update` over a budget of the retired model rewrites it under today's (and
#      says so), then `check` passes; `update` on a stuck kernel exits 1 and leaves the file
#      alone.
#   4. `wasmdbg diff` of two profiles of the example kernel (two inputs files): exact output,
#      text and JSON; exit 2 for different tick models, usage errors, a file that is not a
#      profile. The differential flamegraph (--svg): of the kernel's profiles given as their
#      -o directories, as JSON files beside their stacks and with --folded-old/--folded-new:
#      well-formed XML (xmllint, else python3, else a structural check), self-contained,
#      frames' tooltips agreeing with the table, byte-identical when run twice, and, when
#      chromium is installed, zoom and search in a headless browser; of small hand-made
#      profiles (tests/budget/diff-small-*): exact text output, the class, tooltip (before,
#      after, delta, percent) and colour of a grown, a shrunk, an unchanged and a new frame,
#      escaped names, a frame only the old profile has left out and counted, the stacks
#      carried in the JSON ("stacks"); exit 2 for stacks not found, malformed stacks, an
#      unwritable SVG, a directory without a profile, options without --svg.
#   5. Determinism: the same check twice (text, JSON, GitHub annotations, JUnit) gives
#      byte-identical output.
#   6. Stops: a kernel that loops forever (tests/budget/loop.wat) under a budget of a few
#      thousand ticks: `check` stops as soon as the total is certainly over its limit (under
#      `timeout 10`: the PVM would give it 50e12 ticks), exit 1, naming the bound, in text,
#      JSON, GitHub annotations and JUnit; a phase or a level over its limit stops it too;
#      --max-ticks stops `check` (exit 1) and `update` (exit 1, nothing written), and its
#      value is parsed strictly (exit 2 naming the option). Exact outputs in loop-*.expected
#      and the max-ticks*.cmd cases.
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
# A budget of the retired model is refused before anything runs: no JUnit file either.
[ ! -e "$TMP/retired.xml" ] && ok || fail "retired-model: a JUnit file was written"
# --help after check or update (wherever it stands): the help on stdout, exit 0, nothing run.
for args in "check --help" "update --help" "check ${K[*]} -h" "update ${K[*]} --help"; do
    st=0
    # shellcheck disable=SC2086 # the words of $args
    "$wasmdbg" budget $args >"$TMP/help.out" 2>"$TMP/help.err" || st=$?
    [ $st = 0 ] && [ ! -s "$TMP/help.err" ] &&
        [ "$(head -n 1 "$TMP/help.out")" = "usage: wasmdbg budget check KERNEL --inputs FILE --budget FILE [options]" ] &&
        ok || fail "budget $args: exit $st, $(head -n 1 "$TMP/help.err")"
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
# A value an option cannot hold is a usage error naming the option (exit 2, before anything
# runs or is written): `--tolerance 2.5` is neither ticks nor a percentage (it was once
# written as 2 ticks), a percentage has at most 3 decimals, --functions is a whole number.
while IFS='|' read -r opt val want; do
    st=0
    "$wasmdbg" budget update "${K[@]}" --budget "$TMP/opt.json" "$opt" "$val" >"$TMP/opt.out" \
        2>"$TMP/opt.err" || st=$?
    [ $st = 2 ] && [ ! -s "$TMP/opt.out" ] && [ ! -e "$TMP/opt.json" ] &&
        [ "$(head -n 1 "$TMP/opt.err")" = "wasmdbg: $opt: $want" ] && ok ||
        fail "$opt $val: exit $st, $(head -n 1 "$TMP/opt.err")"
    rm -f "$TMP/opt.json"
done <<'EOF'
--tolerance|2.5|2.5 is neither ticks (a whole number) nor a percentage: for 2.5 percent of each max, write 2.5%
--tolerance|0.125|0.125 is neither ticks (a whole number) nor a percentage: for 0.125 percent of each max, write 0.125%
--tolerance|1e3|expected ticks (a whole number) or a percentage like 2% or 0.5%, got 1e3
--tolerance|-1|expected ticks (a whole number) or a percentage like 2% or 0.5%, got -1
--tolerance|0.1234%|expected a percentage with at most 3 decimals like 2% or 0.5%, got 0.1234%
--tolerance|99999999999999999999|expected a whole number from 0 to 9223372036854775807, got 99999999999999999999
--functions|2.5|expected a whole number from 0 to 100000, got 2.5
--functions|100001|expected a whole number from 0 to 100000, got 100001
EOF
# --tolerance: a percentage keeps its decimals, ticks are written as an integer.
for t in 2.5%:'"2.5%"' 120:120; do
    rm -f "$TMP/tol.json"
    "$wasmdbg" budget update "${K[@]}" --budget "$TMP/tol.json" --tolerance "${t%%:*}" \
        >/dev/null 2>&1
    [ "$(grep -c "\"tolerance\": ${t#*:}}" "$TMP/tol.json" 2>/dev/null)" -gt 10 ] && ok ||
        fail "update --tolerance ${t%%:*}: not written as ${t#*:}"
done

# A function whose name holds a `;` (tests/profile/semicolon.wat, its name section patched
# to call $work "wo;k"): `update` writes the name as the profile shows it, `check` finds it.
if wat2wasm --debug-names tests/profile/semicolon.wat -o "$TMP/semi.wasm" 2>/dev/null &&
    perl -0777 -pi -e 's/\x04work/\x04wo;k/' "$TMP/semi.wasm"; then
    S=("$TMP/semi.wasm" --inputs tests/golden/data/one-level.inputs.json --no-kernel-debug)
    "$wasmdbg" budget update "${S[@]}" --budget "$TMP/semi.json" >/dev/null 2>&1
    grep -q '^    "wo;k": {"max": [0-9]*}$' "$TMP/semi.json" && ok ||
        fail "update-semicolon: \"wo;k\" not written as it is"
    st=0
    "$wasmdbg" budget check "${S[@]}" --budget "$TMP/semi.json" >"$TMP/semi.out" 2>&1 || st=$?
    status check-semicolon 0 $st
    grep -q '^function wo;k ' "$TMP/semi.out" && ok || fail "check-semicolon: no row wo;k"
else
    fail "update-semicolon: wat2wasm (tests/deps.sh) could not build the kernel"
fi

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

# A budget recorded under the retired model (pvm-2.0): `update` is the fix. It rewrites the
# file under today's model, says it replaced the old model's figures, keeps the description,
# tolerances and tracked functions; `check` then passes. (Figures are not compared here:
# they are the model's.)
cp $dir/retired-model.budget.json "$TMP/retired.json"
st=0
"$wasmdbg" budget update "${K[@]}" --budget "$TMP/retired.json" >"$TMP/retired.out" \
    2>"$TMP/retired.err" || st=$?
status update-retired 0 $st
sed -n 2p "$TMP/retired.out" >"$TMP/retired.line"
echo "budget $TMP/retired.json: replaced figures recorded under the retired tick model pvm-2.0" \
    "(tolerances and tracked functions kept)" >"$TMP/retired.want"
[ "$(wc -l <"$TMP/retired.out")" = 2 ] && cmp -s "$TMP/retired.want" "$TMP/retired.line" &&
    [ ! -s "$TMP/retired.err" ] && ok || fail "update-retired: output"
if command -v python3 >/dev/null; then
    python3 - "$TMP/retired.json" <<'PY' && ok || fail "update-retired: the file"
import json, sys
b = json.load(open(sys.argv[1]))
assert b["tick_model"] == "pvm", b["tick_model"]
assert b["description"].startswith("figures of the approximate model")
assert b["total"]["tolerance"] == "1%" and b["phases"]["kernel_run"]["tolerance"] == 1000
assert list(b["functions"]) == ["do_hash", "do_mint"]
assert b["functions"]["do_hash"]["tolerance"] == "2%"
assert b["total"]["max"] > 0 and len(b["levels"]) == 3
PY
else
    grep -q '"tick_model": "pvm",' "$TMP/retired.json" && ok || fail "update-retired: the file"
fi
st=0
"$wasmdbg" budget check "${K[@]}" --budget "$TMP/retired.json" >/dev/null 2>&1 || st=$?
status check-after-update-retired 0 $st
st=0
"$wasmdbg" budget update "${K[@]}" --budget "$TMP/retired.json" >"$TMP/renewed.out" 2>&1 || st=$?
status update-renewed 0 $st
[ "$(wc -l <"$TMP/renewed.out")" = 1 ] && ok || fail "update-renewed: the note again"

# A stuck kernel has no budget: exit 1, the file is left as it was.
cp $dir/stuck.budget.json "$TMP/stuck.json"
st=0
"$wasmdbg" budget update "$SHARED/kernels/stack_overflow.wasm" \
    --inputs kernels/counter/counter.inputs.json --budget "$TMP/stuck.json" >/dev/null 2>&1 ||
    st=$?
status update-stuck 1 $st
cmp -s $dir/stuck.budget.json "$TMP/stuck.json" && ok || fail "update-stuck: the file changed"

# A kernel that traps fails `check` (exit 1) even within its budget, naming the run.
cat >"$TMP/trap.json" <<'JSON'
{"tick_model": "pvm", "total": {"max": 1000000}}
JSON
st=0
"$wasmdbg" budget check tests/golden/data/trap-dwarf.wasm \
    --inputs tests/golden/data/one-level.inputs.json --no-kernel-debug --budget "$TMP/trap.json" \
    >"$TMP/trap.out" 2>&1 || st=$?
status check-trap 1 $st
grep -q 'level 0 run 0 trapped: unreachable in check at 0xb9' "$TMP/trap.out" && ok ||
    fail "check-trap: the trapped run is not named"

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

# The differential flamegraph (--svg).

# well_formed SVG: XML well-formedness by xmllint, else python3, else the structure.
well_formed() {
    if command -v xmllint >/dev/null; then
        xmllint --noout "$1"
    elif command -v python3 >/dev/null; then
        python3 -c 'import sys, xml.dom.minidom as m; m.parse(sys.argv[1])' "$1"
    else
        [ "$(head -c 5 "$1")" = "<?xml" ] && [ "$(tail -n 1 "$1")" = "</svg>" ] &&
            [ "$(grep -o '<g[ >]' "$1" | wc -l)" = "$(grep -o '</g>' "$1" | wc -l)" ] &&
            [ "$(grep -o '<title>' "$1" | wc -l)" = "$(grep -o '</title>' "$1" | wc -l)" ]
    fi
}

# svg_ok NAME SVG: well-formed and self-contained (no reference but the SVG namespace).
svg_ok() {
    if [ ! -s "$2" ]; then
        fail "$1: no SVG written"
    elif ! well_formed "$2" >"$TMP/xml.err" 2>&1; then
        fail "$1: not well-formed XML"
        head -n 5 "$TMP/xml.err" | sed 's/^/    /'
    elif [ "$(grep -o 'http' "$2" | wc -l)" != 1 ] || grep -q 'href' "$2"; then
        fail "$1: not self-contained"
    else
        ok
    fi
}

# frame NAME SVG FRAME CLASS TOOLTIP: FRAME is drawn, of CLASS, with TOOLTIP as its details
# line and <title> (XML-escaped as given).
frame() {
    if grep -F "<g data-name=\"$3\" class=\"$4\" " "$2" |
        grep -qF "data-info=\"$5\"><title>$5</title>"; then
        ok
    else
        fail "$1: no frame $3 of class $4 with tooltip: $5"
        grep -F "<g data-name=\"$3\" " "$2" | head -n 3 | cut -c 1-300 | sed 's/^/    got: /'
    fi
}

# fill SVG FRAME: the first FRAME's fill as "R G B".
fill() {
    grep -F "<g data-name=\"$2\" " "$1" | head -n 1 |
        sed -n 's/.* fill="rgb(\([0-9]*\),\([0-9]*\),\([0-9]*\))".*/\1 \2 \3/p'
}

# The kernel's two profiles, given as the -o directories `profile` wrote them into.
st=0
"$wasmdbg" diff "$TMP/prof-old" "$TMP/prof-new" --svg "$TMP/diff.svg" >"$TMP/dsvg.out" \
    2>"$TMP/dsvg.err" || st=$?
status diff-svg 0 $st
svg_ok diff-svg "$TMP/diff.svg"
# The same table as from the JSON files (its first line names the files found) and then
# where the SVG went.
sed '1d;$d' "$TMP/dsvg.out" >"$TMP/dsvg.table"
tail -n +2 $dir/diff-counter.out.expected >"$TMP/expected.table"
cmp -s "$TMP/expected.table" "$TMP/dsvg.table" &&
    [ "$(tail -n 1 "$TMP/dsvg.out")" = "differential flamegraph: $TMP/diff.svg" ] &&
    [ ! -s "$TMP/dsvg.err" ] && ok || fail "diff-svg: unexpected output"
# Each function called from one call path: its frame's figures are the table's.
for fn in do_mint parse; do
    read -r before after < <(awk -v f="$fn" '$1 == "function" && $2 == f { print $3, $4 }' \
        "$TMP/dsvg.out")
    if [ -z "$before" ]; then
        fail "diff-svg: $fn is not in the table"
    elif grep -qF "data-info=\"$fn: $before -> $after ticks (+" "$TMP/diff.svg"; then
        ok
    else
        fail "diff-svg: $fn's frame does not say $before -> $after ticks"
    fi
done
grep -q '<g data-name="kernel_run" class="[a-z]*" data-depth="1"' "$TMP/diff.svg" &&
    grep -q '<g data-name="do_mint" class="grow" data-depth="2"' "$TMP/diff.svg" &&
    ok || fail "diff-svg: kernel_run and do_mint (grown) frames missing"
# Run twice: the same bytes.
"$wasmdbg" diff "$TMP/prof-old" "$TMP/prof-new" --svg "$TMP/diff2.svg" >/dev/null 2>&1
cmp -s "$TMP/diff.svg" "$TMP/diff2.svg" && ok || fail "diff-svg: two runs differ"

# The JSON files printed on stdout are not beside their stacks: exit 2, naming the option;
# with the option, the same frames.
st=0
"$wasmdbg" diff "$TMP/old.json" "$TMP/new.json" --svg "$TMP/nostacks.svg" >"$TMP/ns.out" \
    2>"$TMP/ns.err" || st=$?
status diff-svg-no-stacks 2 $st
grep -q -- '--folded-new FILE' "$TMP/ns.err" && [ ! -s "$TMP/ns.out" ] &&
    [ ! -e "$TMP/nostacks.svg" ] && ok || fail "diff-svg-no-stacks: unexpected output"
st=0
"$wasmdbg" diff "$TMP/old.json" "$TMP/new.json" --svg "$TMP/folded.svg" \
    --folded-old "$TMP"/prof-old/*.out --folded-new "$TMP"/prof-new/*.out >/dev/null \
    2>"$TMP/fo.err" || st=$?
status diff-svg-folded 0 $st
svg_ok diff-svg-folded "$TMP/folded.svg"
grep '^<g data-name' "$TMP/diff.svg" >"$TMP/frames1"
grep '^<g data-name' "$TMP/folded.svg" >"$TMP/frames2"
[ -s "$TMP/frames1" ] && cmp -s "$TMP/frames1" "$TMP/frames2" && [ ! -s "$TMP/fo.err" ] &&
    ok || fail "diff-svg-folded: other frames than from the directories"
# Stacks of another profile: a warning, not an error.
st=0
"$wasmdbg" diff "$TMP/old.json" "$TMP/new.json" --svg "$TMP/mixed.svg" \
    --folded-old "$TMP"/prof-new/*.out --folded-new "$TMP"/prof-new/*.out >/dev/null \
    2>"$TMP/mixed.err" || st=$?
status diff-svg-other-stacks 0 $st
grep -Eq 'warning: .*add up to [0-9]+ ticks, .*old.json has [0-9]+: not the same profile' \
    "$TMP/mixed.err" && ok || fail "diff-svg-other-stacks: no warning"

# In a browser: the script zooms and searches as in the profile's flamegraph.
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --dump-dom "file://$TMP/diff.svg#selftest" >"$TMP/dom.txt" 2>/dev/null
    grep -q 'data-ready="1"' "$TMP/dom.txt" &&
        grep -Eq 'data-selftest="zoom:ok unzoom:ok search:[1-9][0-9.]* frames:[0-9]+"' \
            "$TMP/dom.txt" && ok || fail "diff-svg: zoom and search in headless chromium"
else
    echo "skipped: chromium is not installed (apt-get install chromium) for the diff SVG check"
fi

# Small hand-made profiles: beside their stacks (files.folded), one with \r\n and a blank
# line. kernel_run's self is unchanged, grow +50%, grow_a +10%, shrink -50%, same and
# same;leaf unchanged, fresh and fresh;<&"'> new, gone only in the old profile.
st=0
"$wasmdbg" diff $dir/diff-small-old.json $dir/diff-small-new.json --svg "$TMP/small.svg" \
    >"$TMP/small.raw" 2>&1 || st=$?
status diff-svg-small 0 $st
sed "s#$TMP#<tmp>#g" "$TMP/small.raw" >"$TMP/small.out"
same diff-svg-small $dir/diff-small.out.expected "$TMP/small.out"
svg_ok diff-svg-small "$TMP/small.svg"
S=$TMP/small.svg
frame small-unchanged "$S" kernel_run same \
    'kernel_run: 590 -> 567 ticks (-23, -3.89%); self 100 -> 100 (+0, +0.00%)'
frame small-grown "$S" grow grow \
    'grow: 100 -> 150 ticks (+50, +50.00%); self 100 -> 150 (+50, +50.00%)'
frame small-grown-less "$S" grow_a grow \
    'grow_a: 100 -> 110 ticks (+10, +10.00%); self 100 -> 110 (+10, +10.00%)'
frame small-shrunk "$S" shrink shrink \
    'shrink: 200 -> 100 ticks (-100, -50.00%); self 200 -> 100 (-100, -50.00%)'
frame small-unchanged-leaf "$S" leaf same \
    'leaf: 10 -> 10 ticks (+0, +0.00%); self 10 -> 10 (+0, +0.00%)'
frame small-new "$S" fresh new 'fresh: new, 47 ticks; self 40'
frame small-escaped "$S" '&lt;&amp;&quot;&apos;&gt;' new \
    '&lt;&amp;&quot;&apos;&gt;: new, 7 ticks; self 7'
grep -q 'data-name="gone"' "$S" && fail "small: a frame only in the old profile is drawn" || ok
grep -q 'not drawn: 1 call path only in the old one, 30 ticks' "$S" &&
    grep -q '>Differential flame graph: 590 -> 567 ticks (-23, -3.89%), pvm<' "$S" &&
    ok || fail "small: title or legend"
# Colours: red for growth, deeper for more; blue for shrinkage; grey; orange for new.
read -r gr gg gb < <(fill "$S" grow)
read -r ar ag ab < <(fill "$S" grow_a)
read -r sr sg sb < <(fill "$S" shrink)
[ "${gr:-0}" -gt "$gg" ] && [ "$gg" = "$gb" ] && [ "${ar:-0}" -gt "$ag" ] &&
    [ "$gg" -lt "$ag" ] && [ "${sb:-0}" -gt "$sr" ] && [ "$sb" -gt "$sg" ] &&
    [ "$(fill "$S" same)" = "222 222 218" ] && [ "$(fill "$S" fresh)" = "255 165 40" ] &&
    ok || fail "small: colours (grow $gr,$gg,$gb grow_a $ar,$ag,$ab shrink $sr,$sg,$sb)"
# The stacks carried by the profile itself ("stacks"): the same frames.
st=0
"$wasmdbg" diff $dir/diff-small-old.json $dir/diff-small-new-stacks.json \
    --svg "$TMP/small2.svg" >/dev/null 2>&1 || st=$?
status diff-svg-stacks 0 $st
grep '^<g data-name' "$TMP/small.svg" >"$TMP/frames1"
grep '^<g data-name' "$TMP/small2.svg" >"$TMP/frames2"
[ -s "$TMP/frames1" ] && cmp -s "$TMP/frames1" "$TMP/frames2" && ok ||
    fail "diff-svg-stacks: other frames than from the folded file"

# Errors: exit 2 with the file and line, nothing written.
printf 'kernel_run 5\nkernel_run;;x 3\n' >"$TMP/bad.folded"
st=0
"$wasmdbg" diff $dir/diff-small-old.json $dir/diff-small-new.json --svg "$TMP/bad.svg" \
    --folded-old "$TMP/bad.folded" >/dev/null 2>"$TMP/bad.err" || st=$?
status diff-svg-malformed 2 $st
grep -qF "$TMP/bad.folded: line 2: empty frame name" "$TMP/bad.err" && [ ! -e "$TMP/bad.svg" ] &&
    ok || fail "diff-svg-malformed: message or file"
printf 'kernel_run;x many\n' >"$TMP/bad.folded"
"$wasmdbg" diff $dir/diff-small-old.json $dir/diff-small-new.json --svg "$TMP/bad.svg" \
    --folded-new "$TMP/bad.folded" >/dev/null 2>&1
status diff-svg-bad-count 2 $?
"$wasmdbg" diff $dir/diff-small-old.json $dir/diff-small-new.json \
    --svg "$TMP/no/such/dir/x.svg" >/dev/null 2>&1
status diff-svg-unwritable 2 $?
mkdir -p "$TMP/empty"
"$wasmdbg" diff "$TMP/empty" "$TMP/prof-new" >/dev/null 2>&1
status diff-empty-directory 2 $?
"$wasmdbg" diff $dir/diff-small-old.json $dir/diff-small-new.json --svg >/dev/null 2>&1
status diff-svg-no-file 2 $?
"$wasmdbg" diff $dir/diff-small-old.json $dir/diff-small-new.json \
    --folded-old $dir/diff-small-old.folded >/dev/null 2>&1
status diff-folded-without-svg 2 $?

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

# ---- 6. stops: a bound certainly exceeded, --max-ticks -------------------------------------

L=(tests/budget/loop.wat --inputs tests/golden/data/one-level.inputs.json)
# loop_check NAME EXIT ARGS...: `budget check` of the looping kernel with ARGS, under
# `timeout 10` (exit 124 when it did not stop); stdout, stderr and the exit status.
loop_check() {
    local name=$1 want=$2 st=0
    shift 2
    timeout 10 "$wasmdbg" budget check "${L[@]}" "$@" >"$TMP/$name.out" 2>"$TMP/$name.err" ||
        st=$?
    status "$name" "$want" $st
}
# The total (5000) is the first bound over: the check stops there, its line EXCEEDED with the
# ticks at the stop, the bounds whose measure could still grow `not checked`.
loop_check loop-total 1 --budget $dir/loop.budget.json --junit "$TMP/loop.xml"
same loop-total $dir/loop-total.out.expected "$TMP/loop-total.out"
same loop-total-stderr $dir/loop-total.err.expected "$TMP/loop-total.err"
same loop-total-junit $dir/loop-total.junit.xml "$TMP/loop.xml"
grep -Eq '^total +[0-9]+ +5000 .* EXCEEDED$' "$TMP/loop-total.out" &&
    grep -q '^STOPPED: level 0 run 0 stopped at tick [0-9]*: total exceeded its limit (5000)$' \
        "$TMP/loop-total.out" && ok || fail "loop-total: no EXCEEDED total, or no STOPPED line"
loop_check loop-total-json 1 --budget $dir/loop.budget.json --json --github
same loop-total-json $dir/loop-total-json.out.expected "$TMP/loop-total-json.out"
# Each bound that grows with kernel_run's ticks stops it alone: the kernel_run phase, the
# level's ticks; a bound of a measure that does not grow with them (decode) never does.
printf '{"tick_model": "pvm", "phases": {"decode": {"max": 100000}, "kernel_run": {"max": 3000}}}\n' \
    >"$TMP/loop-phase.json"
loop_check loop-phase 1 --budget "$TMP/loop-phase.json"
grep -Eq '^phase kernel_run +[0-9]+ +3000 .* EXCEEDED$' "$TMP/loop-phase.out" &&
    grep -Eq '^phase decode +- +100000 .* not checked$' "$TMP/loop-phase.out" &&
    grep -q 'phase kernel_run exceeded its limit (3000)$' "$TMP/loop-phase.out" && ok ||
    fail "loop-phase: not stopped by the kernel_run phase"
printf '{"tick_model": "pvm", "levels": [{"level": 0, "ticks": {"max": 4000, "tolerance": "10%%"}}]}\n' \
    >"$TMP/loop-level.json"
loop_check loop-level 1 --budget "$TMP/loop-level.json"
grep -Eq '^level 0 ticks +[0-9]+ +4000 +10% +4400 .* EXCEEDED$' "$TMP/loop-level.out" &&
    grep -q 'level 0 ticks exceeded its limit (4400)$' "$TMP/loop-level.out" && ok ||
    fail "loop-level: not stopped by the level's ticks"
# No bound that grows with the ticks: --max-ticks is what stops it (exit 1, never a pass).
printf '{"tick_model": "pvm", "phases": {"decode": {"max": 100000}}}\n' >"$TMP/loop-none.json"
loop_check loop-max-ticks 1 --budget "$TMP/loop-none.json" --max-ticks 20000
grep -q '^STOPPED: level 0 run 0 stopped at tick [0-9]*: --max-ticks 20000 reached$' \
    "$TMP/loop-max-ticks.out" && grep -q ': FAIL$' "$TMP/loop-max-ticks.out" && ok ||
    fail "loop-max-ticks: not stopped by --max-ticks"
# `update` stopped by --max-ticks writes nothing: exit 1.
st=0
timeout 10 "$wasmdbg" budget update "${L[@]}" --budget "$TMP/loop-new.json" --max-ticks 20000 \
    >/dev/null 2>"$TMP/loop-update.err" || st=$?
status loop-update 1 $st
[ ! -e "$TMP/loop-new.json" ] && grep -q 'not written: the kernel runs were stopped' \
    "$TMP/loop-update.err" && ok || fail "loop-update: a budget was written"
# A budget that holds is not stopped (the same figures as without the watch: section 1).
st=0
"$wasmdbg" budget check "${K[@]}" --budget $dir/holds.budget.json --max-ticks 1249696 \
    >"$TMP/holds-max.out" 2>&1 || st=$?
status holds-max-ticks 0 $st
cmp -s $dir/holds.out "$TMP/holds-max.out" && ok || fail "holds-max-ticks: other output"
# --max-ticks takes a whole number: anything else is a usage error naming the option.
for v in 12k -1 1e6 2.5 ''; do
    st=0
    "$wasmdbg" budget check "${K[@]}" --budget $dir/holds.budget.json --max-ticks "$v" \
        >"$TMP/mt.out" 2>"$TMP/mt.err" || st=$?
    [ $st = 2 ] && [ ! -s "$TMP/mt.out" ] && head -n 1 "$TMP/mt.err" | grep -q -- '--max-ticks' &&
        ok || fail "--max-ticks '$v': exit $st, $(head -n 1 "$TMP/mt.err")"
done

echo "budget: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
