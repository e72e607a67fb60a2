# bash completion for gpuplan                                          -*- shell-script -*-
# Installed as share/bash-completion/completions/gpuplan (bash-completion loads it on first use;
# `source` works too). Completes commands, subcommands, options and their fixed values, read
# from gpuplan's own --help so they follow the binary; saved scenario names and node names
# from `gpuplan scenario list --names` and `gpuplan node list --names`, asked only when the
# database already exists (completing never creates one); files where a file is expected.

# The gpuplan being completed: the word typed, when it runs, else the one on PATH.
_gpuplan_prog() {
    local p=${1/#\~/$HOME}
    if [[ $p == */* && -x $p ]] || type -P -- "$p" >/dev/null 2>&1; then
        printf '%s\n' "$p"
    else
        printf 'gpuplan\n'
    fi
}

# The usage lines of COMMAND [SUB] from its --help: the first block, narrowed to SUB's lines
# (a line naming "gpuplan COMMAND SUB" and the continuation lines under it).
_gpuplan_usage() { # prog command [sub]
    local whole own
    whole=$("$1" "$2" --help 2>/dev/null)
    awk -v cmd="$2" -v s="$3" '
        !NF { exit }
        index($0, "gpuplan " cmd " ") { keep = (s == "" || $0 ~ ("gpuplan " cmd " " s "( |$)")) }
        s == "" || keep { print }' <<<"$whole"
    # a subcommand with a help of its own (scenario draft, scenario measure)
    if [[ -n $3 ]] && own=$("$1" "$2" "$3" --help 2>/dev/null) && [[ $own != "$whole" ]]; then
        awk '!NF { exit } { print }' <<<"$own"
    fi
}

# Saved scenario names (kind "scenario") or node names (kind "node"), escaped as typed.
_gpuplan_names() { # prog kind db
    local db=${3:-${GPUPLAN_DB:-${XDG_DATA_HOME:-$HOME/.local/share}/gpuplan/gpuplan.db}}
    db=${db/#\~/$HOME}
    [[ -f $db ]] || return 0
    local IFS=$'\n' n q
    local -a names
    names=($("$1" --db "$db" "$2" list --names 2>/dev/null))
    for n in "${names[@]}"; do
        if [[ $cur == [\"\']* ]]; then # inside quotes: the name as it is
            [[ $n == "${cur:1}"* ]] && COMPREPLY+=("$n")
        else
            printf -v q '%q' "$n"
            [[ $q == "$cur"* ]] && COMPREPLY+=("$q")
        fi
    done
}

_gpuplan_files() { # [ext]
    if declare -F _filedir >/dev/null; then
        _filedir ${1:+"$1"}
    else
        compopt -o filenames 2>/dev/null
        local IFS=$'\n'
        if [[ -n $1 ]]; then
            COMPREPLY+=($(compgen -d -- "$cur") $(compgen -f -X "!*.$1" -- "$cur"))
        else
            COMPREPLY+=($(compgen -f -- "$cur"))
        fi
    fi
}

_gpuplan() {
    local cur prev words cword
    if declare -F _init_completion >/dev/null; then
        _init_completion -n : || return
    else
        cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
        words=("${COMP_WORDS[@]}") cword=$COMP_CWORD
    fi
    COMPREPLY=()
    local prog i cmd= ci=0 sub= db=
    prog=$(_gpuplan_prog "${words[0]}")
    for ((i = 1; i < cword; i++)); do
        case ${words[i]} in
        --db) [[ -z $cmd ]] && db=${words[i + 1]} && ((i++)) ;;
        --db=*) [[ -z $cmd ]] && db=${words[i]#--db=} ;;
        -*) ;;
        *) [[ -z $cmd ]] && cmd=${words[i]} && ci=$i ;;
        esac
    done

    if [[ -z $cmd ]]; then
        case $prev in
        --db) _gpuplan_files; return ;;
        esac
        if [[ $cur == -* ]]; then
            COMPREPLY=($(compgen -W '--db --demo --quiet --version --help' -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$("$prog" --help 2>/dev/null |
                awk '/^commands:/ { f = 1; next } f && !NF { exit } f { print $1 }')" -- "$cur"))
        fi
        return
    fi

    # The subcommand: right after the command, for the commands that have them.
    local subs
    subs=$("$prog" "$cmd" --help 2>/dev/null | grep -oE "gpuplan $cmd [a-z]+( |$)" | awk '{ print $3 }' | sort -u)
    if [[ -n $subs ]]; then
        if ((cword == ci + 1)); then
            COMPREPLY=($(compgen -W "$subs --help" -- "$cur"))
            return
        fi
        sub=${words[ci + 1]}
    fi
    local usage
    usage=$(_gpuplan_usage "$prog" "$cmd" "$sub")

    # The value of an option.
    if [[ $prev == -* ]]; then
        case $prev in
        -o | --output | --cacert | --token-file) _gpuplan_files; return ;;
        --node) _gpuplan_names "$prog" node "$db"; return ;;
        --mix | --scenario) _gpuplan_names "$prog" scenario "$db"; _gpuplan_files json; return ;;
        --format)
            if [[ $cmd == pricing ]]; then
                COMPREPLY=($(compgen -W 'gpuplan skypilot ec2instances aws-offer gcp-skus gcp-cud' -- "$cur"))
                return
            fi ;;
        esac
        local values
        values=$(grep -oE -- "$prev [a-z_-]+(\|[a-z_-]+)+" <<<"$usage" | head -1)
        if [[ -n $values ]]; then
            values=${values#"$prev "}
            COMPREPLY=($(compgen -W "${values//|/ }" -- "$cur"))
            return
        fi
        # an option followed by a placeholder takes a value we cannot guess: offer nothing
        grep -qE -- "(^|[ [])$prev [^] [|-]" <<<"$usage" && return
    fi

    local opts
    opts=$({ grep -oE -- '(^|[ [])--?[a-z][a-z0-9-]*' <<<"$usage"; echo --help; } | tr -d ' [' | sort -u)
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts" -- "$cur"))
        return
    fi
    case $cmd:$sub in
    report: | sweep: | sensitivity:) _gpuplan_names "$prog" scenario "$db"; _gpuplan_files json ;;
    scenario:show | scenario:export | scenario:rm | scenario:measure) _gpuplan_names "$prog" scenario "$db" ;;
    scenario:save) _gpuplan_files json ;;
    node:rm | node:test) _gpuplan_names "$prog" node "$db" ;;
    import:nvsmi | import:prom | import:dmon | import:dcmi | pricing:import) _gpuplan_files ;;
    *) COMPREPLY=($(compgen -W "$opts" -- "$cur")) ;;
    esac
    declare -F __ltrim_colon_completions >/dev/null && __ltrim_colon_completions "$cur"
    return 0
}
complete -F _gpuplan gpuplan
