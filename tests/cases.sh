# tests/cases.sh: sourced by the golden, repl and budget runners. One case is NAME.cmd, the
# arguments of a wasmdbg command line (evaluated: $SHARED and $TMP expand), run with stdin
# from INPUT; its stdout and stderr, passed through FILTER, and its exit status must equal
# NAME.out, NAME.err and NAME.status. With update=--update the expected files are rewritten.
# Needs $wasmdbg, $update and $TMP; returns 0 when the case holds (or was rewritten).
run_case() {
    local name=$1 input=$2 filter=$3 status=0 good=yes part
    eval "set -- $(cat "$name.cmd")"
    "$wasmdbg" "$@" <"$input" >"$TMP/raw.out" 2>"$TMP/raw.err" || status=$?
    $filter <"$TMP/raw.out" >"$TMP/out"
    $filter <"$TMP/raw.err" >"$TMP/err"
    echo "$status" >"$TMP/status"
    if [ "$update" = "--update" ]; then
        for part in out err status; do
            cp "$TMP/$part" "$name.$part"
        done
        return 0
    fi
    for part in out err status; do
        if ! cmp -s "$TMP/$part" "$name.$part"; then
            [ $good = yes ] && echo "$name: wasmdbg $(cat "$name.cmd") <$input"
            good=no
            echo "  $part differs:"
            diff "$name.$part" "$TMP/$part" | head -n 12 | sed 's/^/    /'
        fi
    done
    [ $good = yes ]
}
