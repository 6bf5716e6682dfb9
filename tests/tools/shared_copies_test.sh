#!/bin/sh
# The project's copies of shared conformance scenarios (same file name in tests/scenarios) are
# byte-identical to the shared suite's: the shared suite is the compatibility target.
# Usage: shared_copies_test.sh PROJECT_SCENARIOS SHARED_SCENARIOS
set -eu
own=${1:?usage: shared_copies_test.sh PROJECT_SCENARIOS SHARED_SCENARIOS}
shared=${2:?usage: shared_copies_test.sh PROJECT_SCENARIOS SHARED_SCENARIOS}
copies=0
failures=0
for file in "$own"/*.yaml; do
  name=$(basename "$file")
  [ -f "$shared/$name" ] || continue
  copies=$((copies + 1))
  if ! cmp -s "$file" "$shared/$name"; then
    echo "tests/scenarios/$name differs from the shared suite's $name: copy the shared one" >&2
    failures=$((failures + 1))
  fi
done
echo "shared_copies_test: $copies copies checked, $failures differ"
[ "$copies" -gt 0 ] || { echo "no copy found: the unit tests read tests/scenarios copies" >&2; exit 1; }
[ "$failures" -eq 0 ]
