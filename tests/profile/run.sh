#!/usr/bin/env bash
# tests/profile/run.sh WASMDBG: `wasmdbg profile` and `wasmdbg report` on real kernels.
# For each kernel (tests/profile/check.c reads the outputs back with jansson):
#   - per level and kernel run, the profile's phases equal `wasmdbg run --json`'s;
#   - the files agree: folded stacks, Chrome trace, speedscope and JSON totals; the SVG is
#     self-contained;
#   - `wasmdbg report` of the run's --record trace writes the same files and summary;
#   - the full call tree and the calling-context tree give the same figures per function;
# then options and errors (a trace of the retired tick model pvm-2.0 among them), Ctrl-C and
# --max-ticks on a kernel that loops, -o's destination (made with its parents, refused before
# the run when it cannot be), 16 profiles started at once into one directory (no name
# collides), --name, which profile `diff DIR` picks, and, when chromium is installed, the
# SVG's script in a headless browser (zoom, search): skipped otherwise. Ends with
# `profile: N passed, N failed, N skipped`.
set -uo pipefail
cd "$(dirname "$0")/../.."
wasmdbg=$1
shared=${WD_SHARED_DIR:-../shared}
k=$shared/kernels
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
skipped=0

result() { # result OK WHAT [DETAILS-FILE]
    if [ "$1" = yes ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAILED: $2"
        [ -n "${3:-}" ] && [ -s "$3" ] && head -n 20 "$3" | sed 's/^/    /'
    fi
}

check=$tmp/check
if ! ${CC:-cc} -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -O1 \
    tests/profile/check.c -o "$check" -ljansson 2>"$tmp/cc.log"; then
    cat "$tmp/cc.log"
    echo "profile: 0 passed, 1 failed, 0 skipped"
    exit 1
fi

# kernel NAME KERNEL INPUTS [RUN OPTIONS...]
kernel() {
    local name=$1 kern=$2 inputs=$3 d=$tmp/$1
    shift 3
    mkdir -p "$d"
    local opts=(--inputs "$inputs" --no-kernel-debug "$@")
    "$wasmdbg" run "$kern" "${opts[@]}" --json --without-time >"$d/run.json" 2>"$d/run.err"
    local st=$?
    [ $st -le 1 ] && ok=yes || ok=no
    result $ok "$name: wasmdbg run (exit $st)" "$d/run.err"

    # live profile, with its trace
    "$wasmdbg" profile "$kern" "${opts[@]}" -o "$d/live" --record "$d/trace" >"$d/live.txt" \
        2>"$d/live.err"
    st=$?
    [ $st -eq 0 ] && ok=yes || ok=no
    result $ok "$name: wasmdbg profile (exit $st)" "$d/live.err"
    "$check" phases "$d/run.json" "$d/live/"*[0-9].json >"$d/phases.log" 2>&1 && ok=yes || ok=no
    result $ok "$name: the profile's phases are wasmdbg run's" "$d/phases.log"
    "$check" files "$d/live" >"$d/files.log" 2>&1 && ok=yes || ok=no
    result $ok "$name: the files agree" "$d/files.log"

    # report: the same files, the same summary (but for the directory)
    "$wasmdbg" report "$d/trace" -o "$d/again" >"$d/again.txt" 2>"$d/again.err"
    st=$?
    ok=yes
    [ $st -eq 0 ] || ok=no
    for f in "$d/live/"*; do
        cmp -s "$f" "$d/again/$(basename "$f")" || { ok=no; echo "differs: $(basename "$f")"; }
    done >"$d/report.log"
    sed "s|$d/live|DIR|g" "$d/live.txt" >"$d/live.sum"
    sed "s|$d/again|DIR|g" "$d/again.txt" >"$d/again.sum"
    diff "$d/live.sum" "$d/again.sum" >>"$d/report.log" || ok=no
    result $ok "$name: wasmdbg report rebuilds the same outputs" "$d/report.log"

    # full and calling-context trees
    "$wasmdbg" profile "$kern" "${opts[@]}" --without-time --mode full --json -o "$d/full" \
        >"$d/full.json" 2>/dev/null
    "$wasmdbg" profile "$kern" "${opts[@]}" --without-time --mode cct --json -o "$d/cct" \
        >"$d/cct.json" 2>/dev/null
    "$wasmdbg" profile "$kern" "${opts[@]}" --without-time --full-limit 50 --json \
        -o "$d/auto" >"$d/auto.json" 2>/dev/null
    { "$check" same "$d/full.json" "$d/cct.json" && "$check" same "$d/full.json" "$d/auto.json" &&
        "$check" files "$d/cct" && "$check" files "$d/auto"; } >"$d/modes.log" 2>&1 &&
        ok=yes || ok=no
    result $ok "$name: full, cct and auto trees agree" "$d/modes.log"
}

echo '[[]]' >"$tmp/one-empty.json"
kernel counter kernels/counter/counter.wasm kernels/counter/counter.inputs.json
kernel tx "$k/tx-kernel-no-verif.wasm" "$k/tx-kernel.inputs.json" \
    --rollup sr1D7tjtYDmnugNWh8sGW91WJ3TPpCpqX1Dg
kernel echo "$k/echo.names.wasm" "$k/echo.inputs.json"
kernel unreachable "$k/unreachable_rust.wasm" "$k/empty-two-levels.inputs.json"
kernel stack-overflow "$k/stack_overflow.wasm" "$tmp/one-empty.json"
kernel computation "$k/computation.wasm" "$k/empty-two-levels.inputs.json"
kernel calls-flat1 tests/profile/calls-small.wat "$tmp/one-empty.json" --tick-model flat-1

# The time-ordered files are written run by run as the kernel runs (tx-kernel's runs: a
# consumer thread applies its events): when auto mode turns the tree into a calling-context
# tree after some runs were written, they are written whole at the end, as report writes them.
tx_opts=(--inputs "$k/tx-kernel.inputs.json" --rollup sr1D7tjtYDmnugNWh8sGW91WJ3TPpCpqX1Dg
    --no-kernel-debug)
for lim in 3000 6000; do
    d=$tmp/late-cct-$lim
    mkdir -p "$d"
    "$wasmdbg" profile "$k/tx-kernel-no-verif.wasm" "${tx_opts[@]}" --full-limit $lim \
        -o "$d/live" --record "$d/trace" >"$d/live.txt" 2>&1 &&
        "$wasmdbg" report "$d/trace" -o "$d/again" >/dev/null 2>&1 &&
        grep -q "full tree reached its node limit" "$d/live.txt" && ok=yes || ok=no
    for f in "$d/live/"*; do
        cmp -s "$f" "$d/again/$(basename "$f")" || { ok=no; echo "differs: $f"; }
    done >"$d.log"
    result $ok "tx, auto mode turning to cct at $lim nodes: report writes the same files" "$d.log"
done
# The consumer writes between chunks and the producer publishes beside it: a chunk published
# while it wrote was once signalled to no one, and the end waited forever (2 profiles in 120
# here). 40 more profiles, each bounded: a hang fails instead of stopping the tests.
hung=0
for i in $(seq 40); do
    rm -rf "$tmp/race"
    timeout 60 "$wasmdbg" profile "$k/tx-kernel-no-verif.wasm" "${tx_opts[@]}" \
        --full-limit $((i % 2 ? 6000 : 262144)) -o "$tmp/race" >/dev/null 2>&1
    [ $? -eq 124 ] && hung=$((hung + 1))
done
[ $hung -eq 0 ] && ok=yes || ok=no
result $ok "tx: 40 profiles end (hung: $hung)"
# Times by the fast clock, converted as each run is written: each run's agrees with the PVM's.
"$wasmdbg" profile "$k/tx-kernel-no-verif.wasm" "${tx_opts[@]}" -o "$tmp/tx-clock" \
    >"$tmp/tx-clock.txt" 2>&1 &&
    "$check" clock "$tmp/tx-clock/"*[0-9].json >"$tmp/tx-clock.log" 2>&1 && ok=yes || ok=no
result $ok "tx: times by the fast clock agree with the PVM's" "$tmp/tx-clock.log"

# A file that cannot be written is named, whichever thread wrote it: with files limited to
# 1370 KiB, tx-kernel's Chrome trace (1.43 MB with times, written by the consumer thread as
# runs end) fails, the folded stacks (1.36 MB, written with it) do not; 200 KiB fails both,
# and the first in file order (.out) is reported. Exit 2, no crash.
for lim in 1370:trace.json 200:out; do
    rm -rf "$tmp/fsize"
    mkdir -p "$tmp/fsize"
    (trap '' XFSZ; ulimit -f "${lim%%:*}"; exec "$wasmdbg" profile "$k/tx-kernel-no-verif.wasm" \
        --inputs "$k/tx-kernel.inputs.json" --rollup sr1D7tjtYDmnugNWh8sGW91WJ3TPpCpqX1Dg \
        --no-kernel-debug -o "$tmp/fsize") >/dev/null 2>"$tmp/fsize.err"
    st=$?
    [ $st -eq 2 ] && grep -Eq "^wasmdbg: $tmp/fsize/[^ ]*[0-9]\.${lim#*:}: write error: File too large$" \
        "$tmp/fsize.err" && ok=yes || ok=no
    result $ok "tx: a write error in .${lim#*:} is reported (exit $st)" "$tmp/fsize.err"
done

# Zeros are written ahead of the time-ordered files while the kernel runs (profiler/output.c,
# fill_ahead), up to half again their foretold size, and cut off when the files are closed.
# With files limited to 1400 KiB (the largest, the folded stacks, is 1.37 MB without times;
# without the limit, under strace, the zeros reached 1.5 MB in it) and SIGXFSZ as it is, the
# profile succeeds and its time-ordered files are those of a profile without the limit. (A
# fill past the limit would be cut short there and stop; fill_cap, which keeps a piece from
# starting past it, is not told apart here.)
rm -rf "$tmp/flim" "$tmp/fnolim"
txargs=(--inputs "$k/tx-kernel.inputs.json" --rollup sr1D7tjtYDmnugNWh8sGW91WJ3TPpCpqX1Dg
    --no-kernel-debug --without-time --name p)
(ulimit -f 1400; exec "$wasmdbg" profile "$k/tx-kernel-no-verif.wasm" "${txargs[@]}" \
    -o "$tmp/flim") >/dev/null 2>"$tmp/flim.err"
st=$?
"$wasmdbg" profile "$k/tx-kernel-no-verif.wasm" "${txargs[@]}" -o "$tmp/fnolim" >/dev/null 2>&1
ok=no
if [ $st -eq 0 ]; then
    ok=yes
    for e in out trace.json speedscope.json; do
        cmp "$tmp/flim/p.$e" "$tmp/fnolim/p.$e" >>"$tmp/flim.err" 2>&1 || ok=no
    done
fi
result $ok "tx: files limited to 1400 KiB: the profile succeeds, its files whole (exit $st)" \
    "$tmp/flim.err"

# What the summary says about sections, traps and symbols.
grep -q '^hash rounds\|  hash rounds$' "$tmp/counter/live.txt" ||
    grep -q ' hash rounds' "$tmp/counter/live.txt" && ok=yes || ok=no
result $ok "counter: the section annotations are nodes"
grep -q '^Detailed results for a `kernel_run`:$' "$tmp/counter/live.txt" &&
    grep -q '^%interpreter(decode): [0-9]* ticks (' "$tmp/counter/live.txt" &&
    grep -q '^Full execution with padding: 300000000000000 ticks$' "$tmp/counter/live.txt" &&
    ok=yes || ok=no
result $ok "counter: the reference's summary layout"
# Without --record, events are stamped by the fast clock (the TSC where it is invariant): its
# unit converted, each run's time agrees with the PVM's measure by the monotonic clock.
"$wasmdbg" profile kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json \
    --no-kernel-debug -o "$tmp/clock" >"$tmp/clock.txt" 2>&1 &&
    "$check" clock "$tmp/clock/"*[0-9].json >"$tmp/clock.log" 2>&1 && ok=yes || ok=no
result $ok "counter: times by the fast clock agree with the PVM's" "$tmp/clock.log"
grep -q 'kernel_run trapped: unreachable' "$tmp/unreachable/live.txt" &&
    grep -q '^  #0 ' "$tmp/unreachable/live.txt" && ok=yes || ok=no
result $ok "unreachable: the trap and its backtrace"
# A trap's backtrace with source lines (DWARF), as `run` shows it: in the summary, in the
# JSON profile (an array of frames), and from a recorded trace; exit 0, 1 with --fail-on-stuck.
T=(tests/golden/data/trap-dwarf.wasm --inputs tests/golden/data/one-level.inputs.json
    --no-kernel-debug --without-time)
st=0
"$wasmdbg" profile "${T[@]}" -o "$tmp/trap" --name t --record "$tmp/trap.trace" \
    >"$tmp/trap.txt" 2>&1 || st=$?
frames() { # frames FILE: the three frames, innermost first, with their lines
    grep -q '^  #0 check at 0xb9 (trap-dwarf.c:12)$' "$1" &&
        grep -q '^  #1 walk at 0x9a (trap-dwarf.c:19)$' "$1" &&
        grep -q '^  #2 kernel_run at 0x87 (trap-dwarf.c:26)$' "$1"
}
[ $st = 0 ] && frames "$tmp/trap.txt" && ok=yes || ok=no
result $ok "trap-dwarf: the summary's backtrace has source lines (exit $st)" "$tmp/trap.txt"
st=0
"$wasmdbg" report "$tmp/trap.trace" -o "$tmp/trap-report" >"$tmp/trap-report.txt" 2>&1 || st=$?
[ $st = 0 ] && frames "$tmp/trap-report.txt" && ok=yes || ok=no
result $ok "trap-dwarf: report keeps the recorded backtrace (exit $st)" "$tmp/trap-report.txt"
st=0
"$wasmdbg" profile "${T[@]}" -o "$tmp/trap" --json >"$tmp/trap.json" 2>&1 || st=$?
[ $st = 0 ] && grep -q '"backtrace": \[' "$tmp/trap.json" &&
    grep -q '{"function": "check", "func_idx": 3, "offset": 185, "file": "trap-dwarf.c", "line": 12}' \
        "$tmp/trap.json" && ok=yes || ok=no
result $ok "trap-dwarf: the JSON profile's backtrace is an array of frames (exit $st)" "$tmp/trap.json"
st=0
"$wasmdbg" profile "${T[@]}" -o "$tmp/trap" --fail-on-stuck >"$tmp/trap-fail.txt" 2>&1 || st=$?
[ $st = 1 ] && ok=yes || ok=no
result $ok "trap-dwarf: --fail-on-stuck exits 1 on a trap (exit $st)" "$tmp/trap-fail.txt"
grep -q 'kernel_run stuck: .*call stack exhausted' "$tmp/stack-overflow/live.txt" &&
    grep -q 'more frames' "$tmp/stack-overflow/live.txt" && ok=yes || ok=no
result $ok "stack-overflow: stuck, with the exhausted stack"
"$wasmdbg" profile tests/profile/calls-small.wat --inputs "$tmp/one-empty.json" --full-limit 1000 \
    -o "$tmp/switch" >"$tmp/switch.txt" 2>&1 &&
    grep -q 'mode: calling-context tree (auto: the full tree reached its node limit' \
        "$tmp/switch.txt" && ok=yes || ok=no
result $ok "calls: auto mode switched to the calling-context tree" "$tmp/switch.txt"
grep -q 'smart_rollup_core.read_input' "$tmp/echo/live.txt" &&
    grep -q '"name": "smart_rollup_core.write_output"' "$tmp/echo/full.json" && ok=yes || ok=no
result $ok "echo: host functions by name"

# Options: --collapsed, --max-depth, --no-reboot, --without-time, text kernels with names.
d=$tmp/opts
"$wasmdbg" profile kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json \
    --no-kernel-debug --collapsed --max-depth 2 --without-time -o "$d" >"$tmp/opts.txt" 2>&1
awk '{ n = split($0, a, ";"); if (n > 2) bad = 1 } END { exit bad }' "$d/"*.out &&
    sort -c "$d/"*.out 2>/dev/null && ! grep -q 'us)\|ms)' "$tmp/opts.txt" &&
    "$check" files "$d" >"$tmp/opts.log" 2>&1 && ok=yes || ok=no
result $ok "--collapsed --max-depth 2 --without-time" "$tmp/opts.log"
"$wasmdbg" profile "$k/echo.wasm" --inputs "$k/echo.inputs.json" --no-kernel-debug --no-reboot \
    --json -o "$tmp/nr" >"$tmp/nr.json" 2>&1 &&
    [ "$(grep -c '"index":' "$tmp/nr.json")" -ge 1 ] &&
    grep -q '"kernel_runs": 1,' "$tmp/nr.json" && ok=yes || ok=no
result $ok "--no-reboot profiles a single kernel run" "$tmp/nr.json"
"$wasmdbg" profile "$k/echo.wast" --inputs "$k/echo.inputs.json" --no-kernel-debug \
    -o "$tmp/wast" >"$tmp/wast.txt" 2>&1 && grep -q 'read_input' "$tmp/wast.txt" &&
    ok=yes || ok=no
result $ok "text kernels get symbols" "$tmp/wast.txt"
"$wasmdbg" profile kernels/counter/counter.wasm --mode nosuch >/dev/null 2>"$tmp/e1" ; st=$?
"$wasmdbg" report "$tmp/nosuch-trace" >/dev/null 2>"$tmp/e2"; st2=$?
"$wasmdbg" report kernels/counter/counter.wasm >/dev/null 2>"$tmp/e3"; st3=$?
[ $st -eq 2 ] && [ $st2 -eq 2 ] && [ $st3 -eq 2 ] && grep -q 'not a wasmdbg trace' "$tmp/e3" &&
    ok=yes || ok=no
result $ok "usage and input errors exit 2" "$tmp/e3"
# Numbers given to options are whole numbers in the option's range; anything else (a
# fraction, a sign, an exponent, 0 where at least 1 is needed) is a usage error naming the
# option, before anything runs.
for args in "profile:--max-depth:2.5" "profile:--max-depth:0" "profile:--full-limit:1e3" \
    "profile:--full-limit:-5" "report:--max-depth:1.5" "report:--max-depth:+3"; do
    IFS=: read -r cmd opt val <<<"$args"
    target=kernels/counter/counter.wasm
    [ "$cmd" = report ] && target=$tmp/nosuch-trace
    "$wasmdbg" "$cmd" "$target" "$opt" "$val" >"$tmp/num.out" 2>"$tmp/num.err"
    st=$?
    [ $st -eq 2 ] && [ ! -s "$tmp/num.out" ] &&
        [ "$(head -n 1 "$tmp/num.err")" = "wasmdbg: $opt: expected a whole number from 1 to 4294967295, got $val" ] &&
        ok=yes || ok=no
    result $ok "$cmd $opt $val: a usage error naming the option (exit $st)" "$tmp/num.err"
done

# A `;` in a name (a write_debug section's; a function's, the name section patched): shown
# as it is in the summary, the JSON profile and the SVG; folded stacks alone, where `;`
# separates frames, write it `:`.
wat2wasm --debug-names tests/profile/semicolon.wat -o "$tmp/semi.wasm" &&
    perl -0777 -pi -e 's/\x04work/\x04wo;k/' "$tmp/semi.wasm"
"$wasmdbg" profile "$tmp/semi.wasm" --inputs "$tmp/one-empty.json" --without-time \
    -o "$tmp/semi" >"$tmp/semi.txt" 2>&1 &&
    grep -q ' load;store$' "$tmp/semi.txt" && grep -q ' wo;k$' "$tmp/semi.txt" &&
    ! grep -q 'load:store\|wo:k' "$tmp/semi.txt" &&
    grep -q '"name": "load;store"' "$tmp/semi/"*[0-9].json &&
    grep -q '"name": "wo;k"' "$tmp/semi/"*[0-9].json &&
    ! grep -q 'load:store\|wo:k' "$tmp/semi/"*[0-9].json "$tmp/semi/"*.svg &&
    grep -q '^kernel_run;load:store;wo:k [0-9]*$' "$tmp/semi/"*.out &&
    ! grep -q 'load;store\|wo;k' "$tmp/semi/"*.out &&
    "$check" files "$tmp/semi" >>"$tmp/semi.txt" 2>&1 && ok=yes || ok=no
result $ok "a ; in a name is kept, but in folded stacks (:)" "$tmp/semi.txt"

# A trace recorded under the retired model (pvm-2.0) is refused: exit 2, the file, why, and
# the command that records it anew; nothing written. Such a trace is one recorded under a
# model file whose name has as many bytes ("pvm-2.x"), the name in its header rewritten.
printf '{"name": "pvm-2.x"}\n' >"$tmp/pvm-2.x.json"
"$wasmdbg" profile kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json \
    --no-kernel-debug --tick-model "$tmp/pvm-2.x.json" -o "$tmp/old-model" \
    --record "$tmp/old.trace" >/dev/null 2>&1
perl -0777 -pe 's/\x07pvm-2\.x/\x07pvm-2.0/' "$tmp/old.trace" >"$tmp/retired.trace"
"$wasmdbg" report "$tmp/retired.trace" -o "$tmp/retired-report" >"$tmp/rt.out" 2>"$tmp/rt.err"
st=$?
want="wasmdbg: $tmp/retired.trace: recorded under tick model pvm-2.0, which was an"
want+=" approximation of the PVM's ticks that wasmdbg no longer has; the default model, pvm,"
want+=" counts exactly as the Octez PVM does. Its figures cannot be compared with today's:"
want+=" record them anew with \`wasmdbg profile kernels/counter/counter.wasm --inputs INPUTS"
want+=" --record $tmp/retired.trace\`"
[ $st -eq 2 ] && [ ! -s "$tmp/rt.out" ] && [ "$(cat "$tmp/rt.err")" = "$want" ] &&
    [ ! -e "$tmp/retired-report" ] && "$wasmdbg" report "$tmp/old.trace" -o "$tmp/old-report" \
    >/dev/null 2>&1 && ok=yes || ok=no
result $ok "report refuses a trace of the retired tick model pvm-2.0 (exit $st)" "$tmp/rt.err"

# Ctrl-C on a kernel that loops (the PVM would give it a whole period, 50e12 ticks):
# interrupt NAME CMD... starts CMD, waits for the kernel's "looping" (it is in its loop then,
# and the handler is set), sends SIGINT, and checks the exit status (130) and that stderr
# names the tick, the looping function and its caller. $int_wait: seconds it loops (0.2).
interrupt() {
    local name=$1 d=$tmp/int-$1 i=0
    shift
    mkdir -p "$d"
    "$@" >"$d/out" 2>"$d/err" &
    local pid=$!
    while ! grep -q looping "$d/out" 2>/dev/null && [ $i -lt 600 ]; do
        sleep 0.05
        i=$((i + 1))
    done
    sleep "${int_wait:-0.2}"
    kill -INT "$pid" 2>/dev/null
    for ((i = 0; i < 600; i++)); do # at most 30 s more (files written under ASan)
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.05
    done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid"
    local st=$?
    ok=yes
    [ $st -eq 130 ] || ok=no
    grep -Eq '^wasmdbg: interrupted at tick [0-9]+ \(level 0, kernel run 0, [0-9]+ ticks into it\)$' \
        "$d/err" || ok=no
    grep -Eq '^  in spin \(module offset 0x[0-9a-f]+\)$' "$d/err" || ok=no
    grep -Eq '^  called from kernel_run \(module offset 0x[0-9a-f]+\)$' "$d/err" || ok=no
    { echo "exit $st"; cat "$d/err"; } >"$d/log"
    result $ok "Ctrl-C stops a looping kernel and says where: $name" "$d/log"
}
loop=tests/profile/loop.wat
interrupt run "$wasmdbg" run "$loop" --inputs "$tmp/one-empty.json"
grep -q '^status: evaluating$' "$tmp/int-run/out" && ok=yes || ok=no
result $ok "run, interrupted: the report of what ran, the PVM still evaluating" "$tmp/int-run/out"
int_wait=0.6 interrupt profile "$wasmdbg" profile "$loop" --inputs "$tmp/one-empty.json" \
    -o "$tmp/int-prof"
# the profile is written, the open calls closed at the tick of the interrupt
awk '$1 == "kernel_run;spin" && $2 > 1000000 { found = 1 } END { exit !found }' \
    "$tmp/int-prof/"*.out && "$check" files "$tmp/int-prof" >"$tmp/int-prof.log" 2>&1 &&
    grep -q 'kernel_run stuck: interrupted (Ctrl-C) at tick' "$tmp/int-profile/out" &&
    ok=yes || ok=no
result $ok "profile, interrupted: its files, spin's ticks up to the interrupt" "$tmp/int-prof.log"
# ... and their time up to the interrupt too (it looped 0.6 s; the open calls once closed at
# their last event's clock, some us into the run)
ns=$(grep -o '"name": "kernel_run", "kind": "entry"[^}]*' "$tmp/int-prof/"*[0-9].json |
    grep -o '"total_ns": [0-9]*' | grep -o '[0-9]*$' | head -n 1)
[ "${ns:-0}" -ge 300000000 ] && ok=yes || ok=no
result $ok "profile, interrupted: kernel_run's time runs to the interrupt (${ns:-no} ns)" \
    "$tmp/int-prof/"*[0-9].json
interrupt budget "$wasmdbg" budget update "$loop" --inputs "$tmp/one-empty.json" \
    --budget "$tmp/int-budget.json"
[ ! -e "$tmp/int-budget.json" ] && grep -q 'neither checked nor written' "$tmp/int-budget/err" &&
    ok=yes || ok=no
result $ok "budget update, interrupted: no budget written" "$tmp/int-budget/err"

# --max-ticks on the looping kernel (under `timeout 10`: the PVM would give it 50e12 ticks):
# `run` reports the run stopped at its tick (text and JSON), `profile` writes every file with
# the open calls closed at that tick, both exit 1; a single run (--no-reboot) stops alike.
st=0
timeout 10 "$wasmdbg" run "$loop" --inputs "$tmp/one-empty.json" --max-ticks 5000 \
    >"$tmp/mt-run.out" 2>"$tmp/mt-run.err" || st=$?
[ $st -eq 1 ] &&
    grep -Eq '^    stopped at tick 5000000000[0-9]{4}: --max-ticks 5000 reached$' "$tmp/mt-run.out" &&
    grep -Eq '^status: stopped at tick [0-9]+: --max-ticks 5000 reached$' "$tmp/mt-run.out" &&
    grep -Eq '^total: 1 level, 1 kernel run, (4[0-9]{3}|5000) ticks ' "$tmp/mt-run.out" &&
    grep -Eq '^wasmdbg: stopped at tick [0-9]+ \(level 0, kernel run 0, [0-9]+ ticks into it\): --max-ticks 5000 reached$' \
        "$tmp/mt-run.err" && grep -Eq '^  in spin \(module offset 0x[0-9a-f]+\)$' "$tmp/mt-run.err" &&
    ok=yes || ok=no
{ echo "exit $st"; cat "$tmp/mt-run.out" "$tmp/mt-run.err"; } >"$tmp/mt-run.log"
result $ok "run --max-ticks stops a looping kernel and reports the run stopped" "$tmp/mt-run.log"
st=0
timeout 10 "$wasmdbg" run "$loop" --inputs "$tmp/one-empty.json" --max-ticks 5000 --json \
    >"$tmp/mt-run.json" 2>/dev/null || st=$?
[ $st -eq 1 ] && grep -q '"outcome": "stopped",' "$tmp/mt-run.json" &&
    grep -Eq '"stopped_at": [0-9]+' "$tmp/mt-run.json" &&
    grep -Eq '"reason": "stopped at tick [0-9]+: --max-ticks 5000 reached"' "$tmp/mt-run.json" &&
    grep -q '"in_run": true' "$tmp/mt-run.json" && ok=yes || ok=no
result $ok "run --max-ticks --json: the run stopped, with its tick (exit $st)" "$tmp/mt-run.json"
for nr in "" --no-reboot; do
    d=$tmp/mt-prof$nr
    st=0
    timeout 10 "$wasmdbg" profile "$loop" --inputs "$tmp/one-empty.json" --max-ticks 5000 $nr \
        -o "$d" >"$d.out" 2>"$d.err" || st=$?
    tick=$(sed -n 's/^kernel_run stuck: stopped at tick \([0-9]*\): --max-ticks 5000 reached$/\1/p' "$d.out")
    # spin's calls closed at the stop: kernel_run's ticks are the run's up to there
    [ $st -eq 1 ] && [ -n "$tick" ] && grep -q "^stopped at tick $tick with 2 calls open" "$d.out" &&
        awk '$1 == "kernel_run;spin" && $2 > 4000 { found = 1 } END { exit !found }' "$d/"*.out &&
        grep -q "\"stopped_at\": $tick" "$d/"*[0-9].json && "$check" files "$d" >"$d.log" 2>&1 &&
        ok=yes || ok=no
    { echo "exit $st"; cat "$d.out" "$d.err"; } >>"$d.log"
    result $ok "profile --max-ticks $nr: its files, the open calls closed at the stop" "$d.log"
done

# -o DIR (or --flamecharts-dir DIR): made with its parents; a destination that is not a
# writable directory is a usage error naming it and the system's reason, before anything
# runs (no debug output, nothing written).
"$wasmdbg" profile kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json \
    --no-kernel-debug -o "$tmp/new/parents/dir" >"$tmp/parents.txt" 2>&1 &&
    [ -n "$(ls "$tmp/new/parents/dir/"*.svg 2>/dev/null)" ] && ok=yes || ok=no
result $ok "profile -o DIR makes DIR with its parents" "$tmp/parents.txt"
: >"$tmp/a-file"
for args in "-o:$tmp/a-file:Not a directory" "-o:$tmp/a-file/sub:Not a directory" \
    "--flamecharts-dir:$tmp/a-file/sub/dir:Not a directory"; do
    IFS=: read -r opt path why <<<"$args"
    st=0
    "$wasmdbg" profile kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json \
        "$opt" "$path" >"$tmp/dest.out" 2>"$tmp/dest.err" || st=$?
    [ $st -eq 2 ] && [ ! -s "$tmp/dest.out" ] && [ "$(wc -l <"$tmp/dest.err")" -eq 1 ] &&
        grep -q "^wasmdbg: $opt $path: .*: $why$" "$tmp/dest.err" && [ -f "$tmp/a-file" ] &&
        ok=yes || ok=no
    result $ok "profile $opt $path: a usage error before the run (exit $st)" "$tmp/dest.err"
done
if [ "$(id -u)" != 0 ]; then # root writes anywhere
    mkdir -p "$tmp/read-only" && chmod 555 "$tmp/read-only"
    st=0
    "$wasmdbg" profile kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json \
        -o "$tmp/read-only" >"$tmp/ro.out" 2>"$tmp/ro.err" || st=$?
    [ $st -eq 2 ] && [ ! -s "$tmp/ro.out" ] &&
        grep -q "^wasmdbg: -o $tmp/read-only: .*: Permission denied$" "$tmp/ro.err" &&
        ok=yes || ok=no
    result $ok "profile -o READ-ONLY-DIR: a usage error before the run (exit $st)" "$tmp/ro.err"
    chmod 755 "$tmp/read-only"
fi

# Sixteen profiles started at once into one directory (a CI job matrix), two kernels in turn:
# timestamped names alike, each gets a base of its own (BASE-2, ...): sixteen whole sets of
# files, each JSON parses, and each set (JSON, SVG, trace, speedscope) names the kernel of the
# run that wrote it. The runs wait on a pipe, so that they start together.
cd=$tmp/concurrent
mkdir -p "$cd"
mkfifo "$tmp/go"
exec 3<>"$tmp/go"
pids=()
for i in $(seq 0 15); do
    if [ $((i % 2)) -eq 0 ]; then
        kern=kernels/counter/counter.wasm in=kernels/counter/counter.inputs.json
    else
        kern=$k/echo.wasm in=$k/echo.inputs.json
    fi
    echo "$kern" >"$cd.$i.kernel"
    (read -r _ <&3; exec 3>&-; exec "$wasmdbg" profile "$kern" --inputs "$in" --no-kernel-debug \
        -o "$cd") >"$cd.$i.txt" 2>&1 &
    pids+=($!)
done
sleep 0.5
printf '\n%.0s' $(seq 0 15) >&3
ok=yes
for i in $(seq 0 15); do
    wait "${pids[$i]}" || { ok=no; echo "run $i: exit $?"; }
done >"$cd.log"
exec 3>&-
bases=()
for i in $(seq 0 15); do
    base=$(sed -n "s|^Profiling result can be found in $cd/\(.*\)\.out$|\1|p" "$cd.$i.txt")
    bases+=("$base")
    { [ -n "$base" ] && "$check" set "$cd" "$base" "$(cat "$cd.$i.kernel")"; } >>"$cd.log" 2>&1 ||
        { ok=no; echo "run $i ($base): not a whole profile of its kernel" >>"$cd.log"; }
done
[ "$(printf '%s\n' "${bases[@]}" | sort -u | wc -l)" -eq 16 ] ||
    { ok=no; echo "bases: ${bases[*]}" >>"$cd.log"; }
[ "$(ls "$cd" | wc -l)" -eq 80 ] || { ok=no; ls "$cd" >>"$cd.log"; }
result $ok "16 profiles at once in one directory: 16 whole sets, each of its kernel" "$cd.log"

# --name NAME: the files are NAME.*; a name whose files exist is refused before the run
# (exit 2, the files untouched): a profile is never overwritten.
d=$tmp/named
counter=(kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json
    --no-kernel-debug)
"$wasmdbg" profile "${counter[@]}" -o "$d" --name zzz-older >"$d.1.txt" 2>&1 &&
    grep -q "^Profiling result can be found in $d/zzz-older.out$" "$d.1.txt" &&
    "$check" set "$d" zzz-older kernels/counter/counter.wasm >>"$d.1.txt" 2>&1 && ok=yes || ok=no
result $ok "profile --name NAME writes NAME.*" "$d.1.txt"
cp "$d/zzz-older.json" "$tmp/named-before.json"
st=0
"$wasmdbg" profile "$k/echo.wasm" --inputs "$k/echo.inputs.json" -o "$d" --name zzz-older \
    >"$d.2.out" 2>"$d.2.err" || st=$?
[ $st -eq 2 ] && [ ! -s "$d.2.out" ] &&
    grep -q "^wasmdbg: --name zzz-older: $d/zzz-older.out exists: a profile is not overwritten" \
        "$d.2.err" && cmp -s "$d/zzz-older.json" "$tmp/named-before.json" && ok=yes || ok=no
result $ok "profile --name NAME refuses when NAME's files exist (exit $st)" "$d.2.err"
st=0
"$wasmdbg" profile "${counter[@]}" -o "$d" --name a/b >/dev/null 2>"$d.3.err" || st=$?
[ $st -eq 2 ] && grep -q '^wasmdbg: --name: expected a file name stem' "$d.3.err" &&
    ok=yes || ok=no
result $ok "profile --name with a / is a usage error (exit $st)" "$d.3.err"

# diff DIR compares the newest profile by the time recorded in it, not by name: of two
# profiles written one after the other, the newer one's JSON renamed to sort first.
d=$tmp/order
"$wasmdbg" profile "${counter[@]}" -o "$d.old" >/dev/null 2>&1
sleep 0.01
"$wasmdbg" profile "$k/echo.wasm" --inputs "$k/echo.inputs.json" --no-kernel-debug -o "$d.new" \
    >/dev/null 2>&1
mkdir -p "$d" && mv "$d.old/"*[0-9].json "$d/zzz-older.json" &&
    mv "$d.new/"*[0-9].json "$d/aaa-newer.json"
"$wasmdbg" diff "$d" "$tmp/counter/live" --json >"$d.diff.json" 2>"$d.diff.err"
st=$?
[ $st -eq 0 ] && grep -q "\"old\": \"$d/aaa-newer.json\"" "$d.diff.json" &&
    grep -q "^wasmdbg: $d holds 2 profiles: comparing the newest, aaa-newer.json$" "$d.diff.err" &&
    ok=yes || ok=no
cat "$d.diff.err" >>"$d.diff.json"
result $ok "diff DIR picks the newest profile by its recorded time (exit $st)" "$d.diff.json"

# The SVG in a browser: the script runs, zooms and searches.
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$browser" ]; then
    svg=$(ls "$tmp/counter/live/"*.svg)
    timeout 60 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
        --dump-dom "file://$svg#selftest" >"$tmp/dom.txt" 2>"$tmp/chromium.err"
    grep -q 'data-ready="1"' "$tmp/dom.txt" &&
        grep -Eq 'data-selftest="zoom:ok unzoom:ok search:[1-9][0-9.]* frames:[0-9]+"' \
            "$tmp/dom.txt" && ok=yes || ok=no
    result $ok "the SVG's zoom and search in headless chromium" "$tmp/dom.txt"
else
    echo "skipped: chromium is not installed (apt-get install chromium) for the SVG check"
    skipped=$((skipped + 1))
fi

echo "profile: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
