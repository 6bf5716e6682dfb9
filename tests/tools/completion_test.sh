#!/usr/bin/env bash
# The bash completion offers every command and each command's options as its --help lists
# them. Usage: completion_test.sh COMPLETION_SCRIPT ALLOCORE
set -euo pipefail
# shellcheck source=/dev/null
source "${1:?usage: completion_test.sh COMPLETION_SCRIPT ALLOCORE}"
allocore=${2:?usage: completion_test.sh COMPLETION_SCRIPT ALLOCORE}
failures=0
complete_words() {  # complete_words WORD... : COMPREPLY for the last word
  COMP_WORDS=("$@")
  COMP_CWORD=$(( $# - 1 ))
  COMPREPLY=()
  _allocore
  printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}
expect() {  # expect WANT WORD...
  local want=$1
  shift
  local got
  got=$(complete_words "$@")
  if [ "$got" != "$want" ]; then
    echo "completion of '$*': got '$got', want '$want'" >&2
    failures=$((failures + 1))
  fi
}
expect "check " allocore ch
expect "--strict " allocore check --st
expect "jsonl table " allocore run --format ""
expect "dot " allocore tree --format d
expect "alibaba " allocore gen al
expect "pack " allocore pa
expect "kubernetes " allocore import k
expect "html json text " allocore report --format ""
expect "yunikorn-1.2 yunikorn-1.9 " allocore run --semantics ""
# Every option a command's --help names is offered.
for command in run check tree pack unpack report import export; do
  for option in $("$allocore" "$command" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
    case " $(complete_words allocore "$command" --) " in
      *" $option "*) ;;
      *) echo "allocore $command: $option is not completed" >&2; failures=$((failures + 1)) ;;
    esac
  done
done
[ "$failures" -eq 0 ] && echo "completion: OK"
exit "$failures"
