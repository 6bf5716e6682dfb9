#!/usr/bin/env bash
# The fuzzing engines' build script (.clusterfuzzlite/build.sh), run as ClusterFuzzLite and
# OSS-Fuzz run it: the checkout copied to $SRC/allocore, the script to $SRC/build.sh, run from
# $SRC/allocore with the engine's variables (libFuzzer + ASan, as the engines set them for
# `--sanitizer address`) into a fresh $OUT. Then $OUT must hold, for each of the six targets,
# the binary, T.options, T.dict (where fuzz/dict has one) and T_seed_corpus.zip, and each
# target must run from inside $OUT for a few seconds (its options, the engine's default
# timeout and memory limit, a copy of its unzipped seed corpus) without a finding.
#
# usage: tests/tools/fuzz_engine_build_test.sh [SECONDS per target, default 5]
# Environment: ALLOCORE_JOBS (compile jobs, default 2). Takes minutes: the build compiles the
# kernel and adapters with ASan and coverage instrumentation. Not a ctest test; .ci/run runs it.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SECS=${1:-5}
TARGETS=(fuzz_config fuzz_events fuzz_differential fuzz_scenario fuzz_event_log fuzz_import)
started=$SECONDS

say() { echo "[fuzz-engine $((SECONDS - started))s] $*"; }
fail() {
  echo "[fuzz-engine $((SECONDS - started))s] FAIL: $*" >&2
  exit 1
}

case "$SECS" in '' | *[!0-9]*) fail "SECONDS must be a whole number, got '$SECS'" ;; esac
for tool in clang clang++ python3 git cmake; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (tools/dev installs the packages)"
done

SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/allocore-fuzz-engine.XXXXXX")
KEEP=""
cleanup() {
  local status=$?
  if [ "$status" -ne 0 ] && [ -d "$SCRATCH/logs" ]; then
    # Logs and crash inputs outlive the failure; the build tree and $OUT (hundreds of MB) do not.
    KEEP=$(mktemp -d "${TMPDIR:-/tmp}/allocore-fuzz-engine-failed.XXXXXX")
    cp -R "$SCRATCH/logs" "$SCRATCH/artifacts" "$KEEP/" 2>/dev/null || true
    echo "[fuzz-engine] FAILED (exit $status); logs and artifacts kept in $KEEP" >&2
  fi
  rm -rf "$SCRATCH"
}
trap cleanup EXIT

export SRC=$SCRATCH/src WORK=$SCRATCH/work OUT=$SCRATCH/out
mkdir -p "$SRC/allocore" "$WORK" "$OUT" "$SCRATCH/logs" "$SCRATCH/artifacts"

# The checkout as the engine's Dockerfile copies it: the tracked and the new (not ignored)
# files of the working tree, so that uncommitted edits are built too; no build trees.
say "copying the checkout to \$SRC/allocore"
(
  cd "$ROOT"
  git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    tar --null -T - -cf -
) | tar -xf - -C "$SRC/allocore"
cp "$SRC/allocore/.clusterfuzzlite/build.sh" "$SRC/build.sh"

# The variables the engines set for libFuzzer + ASan (OSS-Fuzz's base-builder adds
# -stdlib=libc++ to CXXFLAGS, which build.sh drops: the distribution's libraries use libstdc++).
export CC=clang CXX=clang++
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address,fuzzer-no-link"
export CXXFLAGS="$CFLAGS"
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer SANITIZER=address FUZZING_ENGINE=libfuzzer
export ARCHITECTURE=x86_64 FUZZING_LANGUAGE=c++
export ALLOCORE_JOBS=${ALLOCORE_JOBS:-2}
# Not the engine's: the project's own knobs stay out of the runs.
unset ALLOCORE_FUZZ_AVOID ALLOCORE_FUZZ_VERBOSE

say "running \$SRC/build.sh from \$SRC/allocore (-j $ALLOCORE_JOBS; log: logs/build.log)"
if ! (cd "$SRC/allocore" && nice -n 10 bash -eu "$SRC/build.sh") \
  >"$SCRATCH/logs/build.log" 2>&1; then
  tail -n 40 "$SCRATCH/logs/build.log" >&2
  fail "build.sh failed"
fi
say "build.sh done"

# What $OUT must hold, from the copy build.sh read.
copy=$SRC/allocore
for t in "${TARGETS[@]}"; do
  [ -x "$OUT/$t" ] || fail "$OUT/$t is missing or not executable"
  [ -f "$OUT/$t.options" ] || fail "$OUT/$t.options is missing"
  head -n 1 "$OUT/$t.options" | grep -qx '\[libfuzzer\]' ||
    fail "$t.options does not start with [libfuzzer]"
  if [ -f "$copy/fuzz/dict/$t.dict" ]; then
    cmp -s "$copy/fuzz/dict/$t.dict" "$OUT/$t.dict" || fail "$OUT/$t.dict is missing or differs"
    grep -qx "dict = $t.dict" "$OUT/$t.options" || fail "$t.options does not name $t.dict"
  fi
  zip=$OUT/${t}_seed_corpus.zip
  [ -f "$zip" ] || fail "$zip is missing"
  want=$(find "$copy/fuzz/corpus/$t" -type f | wc -l)
  got=$(python3 - "$zip" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    if bad is not None:
        sys.exit("corrupt member: " + bad)
    print(len([i for i in z.infolist() if not i.is_dir()]))
PY
  ) || fail "$zip does not read as a zip"
  [ "$got" -eq "$want" ] || fail "$zip holds $got files, fuzz/corpus/$t has $want"
  say "$t: binary, options$([ -f "$OUT/$t.dict" ] && echo ", dict"), seed corpus ($got files)"
done

# Each target from inside $OUT, as the engines' run_fuzzer does: the options file's flags, a
# timeout and memory limit like theirs (-timeout=25 -rss_limit_mb=2560), the unzipped corpus.
failed=0
for t in "${TARGETS[@]}"; do
  corpus=$SCRATCH/corpus/$t
  mkdir -p "$corpus" "$SCRATCH/artifacts/$t"
  python3 -c 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])' \
    "$OUT/${t}_seed_corpus.zip" "$corpus"
  options=()
  while IFS= read -r line; do
    case "$line" in
      '[libfuzzer]' | '' | '#'*) ;;
      *=*)
        key=${line%%=*}
        key=${key//[[:space:]]/}
        value=${line#*=}
        value=${value#"${value%%[![:space:]]*}"}
        options+=("-$key=$value")
        ;;
      *) fail "$t.options: cannot read '$line'" ;;
    esac
  done <"$OUT/$t.options"
  log=$SCRATCH/logs/$t.log
  say "$t: ${SECS}s from \$OUT: ./$t ${options[*]} ($(find "$corpus" -type f | wc -l) seeds)"
  status=0
  (
    cd "$OUT"
    "./$t" "${options[@]}" -max_total_time="$SECS" -timeout=25 -rss_limit_mb=2560 \
      -print_final_stats=1 -artifact_prefix="$SCRATCH/artifacts/$t/" "$corpus"
  ) >"$log" 2>&1 || status=$?
  execs=$(sed -n 's/^stat::number_of_executed_units:[[:space:]]*//p' "$log" | tail -n 1)
  cov=$(grep -E '#[0-9]+.*cov: ' "$log" | tail -n 1 | sed -n 's/.*cov: \([0-9]*\).*/\1/p')
  if [ "$status" -ne 0 ] ||
    grep -qE '^==[0-9]+==ERROR|runtime error|FUZZ FINDING|^SUMMARY: ' "$log"; then
    grep -E 'FUZZ FINDING|ERROR: |runtime error|SUMMARY: |Test unit written' -A3 "$log" |
      head -n 20 >&2 || true
    tail -n 5 "$log" >&2
    echo "[fuzz-engine] $t: FAILED (exit $status), log: $log" >&2
    failed=1
  elif ! grep -q 'INITED' "$log" || [ -z "$execs" ] || [ "$execs" -eq 0 ]; then
    tail -n 10 "$log" >&2
    echo "[fuzz-engine] $t: did not fuzz (no INITED line or no executions), log: $log" >&2
    failed=1
  else
    say "$t: ok, $execs executions, cov ${cov:-?}"
  fi
done

[ "$failed" -eq 0 ] || fail "a target failed from \$OUT (above)"
say "all ${#TARGETS[@]} targets built by .clusterfuzzlite/build.sh ran from \$OUT: ok"
