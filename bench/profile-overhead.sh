#!/usr/bin/env bash
# bench/profile-overhead.sh [WASMDBG]: the cost of `wasmdbg profile` against `wasmdbg run` on
# the same kernel and inputs (DESIGN.md: at most 1.3x), and the peak memory of both.
#   1. tx-kernel-no-verif.wasm over tx-kernel.inputs.json (shared kernels);
#   2. tests/profile/calls.wat: ~10^7 calls (fib 33), the calling-context tree keeping memory
#      bounded (auto mode switches).
# Each command runs N times (default 11; $N), alternating; the median wall time is shown.
set -euo pipefail
cd "$(dirname "$0")/.."
wasmdbg=${1:-build/release/wasmdbg}
shared=${WD_SHARED_DIR:-../shared}
n=${N:-11}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# median of the wall times (seconds) of "$@", N runs; also the peak RSS (KB) of the last.
measure() {
    local times=() i s e
    for ((i = 0; i < n; i++)); do
        s=$(date +%s%N)
        /usr/bin/time -f '%M' -o "$out/rss" "$@" >/dev/null 2>&1
        e=$(date +%s%N)
        times+=("$(((e - s) / 1000))")
    done
    printf '%s %s\n' "$(printf '%s\n' "${times[@]}" | sort -n | sed -n "$(((n + 1) / 2))p" |
        awk '{ printf "%.4f", $1 / 1e6 }')" "$(tail -n 1 "$out/rss")"
}

# compare NAME ARGS...: run vs profile (with and without time).
compare() {
    local name=$1
    shift
    read -r t_run m_run < <(measure "$wasmdbg" run "$@")
    read -r t_prof m_prof < <(measure "$wasmdbg" profile --flamecharts-dir "$out" "$@")
    read -r t_nt m_nt < <(measure "$wasmdbg" profile --without-time --flamecharts-dir "$out" "$@")
    read -r t_cct m_cct < <(measure "$wasmdbg" profile --mode cct --without-time --flamecharts-dir "$out" "$@")
    awk -v name="$name" -v r="$t_run" -v p="$t_prof" -v q="$t_nt" -v c="$t_cct" \
        -v mr="$m_run" -v mp="$m_prof" -v mq="$m_nt" -v mc="$m_cct" 'BEGIN {
        printf "%s\n  run                           %7.3f s  %8d KB\n", name, r, mr
        printf "  profile                       %7.3f s  %8d KB  %.2fx\n", p, mp, p / r
        printf "  profile --without-time        %7.3f s  %8d KB  %.2fx\n", q, mq, q / r
        printf "  profile --mode cct --without-time %5.3f s  %8d KB  %.2fx\n", c, mc, c / r
    }'
}

k=$shared/kernels
compare "tx-kernel-no-verif (tx-kernel.inputs.json)" "$k/tx-kernel-no-verif.wasm" \
    --inputs "$k/tx-kernel.inputs.json" --rollup sr1D7tjtYDmnugNWh8sGW91WJ3TPpCpqX1Dg \
    --no-kernel-debug
echo '[[]]' >"$out/one.json"
n=$(((n + 1) / 2 > 3 ? 3 : n)) compare "tests/profile/calls.wat (fib 33: 11,405,773 calls)" \
    tests/profile/calls.wat --inputs "$out/one.json" --no-kernel-debug
