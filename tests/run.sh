#!/usr/bin/env bash
# tests/run.sh: every test, as `make test` runs it. From the repository root:
#   1. release build: unit tests, spec tests (with a ticks log)
#   2. determinism: the spec tests again with --single-step, with --single-step on
#      unfused code (--no-fuse), and on the switch-dispatch build; for every script the
#      four ticks logs must be identical (one test per script), and each extra run must end
#      with the same counts as the release run (one test each)
#   3. asan build: unit and spec tests
#   4. debug build: unit tests
#   5. clang build of everything, warnings as errors (one test)
#   6. `wasmdbg invoke` smoke tests against exact expected stdout and exit status
#   7. golden tests (tests/golden: wasmdbg command lines with their exact stdout, stderr
#      and exit status; also run on the asan build in part 3)
#   8. profiler tests (tests/profile/run.sh: `wasmdbg profile` and `report` on real kernels,
#      outputs read back, per-phase figures against `wasmdbg run`, the SVG in headless
#      chromium when installed; also run on the asan build in part 3)
#   9. the REPL's tests (tests/repl: scripted `wasmdbg debug` sessions with their exact
#      outputs, stepping versus running straight through, source lines in bt, a real
#      terminal under tmux; also run on the asan build in part 3)
#  10. budget tests (tests/budget/run.sh: `wasmdbg budget check|update` with exact outputs
#      and exit codes, JUnit files, update then check, byte-identical reruns; also run on
#      the asan build in part 3)
#  11. the Octez PVM's decode and init steps (tests/octez/phases.sh: vm/pvmticks.c against
#      the reference model for every kernel and test module the model parses); Octez's own
#      figures (truth.json) at every version (tests/octez/truth.py); a profile's function
#      figures, and the ticks of what the model does not cover (table instructions,
#      memory.init, some host functions), against hand-computed ones (tests/octez/calls.py,
#      hand.py); and every
#      kernel run of a generated corpus, the shared kernels and counter against the model:
#      ticks, phases, outcome, reboots, outbox (tests/octez/run.sh); the same kernels give
#      the same run figures and profile events with block charging, with every instruction
#      charged on its own, on unfused code and on the switch build (tests/octez/determinism.sh)
#  12. install tests (tests/install/run.sh: `make install` and `uninstall` into a DESTDIR,
#      the man page and the completions against the help texts)
#  13. regression tests (tests/regress/run.sh: one wasmdbg command line per fixed bug, with
#      its exact outputs, and each input of tests/regress/TARGET replayed through the
#      fuzz target that found it, built with a plain main; on the release build here and
#      the asan build in part 3, whose clang build of part 5 builds the replays too)
#  14. fuzzing (tests/fuzz/run.sh --seconds 2: each libFuzzer target of tests/fuzz run from
#      its seed corpus, regressions included, for 2 seconds; skipped, saying why, without
#      clang's libFuzzer)
#  15. a small differential test (tests/difftest/run.sh: 30 random binaryen modules on
#      wasmdbg, wasm-interp and node, 10 random kernels against the Octez tick model;
#      DIFF_SEED, 1 here, picks them; skipped, saying why, without binaryen or node)
# Each part's `N passed, N failed[, N skipped]` line is summed; a build that fails counts
# as one failed test, and so does a part that exits non-zero without counting a failure.
# The last line is the total, `N passed, N failed, N skipped`; the exit status is 1 when
# anything failed. Logs are in build/test-logs/.
set -uo pipefail

cd "$(dirname "$0")/.."
logs=build/test-logs
rm -rf "$logs"
mkdir -p "$logs"
make_=(make -j2 --no-print-directory)
passed=0
failed=0
skipped=0

note() {
    echo "== $*"
}

# Shows a part's output: its first lines and its closing line.
show() {
    local file=$1 lines
    lines=$(wc -l <"$file")
    if [ "$lines" -gt 41 ]; then
        head -n 40 "$file"
        echo "   ... $((lines - 41)) more lines in $file"
        tail -n 1 "$file"
    else
        cat "$file"
    fi
}

# Adds the last `N passed, N failed[, N skipped]` of FILE to the totals. A part that
# exited non-zero (STATUS) without counting a failure counts one.
count() {
    local file=$1 status=$2 line p=0 f=0 s=0
    line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$file" | tail -n 1)
    if [[ $line =~ ([0-9]+)\ passed,\ ([0-9]+)\ failed(,\ ([0-9]+)\ skipped)? ]]; then
        p=${BASH_REMATCH[1]}
        f=${BASH_REMATCH[2]}
        s=${BASH_REMATCH[4]:-0}
    fi
    if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
        echo "   (exited with status $status)"
        f=1
    fi
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
}

# build NAME MAKE-ARGS...: false (and one failed test) when the build fails.
build() {
    local name=$1
    shift
    note "build $name"
    if "${make_[@]}" "$@" >"$logs/build-$name.log" 2>&1; then
        return 0
    fi
    tail -n 30 "$logs/build-$name.log"
    echo "   build $name failed (log: $logs/build-$name.log)"
    failed=$((failed + 1))
    return 1
}

# run NAME COMMAND...: runs a counted part.
run() {
    local name=$1 status=0
    shift
    note "$name"
    "$@" >"$logs/$name.log" 2>&1 || status=$?
    show "$logs/$name.log"
    count "$logs/$name.log" "$status"
}

# Runs the spec tests, not counted (for the determinism check); prints the closing line.
spec_quiet() {
    local name=$1
    shift
    bash tests/spec/run.sh "$@" >"$logs/$name.log" 2>&1
    tail -n 1 "$logs/$name.log"
}

one_test() {
    local ok=$1 what=$2
    if [ "$ok" = yes ]; then
        passed=$((passed + 1))
    else
        echo "   FAILED: $what"
        failed=$((failed + 1))
    fi
}

# Splits a ticks log into one file per script under DIR.
split_log() {
    mkdir -p "$2"
    awk -F: -v dir="$2" '
        $1 != cur { if (cur != "") close(dir "/" cur); cur = $1 }
        { print > (dir "/" cur) }' "$1"
}

determinism() {
    note "determinism: ticks of release, --single-step, switch and unfused runs"
    local d=$logs/determinism f ok compared=0 differing=0
    for kind in release step switch nofuse; do
        if [ ! -s "$logs/ticks-$kind.log" ]; then
            one_test no "no ticks log from the $kind run"
            return
        fi
        split_log "$logs/ticks-$kind.log" "$d/$kind"
    done
    for f in $(ls "$d/release" "$d/step" "$d/switch" "$d/nofuse" | grep -v ':$' | sort -u); do
        ok=yes
        for kind in step switch nofuse; do
            if ! cmp -s "$d/release/$f" "$d/$kind/$f"; then
                ok=no
                echo "   $f: $kind ticks differ from release:"
                diff "$d/release/$f" "$d/$kind/$f" 2>&1 | head -n 4 | sed 's/^/     /'
            fi
        done
        [ $ok = yes ] || differing=$((differing + 1))
        compared=$((compared + 1))
        one_test $ok "$f ticks differ"
    done
    echo "determinism: $((compared - differing)) passed, $differing failed"
}

# smoke NAME WANT-STATUS WANT-STDOUT ARGS...: exact stdout and exit status of wasmdbg.
smoke() {
    local name=$1 want_status=$2 want=$3 status=0
    shift 3
    printf '%s' "$want" >"$logs/smoke-$name.want"
    build/release/wasmdbg "$@" >"$logs/smoke-$name.out" 2>"$logs/smoke-$name.err" || status=$?
    if cmp -s "$logs/smoke-$name.want" "$logs/smoke-$name.out" && [ $status -eq "$want_status" ]
    then
        one_test yes ""
        return
    fi
    echo "   smoke $name: wasmdbg $*: exit $status (want $want_status); stdout diff:"
    diff "$logs/smoke-$name.want" "$logs/smoke-$name.out" | head -n 10 | sed 's/^/     /'
    sed 's/^/     stderr: /' "$logs/smoke-$name.err" | head -n 5
    one_test no "smoke $name"
}

smoke_tests() {
    note "wasmdbg invoke smoke tests"
    local before_passed=$passed before_failed=$failed k=kernels/fib.wasm fast step
    smoke div 0 $'i32:3\nticks: 4\n' invoke $k div 7 2
    smoke div-text 0 $'i32:-3\nticks: 4\n' invoke kernels/fib.wat div -- -7 i32:2
    smoke trap 1 $'trap: integer divide by zero in div at 0x8f\nticks: 3\n' invoke $k div 1 0
    smoke max-ticks 1 $'out of ticks after 3 ticks\n' invoke --max-ticks 3 $k div 7 2
    printf '{"name": "slow-div", "base": "flat-1", "costs": {"i32.div_s": 10}}\n' \
        >"$logs/slow-div.json"
    smoke tick-model 0 $'i32:3\nticks: 13\n' invoke --tick-model "$logs/slow-div.json" $k div 7 2
    smoke no-export 2 '' invoke $k nosuch
    smoke bad-arg 2 '' invoke $k div 1 x
    # Loops and branches: the results, and the same output one instruction at a time.
    fast=$(build/release/wasmdbg invoke $k fib 20 2>&1)
    step=$(build/release/wasmdbg invoke --step $k fib 20 2>&1)
    [[ $fast == $'i32:6765\nticks: '* ]] && [ "$fast" = "$step" ] && ok=yes || ok=no
    one_test $ok "fib 20 with and without --step: [$fast] vs [$step]"
    fast=$(build/release/wasmdbg invoke $k fib_iter 90 2>&1)
    step=$(build/release/wasmdbg invoke --step $k fib_iter 90 2>&1)
    [[ $fast == $'i64:2880067194370816120\nticks: '* ]] && [ "$fast" = "$step" ] && ok=yes || ok=no
    one_test $ok "fib_iter 90 with and without --step: [$fast] vs [$step]"
    echo "smoke: $((passed - before_passed)) passed, $((failed - before_failed)) failed"
}

note "deps"
sh tests/deps.sh || one_test no "tests/deps.sh could not install the dependencies"

if build release BUILD=release build/release/unit_tests build/release/spec_runner \
    build/release/wasmdbg build/release/pvmsteps; then
    run unit-release build/release/unit_tests
    run spec-release bash tests/spec/run.sh build/release/spec_runner \
        --ticks-log "$logs/ticks-release.log"
    release_line=$(tail -n 1 "$logs/spec-release.log")
    note "spec-single-step"
    step_line=$(spec_quiet spec-single-step build/release/spec_runner --single-step \
        --ticks-log "$logs/ticks-step.log")
    echo "$step_line"
    note "spec-no-fuse (one step per WebAssembly instruction, unfused code)"
    nofuse_line=$(spec_quiet spec-no-fuse build/release/spec_runner --single-step --no-fuse \
        --ticks-log "$logs/ticks-nofuse.log")
    echo "$nofuse_line"
    [ "$nofuse_line" = "$release_line" ] && ok=yes || ok=no
    one_test $ok "the --no-fuse spec counts differ from release's"
    if build switch BUILD=switch build/switch/spec_runner build/switch/wasmdbg; then
        note "spec-switch"
        switch_line=$(spec_quiet spec-switch build/switch/spec_runner \
            --ticks-log "$logs/ticks-switch.log")
        echo "$switch_line"
        [ "$switch_line" = "$release_line" ] && ok=yes || ok=no
        one_test $ok "the switch build's spec counts differ from release's"
    fi
    [ "$step_line" = "$release_line" ] && ok=yes || ok=no
    one_test $ok "the --single-step spec counts differ from release's"
    determinism
fi

if build asan BUILD=asan build/asan/unit_tests build/asan/spec_runner build/asan/wasmdbg \
    fuzz-replay; then
    export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1
    run unit-asan build/asan/unit_tests
    run spec-asan bash tests/spec/run.sh build/asan/spec_runner
    run golden-asan bash tests/golden/run.sh build/asan/wasmdbg
    run repl-asan bash tests/repl/run.sh build/asan/wasmdbg
    run profile-asan bash tests/profile/run.sh build/asan/wasmdbg
    run budget-asan bash tests/budget/run.sh build/asan/wasmdbg
    run octez-runs-asan bash tests/octez/run.sh build/asan/wasmdbg
    run regress-asan bash tests/regress/run.sh build/asan
fi

if build debug BUILD=debug build/debug/unit_tests; then
    run unit-debug build/debug/unit_tests
fi

build clang CC=clang O=build/clang build/clang/wasmdbg build/clang/unit_tests \
    build/clang/spec_runner fuzz-replay && one_test yes ""

if [ -x build/release/wasmdbg ]; then
    smoke_tests
    run golden-release bash tests/golden/run.sh build/release/wasmdbg
    run repl-release bash tests/repl/run.sh build/release/wasmdbg
    run profile-release bash tests/profile/run.sh build/release/wasmdbg
    run budget-release bash tests/budget/run.sh build/release/wasmdbg
    run install-release bash tests/install/run.sh build/release/wasmdbg
    run regress-release bash tests/regress/run.sh build/release --cases
    run octez-phases bash tests/octez/phases.sh build/release/pvmsteps
    run octez-truth bash tests/octez/py.sh tests/octez/truth.py build/release/wasmdbg \
        "${WD_SHARED_DIR:-../shared}/reference/octez-ticks/truth.json"
    run octez-calls bash tests/octez/py.sh tests/octez/calls.py build/release/wasmdbg
    run octez-hand bash tests/octez/py.sh tests/octez/hand.py build/release/wasmdbg
    run octez-runs bash tests/octez/run.sh build/release/wasmdbg
    switch_bin=()
    [ -x build/switch/wasmdbg ] && switch_bin=(build/switch/wasmdbg)
    run octez-determinism bash tests/octez/determinism.sh build/release/wasmdbg \
        "${switch_bin[@]}"
    note "timings file"
    build/release/wasmdbg run "${WD_SHARED_DIR:-../shared}/kernels/debug_kernel.wasm" \
        --inputs "${WD_SHARED_DIR:-../shared}/kernels/empty-two-levels.inputs.json" \
        --timings-file "$logs/timings.jsonl" >/dev/null 2>&1
    grep -Eq '^\{"elapsed":\{"secs":[0-9.]+,"nanos":[0-9.e+]+\},"message":"hellohello"\}$' \
        "$logs/timings.jsonl" && ok=yes || ok=no
    one_test $ok "--timings-file did not write the debug line as JSON"
    DIFF_SEED=${DIFF_SEED:-1} run difftest bash tests/difftest/run.sh build/release/wasmdbg 30 10
fi

run fuzz bash tests/fuzz/run.sh --seconds 2

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
