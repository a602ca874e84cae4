#!/bin/sh
# Runs the WebAssembly spec tests.
#
#   tests/spec/run.sh RUNNER [RUNNER-OPTION...] [NAME...]
#
# Converts each .wast of the spec folder ($WD_SPEC_DIR, else ../shared/spec beside the
# repository) with wast2json into build/spec-json/NAME/ (only when the .wast is newer than
# its JSON), then runs RUNNER (build/*/spec_runner) on all of them in one go, with
# --known tests/spec/known_failures.txt unless another --known is given. NAME selects
# scripts by name (address, or address.wast); the default is every script.
# simd_*.wast scripts are handed over with --skip-file: SIMD is a later issue, so their
# commands count as skipped. Options (anything starting with -) go to the runner.
# Exit status: the runner's, or 1 when a script cannot be converted.
set -u

root=$(cd "$(dirname "$0")/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: $0 RUNNER [RUNNER-OPTION...] [NAME...]" >&2; exit 2; }
runner=$1
shift
spec_dir=${WD_SPEC_DIR:-$root/../shared/spec}
out=$root/build/spec-json

if [ ! -d "$spec_dir" ]; then
    echo "spec: no spec test folder at $spec_dir (set WD_SPEC_DIR)"
    echo "spec: 0 passed, 1 failed, 0 skipped"
    exit 1
fi
command -v wast2json >/dev/null 2>&1 || {
    echo "spec: wast2json is missing (make deps installs wabt)"
    echo "spec: 0 passed, 1 failed, 0 skipped"
    exit 1
}

# Split the arguments into runner options and script names, keeping their order. The
# runner's arguments are rebuilt in "$@" (POSIX sh has no arrays).
names=""
known_given=no
n=$#
i=0
while [ $i -lt $n ]; do
    a=$1
    shift
    i=$((i + 1))
    case $a in
    --ticks-log | --known | --skip-file)
        [ "$a" = --known ] && known_given=yes
        set -- "$@" "$a" "$1"
        shift
        i=$((i + 1))
        ;;
    -*) set -- "$@" "$a" ;;
    *) names="$names $(basename "$a" .wast)" ;;
    esac
done
if [ $known_given = no ]; then
    set -- "$@" --known "$root/tests/spec/known_failures.txt"
fi
if [ -z "$names" ]; then
    for w in "$spec_dir"/*.wast; do
        names="$names $(basename "$w" .wast)"
    done
fi

failed_conversions=0
simd_files=0
for name in $names; do
    w=$spec_dir/$name.wast
    d=$out/$name
    json=$d/$name.json
    if [ ! -f "$w" ]; then
        echo "spec: no such script: $w"
        failed_conversions=$((failed_conversions + 1))
        continue
    fi
    if [ ! -f "$json" ] || [ "$w" -nt "$json" ]; then
        rm -rf "$d"
        mkdir -p "$d"
        # wast2json may print an error yet exit 0: any stderr output counts as a failure.
        if ! wast2json "$w" -o "$json" 2>"$d/wast2json.err" || [ -s "$d/wast2json.err" ]; then
            echo "spec: wast2json failed on $w:"
            head -5 "$d/wast2json.err"
            rm -f "$json"
            failed_conversions=$((failed_conversions + 1))
            continue
        fi
    fi
    case $name in
    simd_*)
        simd_files=$((simd_files + 1))
        set -- "$@" --skip-file "$json"
        ;;
    *) set -- "$@" "$json" ;;
    esac
done

if [ $simd_files -gt 0 ]; then
    echo "spec: $simd_files simd_*.wast scripts skipped (SIMD is a later issue)"
fi
status=0
"$runner" "$@" || status=$?
if [ $failed_conversions -gt 0 ]; then
    # keep the runner's line last: the conversion failures were reported above
    status=1
fi
exit $status
