# bash completion for wasmdbg (installed as share/bash-completion/completions/wasmdbg).
# Commands, each command's options (from `wasmdbg COMMAND --help`; tests/install/run.sh
# checks they agree) and files by what the option takes: kernels (.wasm .wat .wast .hex),
# JSON files, directories.

_wasmdbg_files()
{
    # $1: the extensions, as a regular expression (wasm|wat); directories are offered too.
    local IFS=$'\n' f
    compopt -o filenames 2>/dev/null
    COMPREPLY=()
    for f in $(compgen -f -- "$cur"); do
        if [ -d "$f" ] || [[ $f =~ \.($1)$ ]]; then
            COMPREPLY+=("$f")
        fi
    done
}

_wasmdbg_dirs()
{
    local IFS=$'\n'
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -d -- "$cur"))
}

_wasmdbg_any_file()
{
    local IFS=$'\n'
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
}

_wasmdbg()
{
    local cur prev cmd i
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=
    [ "$COMP_CWORD" -gt 0 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
    COMPREPLY=()

    local commands='run profile report debug budget diff invoke'
    local pvm='--kernel --inputs --rollup --preimage-dir --dal-pages-dir -p --pvm-version
        --no-kernel-debug --timings-file --installer-config --flamecharts-dir --tick-model
        --ticks-per-snapshot --max-ticks --no-fuse'

    # The command: the first word after wasmdbg that is not an option or an option's value.
    cmd=
    for ((i = 1; i < COMP_CWORD; i++)); do
        case ${COMP_WORDS[i]} in
        run | profile | report | debug | budget | diff | invoke)
            cmd=${COMP_WORDS[i]}
            break
            ;;
        -*) ;;
        *)
            cmd=debug # wasmdbg KERNEL ... is the debugger
            break
            ;;
        esac
    done

    # An option's value.
    case $prev in
    --kernel)
        _wasmdbg_files 'wasm|wat|wast|hex'
        return
        ;;
    --inputs | --budget)
        _wasmdbg_files json
        return
        ;;
    --tick-model)
        _wasmdbg_files json
        COMPREPLY+=($(compgen -W 'pvm flat-1' -- "$cur"))
        return
        ;;
    --installer-config)
        _wasmdbg_files 'yaml|yml|json'
        return
        ;;
    -o | --flamecharts-dir | --preimage-dir | --dal-pages-dir)
        _wasmdbg_dirs
        return
        ;;
    --timings-file | --record | -x | --folded-old | --folded-new)
        _wasmdbg_any_file
        return
        ;;
    --junit)
        _wasmdbg_files xml
        return
        ;;
    --svg)
        _wasmdbg_files svg
        return
        ;;
    -p | --pvm-version)
        COMPREPLY=($(compgen -W '2.0.0 2.0.0-r1 2.0.0-r2 2.0.0-r3 2.0.0-r4 2.0.0-r5
            2.0.0-r6' -- "$cur"))
        return
        ;;
    --mode)
        COMPREPLY=($(compgen -W 'full cct auto' -- "$cur"))
        return
        ;;
    --rollup | --name | --ticks-per-snapshot | --max-ticks | --max-depth | --full-limit | \
        --tolerance | --functions)
        return # a value to type
        ;;
    esac

    if [ -z "$cmd" ]; then
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '--help --version --kernel' -- "$cur"))
        else
            _wasmdbg_files 'wasm|wat|wast|hex' # wasmdbg KERNEL: the debugger
            COMPREPLY+=($(compgen -W "$commands" -- "$cur"))
        fi
        return
    fi

    local opts
    case $cmd in
    run) opts="$pvm --json --without-time --fail-on-stuck" ;;
    profile)
        opts="$pvm --collapsed --without-time --no-reboot --max-depth --mode --full-limit -o
            --name --json --record --fail-on-stuck"
        ;;
    report) opts='-o --flamecharts-dir --collapsed --max-depth --mode --json' ;;
    debug) opts="$pvm -x -o --echo" ;;
    budget)
        opts="$pvm --budget --json --github --junit --tolerance --functions"
        ;;
    diff) opts='--json --all --svg --folded-old --folded-new' ;;
    invoke) opts='--tick-model --max-ticks --step --memory-hash' ;;
    esac

    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts --help" -- "$cur"))
        return
    fi

    # Positional arguments.
    case $cmd in
    budget)
        local sub=
        for ((i = i + 1; i < COMP_CWORD; i++)); do
            case ${COMP_WORDS[i]} in
            check | update) sub=${COMP_WORDS[i]} ;;
            esac
        done
        if [ -z "$sub" ]; then
            COMPREPLY=($(compgen -W 'check update' -- "$cur"))
            return
        fi
        _wasmdbg_files 'wasm|wat|wast|hex'
        ;;
    run | profile | debug) _wasmdbg_files 'wasm|wat|wast|hex' ;;
    invoke) _wasmdbg_files 'wasm|wat|wast' ;;
    diff) _wasmdbg_files json ;;
    report) _wasmdbg_any_file ;;
    esac
}

complete -F _wasmdbg wasmdbg
