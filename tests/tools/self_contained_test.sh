#!/bin/sh
# What a user of a clone reads points inside the clone: the README and docs, the public
# headers, the command's messages and --help texts name no file of the development checkout's
# sibling folder (../shared), and every relative Markdown link of the docs resolves.
# Usage: self_contained_test.sh SOURCE_DIR ALLOCORE
set -eu
root=${1:?usage: self_contained_test.sh SOURCE_DIR ALLOCORE}
allocore=${2:?usage: self_contained_test.sh SOURCE_DIR ALLOCORE}
failures=0
pattern='\.\./shared|shared/(docs|data|scenarios|seeds)|seeds/[0-9]'

docs="$root/README.md $root/CHANGELOG.md $root/docs/*.md $root/kernel/README.md \
  $root/adapters/README.md $root/bench/README.md $root/examples/README.md \
  $root/data/*/README.md"
sources="$root/kernel/include/allocore/*.h $root/adapters/include/allocore/*.h \
  $root/adapters/include/allocore/adapters/*.h $root/tools/cli/*.cc $root/tools/man/*"
for file in $docs $sources; do
  [ -f "$file" ] || continue
  if grep -nE "$pattern" "$file" >/tmp/self_contained.$$ 2>/dev/null; then
    sed "s|^|${file#"$root"/}:|" /tmp/self_contained.$$ >&2
    failures=$((failures + 1))
  fi
done
rm -f /tmp/self_contained.$$
for command in run check tree gen report; do
  if "$allocore" "$command" --help 2>&1 | grep -E "$pattern" >&2; then
    echo "allocore $command --help points outside the checkout" >&2
    failures=$((failures + 1))
  fi
done

# Relative links: [text](path) and [text](path#anchor), not URLs.
for file in $docs; do
  [ -f "$file" ] || continue
  dir=$(dirname "$file")
  for link in $(grep -oE '\]\([^)#[:space:]]+' "$file" | sed 's/^](//'); do
    case "$link" in http://* | https://* | mailto:*) continue ;; esac
    if [ ! -e "$dir/$link" ]; then
      echo "${file#"$root"/}: link to $link does not resolve" >&2
      failures=$((failures + 1))
    fi
  done
done
echo "self_contained_test: $failures problem(s)"
[ "$failures" -eq 0 ]
