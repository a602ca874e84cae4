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
TMP=$(mktemp -d)
export TMP
trap 'rm -rf "$TMP"' EXIT
. tests/cases.sh
passed=0
failed=0
for cmd in tests/golden/*.cmd; do
    if run_case "${cmd%.cmd}" /dev/null cat; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
done
echo "golden: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
