# bash completion for roz                                  -*- shell-script -*-
#
# Installed as share/bash-completion/completions/roz, where bash-completion
# loads it the first time `roz` is completed. It can also be sourced directly
# from ~/.bashrc; it does not need the bash-completion package.

# Session ids: the names of the session files in the store, without .json.
_roz_session_ids()
{
    local dir=${ROZ_STORAGE_PATH:-${ROZ_HOME:-$HOME/.roz}}/sessions
    local f id
    [[ -d $dir ]] || return 0
    for f in "$dir"/*.json; do
        [[ -f $f ]] || continue
        id=${f##*/}
        id=${id%.json}
        [[ $id == "$1"* ]] && COMPREPLY+=("$id")
    done
    return 0
}

# Intent ids of the repository in the current directory, as roz reads them.
_roz_intent_ids()
{
    local ids
    ids=$(roz intent list --json 2>/dev/null | grep -o '"id":"[^"]*"' | cut -d'"' -f4)
    mapfile -t COMPREPLY < <(compgen -W "$ids" -- "$1")
}

# Number of positional arguments before the word being completed, counting
# from the word after the command and skipping the values of options that
# take one (as a separate word).
_roz_count_args()
{
    local takes_value=" $1 " i=$2 n=0 w after_dashdash=''
    while ((i < cword)); do
        w=${words[i]}
        if [[ -n $after_dashdash ]]; then
            ((n++))
        elif [[ $w == -- ]]; then
            after_dashdash=1
        elif [[ $w == -?* ]]; then
            if [[ $w != *=* && $takes_value == *" $w "* ]]; then
                ((i++))
                # "--opt=value" split by COMP_WORDBREAKS: skip "=" too
                [[ ${words[i]} == = ]] && ((i++))
            fi
        else
            ((n++))
        fi
        ((i++))
    done
    echo "$n"
}

_roz()
{
    # split is set by _init_completion -s
    # shellcheck disable=SC2034
    local cur prev words cword split
    if declare -F _init_completion >/dev/null 2>&1; then
        _init_completion -s || return
    else
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
        cur=${COMP_WORDS[COMP_CWORD]}
        prev=
        ((cword > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
        # Without bash-completion, "--opt=value" arrives as three words
        # ("--opt", "=", "value") because "=" is in COMP_WORDBREAKS.
        if [[ $cur == = ]]; then
            cur=
        elif [[ $prev == = ]] && ((cword > 1)); then
            prev=${COMP_WORDS[COMP_CWORD - 2]}
        fi
    fi
    COMPREPLY=()

    local commands="hook decide context list debug trace stats clean doctor intent ledger lesson demo"
    local events="session-start user-prompt pre-tool-use post-tool-use stop subagent-start subagent-stop session-end"

    # Find the command: the first word after `roz` that is not an option.
    local i cmd='' cmd_at=0
    for ((i = 1; i < cword; i++)); do
        if [[ ${words[i]} != -* ]]; then
            cmd=${words[i]}
            cmd_at=$i
            break
        fi
    done

    if [[ -z $cmd ]]; then
        if [[ $cur == -* ]]; then
            mapfile -t COMPREPLY < <(compgen -W "-h --help -V --version" -- "$cur")
        else
            mapfile -t COMPREPLY < <(compgen -W "$commands" -- "$cur")
        fi
        return 0
    fi

    local opts='' valued='' npos
    case $cmd in
        hook)
            opts="-h --help"
            ;;
        decide)
            opts="-m --message -o --opinions --override -h --help"
            valued="-m --message -o --opinions"
            ;;
        context)
            opts="--json -h --help"
            ;;
        list)
            opts="-n --limit --json -h --help"
            valued="-n --limit"
            ;;
        debug)
            opts="-h --help"
            ;;
        trace)
            opts="-v --verbose --json -h --help"
            ;;
        stats)
            opts="--days --json -h --help"
            valued="--days"
            ;;
        clean)
            opts="--before --all --dry-run --json -h --help"
            valued="--before"
            ;;
        doctor)
            opts="--plugin-dir -h --help"
            valued="--plugin-dir"
            ;;
        intent)
            opts="--json --refactor --stdout -h --help"
            ;;
        ledger)
            opts="--json --since -h --help"
            valued="--since"
            ;;
        lesson)
            opts="--intent -h --help"
            valued="--intent"
            ;;
        demo)
            opts="--keep -h --help"
            ;;
        *)
            return 0
            ;;
    esac

    # The value of an option.
    if [[ -n $prev && " $valued " == *" $prev "* ]]; then
        case $prev in
            --before)
                mapfile -t COMPREPLY < <(compgen -W "30m 24h 7d 30d" -- "$cur")
                ;;
            --intent)
                _roz_intent_ids "$cur"
                ;;
            --plugin-dir)
                mapfile -t COMPREPLY < <(compgen -d -- "$cur")
                compopt -o filenames 2>/dev/null
                ;;
        esac
        return 0
    fi

    if [[ $cur == -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "$opts" -- "$cur")
        return 0
    fi

    npos=$(_roz_count_args "$valued" $((cmd_at + 1)))
    case $cmd in
        hook)
            ((npos == 0)) && mapfile -t COMPREPLY < <(compgen -W "$events" -- "$cur")
            ;;
        decide)
            case $npos in
                0) _roz_session_ids "$cur" ;;
                1) mapfile -t COMPREPLY < <(compgen -W "COMPLETE ISSUES" -- "$cur") ;;
            esac
            ;;
        context | debug | trace)
            ((npos == 0)) && _roz_session_ids "$cur"
            ;;
        ledger)
            if ((npos == 0)); then
                mapfile -t COMPREPLY < <(compgen -W "verify blame accept compact" -- "$cur")
            else
                mapfile -t COMPREPLY < <(compgen -f -- "$cur")
            fi
            ;;
        lesson)
            ((npos == 0)) && mapfile -t COMPREPLY < <(compgen -W "add" -- "$cur")
            ;;
        intent)
            case $npos in
                0) mapfile -t COMPREPLY < <(compgen -W "list show select map violations accept" -- "$cur") ;;
                1) _roz_intent_ids "$cur" ;;
            esac
            ;;
    esac
    return 0
} &&
    complete -F _roz roz

# ex: filetype=sh
