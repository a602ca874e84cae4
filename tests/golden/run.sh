#!/usr/bin/env bash
# tests/golden/run.sh WASMDBG [--update]: runs every tests/golden/NAME.cmd (the arguments of
# one wasmdbg command line; $SHARED is the shared folder, ../shared or $WD_SHARED_DIR) and
# compares its stdout, stderr and exit status with NAME.out, NAME.err and NAME.status.
# Outputs carry tick counts, so any cost change shows as a diff to review. --update
# rewrites the expected files (make golden-update).
set -uo pipefail
cd "$(dirname "$0")/../.."
wasmdbg=$1
update=${2:-}
SHARED=${WD_SHARED_DIR:-../shared}
export SHARED
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
passed=0
failed=0
for cmd in tests/golden/*.cmd; do
    name=${cmd%.cmd}
    eval "set -- $(cat "$cmd")"
    status=0
    "$wasmdbg" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || status=$?
    echo "$status" >"$tmp/status"
    if [ "$update" = "--update" ]; then
        cp "$tmp/out" "$name.out"
        cp "$tmp/err" "$name.err"
        cp "$tmp/status" "$name.status"
        passed=$((passed + 1))
        continue
    fi
    ok=yes
    for part in out err status; do
        if ! cmp -s "$tmp/$part" "$name.$part"; then
            [ $ok = yes ] && echo "$name: wasmdbg $(cat "$cmd")"
            ok=no
            echo "  $part differs:"
            diff "$name.$part" "$tmp/$part" | head -n 12 | sed 's/^/    /'
        fi
    done
    if [ $ok = yes ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
done
echo "golden: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
