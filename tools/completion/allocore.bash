# bash completion for allocore (installed as share/bash-completion/completions/allocore).
# Commands, each command's options, the values of --format, --policy and the gen shapes, and
# file names elsewhere.
_allocore() {
  local cur prev command
  cur=${COMP_WORDS[COMP_CWORD]}
  prev=${COMP_WORDS[COMP_CWORD-1]}
  command=${COMP_WORDS[1]}
  if [ "$COMP_CWORD" -eq 1 ]; then
    mapfile -t COMPREPLY < <(compgen -W "run check tree gen pack unpack report import export version --help --version" -- "$cur")
    return
  fi
  case "$prev" in
    --format)
      case "$command" in
        run) mapfile -t COMPREPLY < <(compgen -W "jsonl table" -- "$cur") ;;
        check) mapfile -t COMPREPLY < <(compgen -W "text json" -- "$cur") ;;
        tree) mapfile -t COMPREPLY < <(compgen -W "text dot" -- "$cur") ;;
        report) mapfile -t COMPREPLY < <(compgen -W "text json html" -- "$cur") ;;
      esac
      return ;;
    --policy)
      mapfile -t COMPREPLY < <(compgen -W "fair binpacking" -- "$cur")
      return ;;
    --semantics)
      mapfile -t COMPREPLY < <(compgen -W "yunikorn-1.2 yunikorn-1.9" -- "$cur")
      return ;;
    --data)
      mapfile -t COMPREPLY < <(compgen -d -- "$cur")
      return ;;
    --scheduler-name|--follow|--max-allocations|--waiters|--at-step|--nodes|--pods|--scale|--seed|--queues|--apps|--asks|--steps)
      return ;;
  esac
  local options
  case "$command" in
    run) options="--check --format --quiet --stats --explain --semantics --max-allocations --latency-csv --snapshot-at --from-snapshot --help" ;;
    check) options="--format --strict --quiet --semantics --help" ;;
    tree) options="--at-step --format --help" ;;
    pack) options="-o --output --semantics --help" ;;
    unpack) options="-o --output --help" ;;
    report) options="--format -o --output --semantics --config --waiters --max-allocations --compare --trace --help" ;;
    import)
      if [ "$COMP_CWORD" -eq 2 ] && [[ "$cur" != -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "yunikorn kubernetes" -- "$cur")
        return
      fi
      options="--config -o --output --semantics --scheduler-name --no-schedule --follow --strict --quiet --help" ;;
    export)
      if [ "$COMP_CWORD" -eq 2 ] && [[ "$cur" != -* ]]; then
        mapfile -t COMPREPLY < <(compgen -W "yunikorn" -- "$cur")
        return
      fi
      options="--at-step -o --output --semantics --help" ;;
    gen)
      if [ "$COMP_CWORD" -eq 2 ]; then
        mapfile -t COMPREPLY < <(compgen -W "yunikorn-shape alibaba random --help" -- "$cur")
        return
      fi
      options="--nodes --pods --data --scale --policy --seed --queues --apps --asks --steps -o --help" ;;
    *) return ;;
  esac
  if [[ "$cur" == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$options" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
}
complete -o filenames -F _allocore allocore
