#!/usr/bin/env bash
# tests/repl/run.sh WASMDBG [--update]: the REPL's tests (`wasmdbg debug`).
#
#   1. Scripted sessions: each tests/repl/NAME.cmd holds the arguments of one wasmdbg command
#      line ($SHARED: the shared folder, ../shared or $WD_SHARED_DIR; $TMP: a scratch
#      directory); NAME.in is fed to its stdin. Its stdout, stderr and exit status must equal
#      NAME.out, NAME.err and NAME.status once wall-clock figures are masked: `took <time>`
#      (the `time` command) and the profile files' timestamps and scratch directory.
#      --update rewrites the expected files (review the diff).
#   2. Determinism: the example kernel and echo stepped by ticks, by instructions and run
#      straight through (`step inbox`) end with the same tick counter, durable storage and
#      outboxes, and the counter matches `wasmdbg run`.
#   3. Source lines: a build of the example kernel with DWARF (clang -g) shows file:line in
#      `bt` (skipped without clang and wasm-ld).
#   4. A real terminal under tmux: the prompt, tab completion of commands, functions and
#      durable paths, history across sessions (skipped without tmux).
# Ends with `repl: N passed, N failed, N skipped`.
set -uo pipefail
cd "$(dirname "$0")/../.."
# `stack` shows a frame's slots above its locals, the top frame's up to its deepest operand
# slot: slots never written yet read as the fresh stack's bytes, which an asan build fills
# with 0xbe (the release build's are zero pages). Same bytes on every build:
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}max_malloc_fill_size=0"
wasmdbg=$1
update=${2:-}
SHARED=${WD_SHARED_DIR:-../shared}
TMP=$(mktemp -d)
export SHARED TMP
trap 'tmux -L "wasmdbg-test-$$" kill-server >/dev/null 2>&1; rm -rf "$TMP"' EXIT
. tests/cases.sh
passed=0
failed=0
skipped=0

ok() {
    passed=$((passed + 1))
}

fail() {
    echo "FAILED: $*"
    failed=$((failed + 1))
}

# Masks what differs from one run to the next (the -N of a profile named in the same
# millisecond as the one before it).
mask() {
    sed -E -e 's/^took [0-9][0-9a-z.]*$/took <time>/' \
        -e 's/wasm-debugger-profiling-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+-00:00(-[0-9]+)?/wasm-debugger-profiling-<timestamp>/g' \
        -e "s#$TMP#<tmp>#g"
}

# ---- 1. scripted sessions -----------------------------------------------------------------

for cmd in tests/repl/*.cmd; do
    if run_case "${cmd%.cmd}" "${cmd%.cmd}.in" mask; then ok; else fail "${cmd%.cmd}"; fi
done

# `show durable storage --full` prints a long value whole (the transcripts show it cut): the
# counter kernel's /kernel/boot.wasm (5938 bytes) as `show key` prints it
full=$(printf 'show key /kernel/boot.wasm\nshow durable storage /kernel/boot.wasm --full\n' |
    "$wasmdbg" debug kernels/counter/counter.wasm 2>&1)
if [ "$(sed -n 1p <<<"$full" | wc -c)" -eq 11877 ] &&
    [ "$(sed -n 1p <<<"$full")" = "$(sed -n 3p <<<"$full" | sed 's/^  //')" ] &&
    [ "$(sed -n 2p <<<"$full")" = /kernel/boot.wasm ]; then
    ok
else
    fail "show durable storage --full did not print /kernel/boot.wasm whole"
fi

# ---- 2. stepping by ticks or instructions versus running straight through -----------------

# final_state KERNEL INPUTS LEVELS STEP-COMMAND COUNT [OPTIONS...]: loads each inbox, runs it
# with COUNT step commands (or `step inbox`), then prints the tick counter, status, durable
# storage and every outbox.
final_state() {
    local kernel=$1 inputs=$2 levels=$3 step=$4 count=$5 i
    shift 5
    {
        for ((i = 0; i < levels; i++)); do
            echo "load inputs"
            if [ "$step" = inbox ]; then
                echo "step inbox"
            else
                yes "$step" | head -n "$count"
            fi
        done
        echo "show ticks"
        echo "show status"
        echo "show durable storage --full"
        for ((i = 0; i < levels; i++)); do echo "show outbox at level $i"; done
    } | "$wasmdbg" debug "$kernel" --inputs "$inputs" --no-kernel-debug "$@" 2>/dev/null |
        sed -n '/^Ticks: /,$p'
}

determinism() {
    local name=$1 kernel=$2 inputs=$3 levels=$4 count=$5 kind
    final_state "$kernel" "$inputs" "$levels" inbox 1 >"$TMP/$name.straight"
    if ! grep -q '^Ticks: ' "$TMP/$name.straight"; then
        fail "determinism $name: no final state"
        return
    fi
    for kind in "step 997 ticks" "step instr 61"; do
        final_state "$kernel" "$inputs" "$levels" "$kind" "$count" >"$TMP/$name.stepped"
        if cmp -s "$TMP/$name.straight" "$TMP/$name.stepped"; then
            ok
        else
            fail "determinism $name: \`$kind\` ends elsewhere than \`step inbox\`:"
            diff "$TMP/$name.straight" "$TMP/$name.stepped" | head -n 8 | sed 's/^/    /'
        fi
    done
    # the same counter as `wasmdbg run` (every tick, padding included)
    local want
    want=$("$wasmdbg" run "$kernel" --inputs "$inputs" --no-kernel-debug --without-time |
        sed -n 's/^total: .*(\([0-9]*\) with padding)$/\1/p')
    if head -n 1 "$TMP/$name.straight" | grep -q "^Ticks: $want "; then
        ok
    else
        fail "determinism $name: $(head -n 1 "$TMP/$name.straight"), wasmdbg run: $want"
    fi
}

# exact_ticks NAME KERNEL INPUTS N: `step tick` N times and `step N ticks` from the first
# kernel run's Snapshot (tick 50e12) both reach tick 50e12 + N exactly, inside decode, link,
# init or an instruction alike (the reference PVM steps one tick at a time).
exact_ticks() {
    local name=$1 kernel=$2 inputs=$3 n=$4 want got1 got2
    want=$((50000000000000 + n))
    got1=$({ echo "load inputs"; yes "step tick" | head -n "$n"; echo "show ticks"; } |
        "$wasmdbg" debug "$kernel" --inputs "$inputs" --no-kernel-debug 2>/dev/null |
        sed -n 's/^Ticks: \([0-9]*\) .*/\1/p')
    got2=$(printf 'load inputs\nstep %s ticks\nshow ticks\n' "$n" |
        "$wasmdbg" debug "$kernel" --inputs "$inputs" --no-kernel-debug 2>/dev/null |
        sed -n 's/^Ticks: \([0-9]*\) .*/\1/p')
    if [ "$got1" = "$want" ] && [ "$got2" = "$want" ]; then
        ok
    else
        fail "exact ticks $name: $n step ticks reach ${got1:-nothing}, step $n ticks ${got2:-nothing}, want $want"
    fi
}

exact_ticks counter-prepare kernels/counter/counter.wasm kernels/counter/counter.inputs.json 5000
exact_ticks counter-eval kernels/counter/counter.wasm kernels/counter/counter.inputs.json 19001
determinism counter kernels/counter/counter.wasm kernels/counter/counter.inputs.json 3 4000
determinism echo "$SHARED/kernels/echo.wasm" "$SHARED/kernels/echo.inputs.json" 2 200
determinism unreachable "$SHARED/kernels/unreachable_kernel.wasm" \
    "$SHARED/kernels/empty-two-levels.inputs.json" 2 20
determinism stack-overflow "$SHARED/kernels/stack_overflow.wasm" \
    "$SHARED/kernels/empty-two-levels.inputs.json" 2 1500

# ---- 3. source lines in bt ----------------------------------------------------------------

# (compiled and linked in two steps: clang would run binaryen's wasm-opt, when installed,
# which drops the name section: kernels/Makefile)
if command -v clang >/dev/null 2>&1 && command -v wasm-ld >/dev/null 2>&1 &&
    clang --target=wasm32 -O1 -g -nostdlib -c -o "$TMP/counter-g.o" kernels/counter/counter.c \
        >/dev/null 2>&1 &&
    wasm-ld --no-entry --export=kernel_run -o "$TMP/counter-g.wasm" "$TMP/counter-g.o" \
        >/dev/null 2>&1; then
    out=$(printf 'load inputs\nbreak do_mint\ncontinue\nbt\n' |
        "$wasmdbg" debug "$TMP/counter-g.wasm" --inputs kernels/counter/counter.inputs.json 2>&1)
    if grep -Eq '^#0 +do_mint \(func\[[0-9]+\]\) at 0x[0-9a-f]+ \(.*counter\.c:[0-9]+\)$' <<<"$out" &&
        grep -Eq '^#1 +kernel_run .*counter\.c:[0-9]+\)$' <<<"$out"; then
        ok
    else
        fail "bt shows no source lines for a kernel built with -g:"
        sed 's/^/    /' <<<"$out" | tail -n 5
    fi
else
    echo "skipped: source lines in bt (no clang with wasm-ld)"
    skipped=$((skipped + 1))
fi

# ---- 4. a real terminal --------------------------------------------------------------------

tmux_test() {
    local sock="wasmdbg-test-$$" home="$TMP/home" i
    mkdir -p "$home"
    local run="HOME=$home $(realpath "$wasmdbg") debug kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json"
    tm() { tmux -L "$sock" "$@"; }
    # waits until the screen matches REGEX (10 s at most)
    screen_has() {
        for ((i = 0; i < 100; i++)); do
            tm capture-pane -p -t repl 2>/dev/null | grep -Eq -- "$1" && return 0
            sleep 0.1
        done
        return 1
    }
    check() {
        if screen_has "$1"; then
            ok
        else
            fail "tmux: $2; the screen:"
            tm capture-pane -p -t repl 2>/dev/null | grep -v '^$' | tail -n 8 | sed 's/^/    /'
        fi
    }
    tm -f /dev/null new-session -d -s repl -x 120 -y 40 "$run" || {
        fail "tmux: cannot start a session"
        return
    }
    check '^> ?$' "no prompt"
    sleep 0.3 # the prompt is out before libedit puts the terminal in raw mode
    tm send-keys -t repl 'show sta' Tab
    check '^> show status( |$)' "tab did not complete \`show sta\`"
    tm send-keys -t repl Enter
    check '^Internal_status: Collect$' "\`show status\` did not run"
    tm send-keys -t repl 'break do_mi' Tab
    check '^> break do_mint( |$)' "tab did not complete the function name do_mint"
    tm send-keys -t repl C-u 'ls /ker' Tab
    check '^> ls /kernel$' "tab did not complete the durable path /kernel"
    tm send-keys -t repl '/' Tab Tab
    check '/kernel/boot\.wasm +/kernel/env' "tab did not list the children of /kernel"
    tm send-keys -t repl C-u 'load inputs' Enter
    tm send-keys -t repl 'step result' Enter
    check '^Internal_status: Evaluation succeeded$' "\`step result\` did not run"
    tm send-keys -t repl 'quit' Enter
    for ((i = 0; i < 50; i++)); do
        tm has-session -t repl 2>/dev/null || break
        sleep 0.1
    done
    if grep -q 'step\\040result' "$home/.wasmdbg_history" 2>/dev/null; then
        ok
    else
        fail "tmux: the history file was not written"
    fi
    # a second session: the up arrow brings back the last command of the first
    tm -f /dev/null new-session -d -s repl -x 120 -y 40 "$run"
    check '^> ?$' "no prompt in the second session"
    sleep 0.3
    tm send-keys -t repl Up
    check '^> quit$' "the up arrow did not bring back the previous session's last command"
    tm send-keys -t repl Up
    check '^> step result$' "the up arrow did not go further back in history"
    tm send-keys -t repl C-u 'stop' Enter
    for ((i = 0; i < 50; i++)); do
        tm has-session -t repl 2>/dev/null || break
        sleep 0.1
    done
    # Ctrl-C: at the prompt it clears the line; during a run it interrupts the kernel (a
    # kernel_run that loops forever) and the session goes on
    run="HOME=$home $(realpath "$wasmdbg") debug tests/repl/loop.wat --inputs kernels/counter/counter.inputs.json"
    tm -f /dev/null new-session -d -s repl -x 120 -y 40 "$run"
    check '^> ?$' "no prompt (loop.wat)"
    sleep 0.3
    # (the text must reach libedit first: the terminal itself drops input not read yet)
    tm send-keys -t repl 'show status'
    check '^> show status$' "\`show status\` was not typed"
    tm send-keys -t repl C-c
    check '^> show status(\^C)?$' "the line is gone after Ctrl-C"
    tm send-keys -t repl 'show ticks' Enter
    check '^Ticks: 0 \(level 0\)$' "\`show ticks\` did not run after Ctrl-C at the prompt"
    if tm capture-pane -p -t repl | grep -Eq '^(Status|Internal_status):|show status ?show ticks'; then
        fail "tmux: Ctrl-C at the prompt did not discard the typed \`show status\`:"
        tm capture-pane -p -t repl | grep -v '^$' | tail -n 8 | sed 's/^/    /'
    else
        ok
    fi
    tm send-keys -t repl 'step inbox' Enter
    check '^> step inbox$' "\`step inbox\` was not typed"
    sleep 0.3
    tm send-keys -t repl C-c
    check '^(\^C)?Interrupted in kernel_run \(func\[0\]\) at 0x[0-9a-f]+ \(tick [0-9]+\)$' \
        "Ctrl-C did not interrupt the running kernel"
    tm send-keys -t repl 'bt' Enter
    check '^#0 +kernel_run \(func\[0\]\) at 0x' "no backtrace after the interrupt"
    tm send-keys -t repl 'stop' Enter
    tm kill-server >/dev/null 2>&1
}

if command -v tmux >/dev/null 2>&1; then
    tmux_test
else
    echo "skipped: the terminal test (no tmux)"
    skipped=$((skipped + 1))
fi

echo "repl: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
