#!/bin/sh
# Installs what the build and the tests need, when missing, on Debian 12:
#   wabt            wast2json, wat2wasm (spec test scripts, text modules)
#   libjansson-dev  JSON (tick models, inputs, reports)
#   libsodium-dev   Blake2b, SHA-256 (the PVM's hashes; the Makefile links -lsodium)
#   clang           the test run's clang build (and, later, C kernels)
#   libclang-rt-dev clang's runtime libraries, libFuzzer's among them (libclang_rt.fuzzer:
#                   the fuzz targets, tests/fuzz; libclang-rt-14-dev on Debian 12)
#   libiberty-dev   the demangler of Rust and C++ symbols in profiles (-liberty)
#   libedit-dev     the REPL's line editing, history and completion (-ledit)
#   tmux            the REPL's test in a real terminal (tests/repl/run.sh)
#   zsh             the check that the zsh completion is valid zsh (tests/install/run.sh)
#   python3         the Octez tick model and the tests against it (tests/octez)
#   binaryen        wasm-opt, the random modules of the differential test (tests/difftest)
#   nodejs          V8, one of the engines the differential test compares wasmdbg with
#   chromium        the flamegraph SVG's zoom and search check in headless chromium
#                   (tests/profile/run.sh)
# Quiet when everything is there. Uses sudo when not root and sudo exists.
set -eu

missing=""
command -v wast2json >/dev/null 2>&1 && command -v wat2wasm >/dev/null 2>&1 ||
    missing="$missing wabt"
[ -f /usr/include/jansson.h ] || missing="$missing libjansson-dev"
[ -f /usr/include/sodium.h ] || missing="$missing libsodium-dev"
[ -f /usr/include/libiberty/demangle.h ] || missing="$missing libiberty-dev"
[ -f /usr/include/editline/readline.h ] || missing="$missing libedit-dev"
command -v tmux >/dev/null 2>&1 || missing="$missing tmux"
command -v zsh >/dev/null 2>&1 || missing="$missing zsh"
command -v python3 >/dev/null 2>&1 || missing="$missing python3"
command -v wasm-opt >/dev/null 2>&1 || missing="$missing binaryen"
command -v node >/dev/null 2>&1 || missing="$missing nodejs"
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 ||
    missing="$missing chromium"
command -v clang >/dev/null 2>&1 || missing="$missing clang"
# libFuzzer: beside clang's other runtime libraries
fuzzer=$(clang -print-file-name="libclang_rt.fuzzer-$(uname -m).a" 2>/dev/null)
case $fuzzer in /*) [ -f "$fuzzer" ] ;; *) false ;; esac || missing="$missing libclang-rt-dev"
command -v cc >/dev/null 2>&1 && command -v make >/dev/null 2>&1 ||
    missing="$missing build-essential"

[ -z "$missing" ] && exit 0

sudo=""
if [ "$(id -u)" != 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
        sudo="sudo"
    else
        echo "deps: missing:$missing; run as root: apt-get install$missing" >&2
        exit 1
    fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "deps: missing:$missing (no apt-get here: install them by hand)" >&2
    exit 1
fi
echo "deps: installing$missing"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
# shellcheck disable=SC2086 # the package list is meant to split
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
