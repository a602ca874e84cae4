#!/usr/bin/env bash
# tests/install/run.sh WASMDBG: `make install` and `make uninstall` as a packager runs them.
#
#   1. `make -C REPO install DESTDIR=TMP PREFIX=/usr` installs exactly the binary, the man
#      page(s) and the bash and zsh completions, with modes 755 and 644.
#   2. The installed binary runs: `--help` exits 0; `run` of the example kernel exits 0 and
#      ends with the same totals as WASMDBG (the binary under test, which `make test` built).
#   3. The man page renders without a warning (groff -ww, else man --warnings, else
#      mandoc -Tlint; with none of them its macros are checked and the render is skipped).
#   4. The man page and the help texts agree: its commands are those of `wasmdbg --help`;
#      the options it lists (the tags of its .TP paragraphs) under a command, with its PVM
#      OPTIONS for run, profile, debug and budget, are exactly those of `wasmdbg CMD --help`;
#      its global OPTIONS are those `wasmdbg --help` names.
#   5. The bash completion loads (`complete -p wasmdbg`), completes `wasmdbg pro<TAB>` to
#      profile, the commands, and each command's options to exactly its help's (plus
#      --help), `--inputs` to .json files and directories, `-o` to directories only.
#   6. The zsh completion is valid zsh (zsh -n; skipped when zsh is not installed) and names
#      every option of every help text.
#   7. `make uninstall` with the same DESTDIR and PREFIX leaves no file behind.
# One line per check, `ok ...` or `FAIL ...` (`skip ...: reason`); the last line is
# `N passed, N failed[, N skipped]`; exit status 1 when a check failed.
set -uo pipefail

if [ $# -ne 1 ]; then
    echo "usage: tests/install/run.sh WASMDBG" >&2
    exit 2
fi
built=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
cd "$(dirname "$0")/../.." || exit 2
repo=$PWD
tmp=$(mktemp -d "${TMPDIR:-/tmp}/wasmdbg-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dest=$tmp/dest
work=$tmp/work
mkdir -p "$dest" "$work"
passed=0
failed=0
skipped=0

ok() {
    echo "ok $*"
    passed=$((passed + 1))
}
fail() {
    echo "FAIL $*"
    failed=$((failed + 1))
}
skip() {
    echo "skip $*"
    skipped=$((skipped + 1))
}
# check NAME CONDITION-COMMAND...: ok when the command succeeds.
check() {
    local name=$1
    shift
    if "$@"; then ok "$name"; else fail "$name"; fi
}
# same NAME EXPECTED ACTUAL: ok when the two (sorted word lists) are equal, else the
# difference.
same() {
    local name=$1 missing extra
    missing=$(comm -23 <(tr ' ' '\n' <<<"$2" | grep . | sort -u) \
        <(tr ' ' '\n' <<<"$3" | grep . | sort -u) | tr '\n' ' ')
    extra=$(comm -13 <(tr ' ' '\n' <<<"$2" | grep . | sort -u) \
        <(tr ' ' '\n' <<<"$3" | grep . | sort -u) | tr '\n' ' ')
    if [ -z "$missing$extra" ]; then
        ok "$name"
    else
        fail "$name: missing: ${missing:-none}; extra: ${extra:-none}"
    fi
}

# make_target TARGET: `make TARGET` into the staging directory, one test (its log's end
# shown when it fails).
make_target() {
    if make -C "$repo" --no-print-directory "$1" DESTDIR="$dest" PREFIX=$prefix \
        >"$tmp/$1.log" 2>&1; then
        ok "make $1 DESTDIR=... PREFIX=$prefix"
    else
        fail "make $1 DESTDIR=... PREFIX=$prefix (log:)"
        sed 's/^/    /' "$tmp/$1.log" | tail -n 20
    fi
}

# 1. make install
prefix=/usr
bin=$dest$prefix/bin/wasmdbg
man1=$dest$prefix/share/man/man1
bashcomp=$dest$prefix/share/bash-completion/completions/wasmdbg
zshcomp=$dest$prefix/share/zsh/site-functions/_wasmdbg
make_target install
pages=$(cd man && ls -- *.1 2>/dev/null | tr '\n' ' ' | sed 's/ $//')
expected="$bin $bashcomp $zshcomp"
for p in $pages; do
    expected+=" $man1/$p"
done
same "install puts exactly the binary, $pages and the completions" "$expected" \
    "$(find "$dest" -type f | tr '\n' ' ')"
modes_ok() {
    [ "$(stat -c %a "$bin")" = 755 ] || return 1
    local f
    for f in "$bashcomp" "$zshcomp" "$man1"/*.1; do
        [ "$(stat -c %a "$f")" = 644 ] || return 1
    done
}
check "installed modes: binary 755, man page and completions 644" modes_ok

# 2. The installed binary runs.
check "installed wasmdbg --help exits 0" eval '"$bin" --help >"$tmp/help.top" 2>&1'
run_ok() {
    "$bin" run kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json \
        --no-kernel-debug >"$tmp/run.out" 2>&1 || return 1
    "$built" run kernels/counter/counter.wasm --inputs kernels/counter/counter.inputs.json \
        --no-kernel-debug >"$tmp/run.expected" 2>&1 || return 1
    local total
    total=$(grep '^total: ' "$tmp/run.out") || return 1
    [ "$total" = "$(grep '^total: ' "$tmp/run.expected")" ]
}
check "installed wasmdbg runs the example kernel (exit 0, the same totals as $1)" run_ok

# 3. The man page renders without warnings.
for p in $pages; do
    page=$man1/$p
    if command -v groff >/dev/null; then
        if groff -man -Tutf8 -ww -z "$page" >"$tmp/render.err" 2>&1 && [ ! -s "$tmp/render.err" ]; then
            ok "man page $p renders without warnings (groff -man -ww)"
        else
            fail "man page $p renders with warnings (groff -man -ww): $(head -n 3 "$tmp/render.err")"
        fi
    elif command -v man >/dev/null; then
        if MANWIDTH=80 man --warnings -l "$page" >/dev/null 2>"$tmp/render.err" &&
            [ ! -s "$tmp/render.err" ]; then
            ok "man page $p renders without warnings (man --warnings -l)"
        else
            fail "man page $p renders with warnings (man -l): $(head -n 3 "$tmp/render.err")"
        fi
    elif command -v mandoc >/dev/null; then
        if mandoc -man -Tlint -Wwarning "$page" >"$tmp/render.err" 2>&1; then
            ok "man page $p renders without warnings (mandoc -Tlint)"
        else
            fail "man page $p: mandoc -Tlint: $(head -n 3 "$tmp/render.err")"
        fi
    else
        skip "rendering man page $p: none of groff, man or mandoc is installed"
        # Without a formatter, at least the macros: only those of man(7), one .TH first.
        bad=$(grep -n '^\.' "$page" | grep -v -E \
            '^[0-9]+:\.(\\"|TH|SH|SS|PP|LP|P|TP|TQ|IP|RS|RE|B|I|BR|BI|IB|IR|RB|RI|SM|SB|br|sp|EX|EE|UR|UE|nf|fi|in|ad|na|ne)( |$)')
        if [ "$(grep -m1 '^\.[A-Za-z]' "$page" | cut -c1-3)" = .TH ] && [ -z "$bad" ]; then
            ok "man page $p uses only man(7) macros, .TH first"
        else
            fail "man page $p: unknown macros: $bad"
        fi
    fi
done

# 4. Man page versus help texts.
# help_opts CMD: the options a help text lists (lines that start with an option).
help_opts() {
    "$bin" "$1" --help 2>/dev/null | grep -E '^ +-' | sed -E 's/^ +//; s/ {2,}.*//' |
        tr ',' '\n' | sed -E 's/^ +//; s/ .*//' | grep -E '^--?[A-Za-z]' | sort -u | tr '\n' ' '
}
# man_opts KEY: the options the man page lists under KEY: a command's name, `pvm` (PVM
# OPTIONS) or `top` (OPTIONS): the tags of .TP/.TQ paragraphs, roff escapes removed.
man_opts() {
    awk -v key="$1" '
        /^\.SH/ {
            sh = $0; sub(/^\.SH +/, "", sh); gsub(/"/, "", sh)
            sect = sh == "OPTIONS" ? "top" : sh == "PVM OPTIONS" ? "pvm" : sh == "COMMANDS" ? "" : "-"
            next
        }
        /^\.SS/ && sect != "top" && sect != "pvm" && sect != "-" {
            ss = $0; gsub(/"/, "", ss); split(ss, w, " "); sect = w[3]; next
        }
        /^\.T[PQ]/ { tag = 1; next }
        tag {
            tag = 0
            line = $0
            gsub(/\\f[BIRP]/, "", line); gsub(/\\-/, "-", line); gsub(/"/, " ", line)
            sub(/^\.[A-Z]+ */, "", line)
            n = split(line, w, /[ ,|]+/)
            for (i = 1; i <= n; i++)
                if (sect == key && w[i] ~ /^--?[A-Za-z]/) print w[i]
        }' "$man1/wasmdbg.1" | sort -u | tr '\n' ' '
}
help_commands=$(sed -n '/^commands:/,/^$/p' "$tmp/help.top" | grep -E '^  [a-z]+ ' |
    awk '{print $1}' | tr '\n' ' ')
man_commands=$(grep -E '^\.SS "?wasmdbg [a-z]+' "$man1/wasmdbg.1" | awk '{print $3}' | tr '\n' ' ')
same "man page: the commands of wasmdbg --help" "$help_commands" "$man_commands"
same "man page: the global options of wasmdbg --help" \
    "$(grep -E '^ +wasmdbg ' "$tmp/help.top" | grep -oE -- '--[a-z-]+' | tr '\n' ' ')" \
    "$(man_opts top)"
pvm=$(man_opts pvm)
for cmd in $help_commands; do
    listed=$(man_opts "$cmd")
    case $cmd in
    run | profile | debug | budget) listed="$listed $pvm" ;;
    esac
    same "man page: the options of wasmdbg $cmd --help" "$(help_opts "$cmd")" "$listed"
done

# 5. bash completion.
if bash -c 'source "$1" && complete -p wasmdbg' _ "$bashcomp" >"$tmp/complete.out" 2>&1 &&
    grep -q -- '-F _wasmdbg wasmdbg' "$tmp/complete.out"; then
    ok "bash completion loads: $(cat "$tmp/complete.out")"
else
    fail "bash completion does not load: $(head -n 3 "$tmp/complete.out")"
fi
# complete WORD...: what the completion offers for the last word, run in $work.
complete_bash() {
    (cd "$work" && bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
        COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; _wasmdbg; printf "%s\n" "${COMPREPLY[@]}"' \
        _ "$bashcomp" "$@" 2>&1 | sort -u | tr '\n' ' ')
}
same "bash: wasmdbg pro<TAB> completes to profile" "profile" "$(complete_bash wasmdbg pro)"
same "bash: wasmdbg <TAB> offers the commands" "$help_commands" "$(complete_bash wasmdbg '')"
for cmd in $help_commands; do
    same "bash: wasmdbg $cmd -<TAB> offers the options of its --help" \
        "$(help_opts "$cmd") --help" "$(complete_bash wasmdbg "$cmd" -)"
done
mkdir -p "$work/dir"
touch "$work/k.wasm" "$work/k.wat" "$work/in.json" "$work/notes.txt"
same "bash: wasmdbg run <TAB> offers kernels and directories" "dir k.wasm k.wat" \
    "$(complete_bash wasmdbg run '')"
same "bash: --inputs <TAB> offers .json files and directories" "dir in.json" \
    "$(complete_bash wasmdbg run k.wasm --inputs '')"
same "bash: profile -o <TAB> offers directories only" "dir" \
    "$(complete_bash wasmdbg profile k.wasm -o '')"

# 6. zsh completion.
if command -v zsh >/dev/null; then
    if zsh -n "$zshcomp" >"$tmp/zsh.err" 2>&1; then
        ok "zsh completion is valid zsh (zsh -n)"
    else
        fail "zsh completion: zsh -n: $(head -n 3 "$tmp/zsh.err")"
    fi
else
    skip "zsh completion syntax: zsh is not installed"
fi
missing=
for cmd in $help_commands; do
    for opt in $(help_opts "$cmd"); do
        grep -q -E -- "([\"'{,]|^ *)$opt(\\[|[,}])" "$zshcomp" || missing+=" $cmd:$opt"
    done
done
if [ -z "$missing" ]; then
    ok "zsh completion names every option of the help texts"
else
    fail "zsh completion lacks:$missing"
fi

# 7. make uninstall.
make_target uninstall
same "make uninstall leaves no file behind" "" "$(find "$dest" -type f | tr '\n' ' ')"

if [ "$skipped" -gt 0 ]; then
    echo "$passed passed, $failed failed, $skipped skipped"
else
    echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
