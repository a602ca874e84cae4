#!/usr/bin/env bash
# tests/octez/py.sh SCRIPT ARGS...: runs a Python test of this folder, or, without python3,
# reports it skipped with that reason (its closing line `0 passed, 0 failed, 1 skipped`).
if ! command -v python3 >/dev/null 2>&1; then
    echo "skipped $1: python3 is not installed (apt-get install python3)"
    echo "0 passed, 0 failed, 1 skipped"
    exit 0
fi
exec python3 "$@"
