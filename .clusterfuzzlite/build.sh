#!/usr/bin/env bash
# .clusterfuzzlite/build.sh — builds allocore's six fuzz targets the way ClusterFuzzLite and
# OSS-Fuzz expect, inside their builder image (.clusterfuzzlite/Dockerfile) or anywhere the
# same variables are set (tests/tools/fuzz_engine_build_test.sh runs it here).
#
# Reads the engine's variables:
#   CXX, CXXFLAGS        the compiler and the flags of every compiled file (sanitizer, coverage
#                        instrumentation); CC and CFLAGS too if C is ever compiled (allocore is
#                        C++ only, CMake reads them from the environment)
#   LIB_FUZZING_ENGINE   the link of each target (-fsanitize=fuzzer, or a library's path);
#                        replaces the project's own -fsanitize=fuzzer (ALLOCORE_FUZZING_ENGINE)
#   OUT                  where the targets go
#   WORK                 scratch space for the CMake build tree (a temporary directory if unset)
#   SRC, SANITIZER       informational; the project root is found from the script's place
# and ALLOCORE_JOBS (parallel compile jobs, default: every core).
#
# Writes into $OUT, for each target T of fuzz/CMakeLists.txt:
#   T                    the fuzz target
#   T.dict               its dictionary (fuzz/dict/T.dict; fuzz_event_log has none)
#   T.options            [libfuzzer] dict and max_len (the max_len fuzz/run uses)
#   T_seed_corpus.zip    fuzz/corpus/T, flat
set -euo pipefail

TARGETS=(fuzz_config fuzz_events fuzz_differential fuzz_scenario fuzz_event_log fuzz_import)

# The project root: the parent of .clusterfuzzlite/ when the script runs from the checkout;
# the working directory when the engine has copied the script to $SRC/build.sh and runs it from
# the Dockerfile's WORKDIR ($SRC/allocore); else $SRC/allocore.
is_root() { [ -f "$1/fuzz/CMakeLists.txt" ] && [ -f "$1/kernel/CMakeLists.txt" ]; }
script_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if is_root "$script_dir/.."; then
  ROOT=$(cd "$script_dir/.." && pwd)
elif is_root "$PWD"; then
  ROOT=$PWD
elif [ -n "${SRC:-}" ] && is_root "$SRC/allocore"; then
  ROOT=$(cd "$SRC/allocore" && pwd)
else
  echo "build.sh: cannot find the allocore checkout (beside the script, in $PWD, or in" \
       "\$SRC/allocore)" >&2
  exit 1
fi

: "${CXX:?build.sh: CXX is not set (the C++ compiler)}"
: "${OUT:?build.sh: OUT is not set (where the fuzz targets go)}"
: "${LIB_FUZZING_ENGINE:?build.sh: LIB_FUZZING_ENGINE is not set (e.g. -fsanitize=fuzzer)}"
if [ -z "${WORK:-}" ]; then
  WORK=$(mktemp -d "${TMPDIR:-/tmp}/allocore-fuzz-work.XXXXXX")
fi
mkdir -p "$OUT" "$WORK"
OUT=$(cd "$OUT" && pwd)
WORK=$(cd "$WORK" && pwd)
BUILD=$WORK/allocore-fuzz-build
JOBS=${ALLOCORE_JOBS:-$(nproc)}

# Abseil, yaml-cpp, libyaml and RE2 come from the distribution, built against libstdc++.
# OSS-Fuzz's CXXFLAGS ask for libc++ (-stdlib=libc++), with which they would not link; the
# targets use libstdc++ like their libraries (libFuzzer carries its own private libc++).
read -ra engine_flags <<<"${CXXFLAGS:-}"
cxxflags=()
for flag in "${engine_flags[@]}"; do
  [ "$flag" = "-stdlib=libc++" ] || cxxflags+=("$flag")
done

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

echo "build.sh: allocore at $ROOT; build tree $BUILD; targets into $OUT" >&2
echo "build.sh: CXX=$CXX CXXFLAGS=${cxxflags[*]} LIB_FUZZING_ENGINE=$LIB_FUZZING_ENGINE" \
     "SANITIZER=${SANITIZER:-}" >&2

# No CMAKE_BUILD_TYPE: the engine's flags alone decide optimisation and debug information.
# Sanitizers and coverage come in CXXFLAGS, so ALLOCORE_SANITIZE and ALLOCORE_LIBFUZZER stay
# off, and mimalloc too (it would replace the sanitizer's allocator). The contract checks are
# on, as in the preset fuzz.
cmake -S "$ROOT" -B "$BUILD" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE= \
  -DCMAKE_CXX_COMPILER="$CXX" \
  -DCMAKE_CXX_FLAGS="${cxxflags[*]}" \
  -DBUILD_SHARED_LIBS=OFF \
  -DALLOCORE_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DALLOCORE_LIBFUZZER=OFF \
  -DALLOCORE_SANITIZE= \
  -DALLOCORE_USE_MIMALLOC=OFF \
  -DALLOCORE_DEBUG_CHECKS=ON \
  -DALLOCORE_WERROR=OFF \
  -DALLOCORE_BUILD_ADAPTERS=ON \
  -DALLOCORE_BUILD_FUZZ=ON \
  -DALLOCORE_BUILD_TESTS=OFF \
  -DALLOCORE_BUILD_BENCH=OFF \
  -DALLOCORE_BUILD_TOOLS=OFF \
  -DALLOCORE_INSTALL=OFF
cmake --build "$BUILD" -j "$JOBS" --target "${TARGETS[@]}"

# A zip of a directory's files, flat; python3's zipfile where zip is not installed.
zip_dir() {  # zip_dir DIR ZIP
  rm -f "$2"
  if command -v zip >/dev/null; then
    (cd "$1" && find . -type f -print | sort | zip -q -X -j "$2" -@)
  else
    python3 - "$1" "$2" <<'PY'
import os, sys, zipfile
src, dst = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as z:
    for name in sorted(os.listdir(src)):
        path = os.path.join(src, name)
        if os.path.isfile(path):
            z.write(path, name)
PY
  fi
}

for t in "${TARGETS[@]}"; do
  cp "$BUILD/bin/$t" "$OUT/$t"
  # YAML texts need room for names past ApiLimits::kMaxNameBytes; the event decoders make long
  # names from a few bytes (the lengths fuzz/run uses).
  case "$t" in
    fuzz_config | fuzz_scenario | fuzz_import) max_len=65536 ;;
    *) max_len=8192 ;;
  esac
  {
    echo "[libfuzzer]"
    if [ -f "$ROOT/fuzz/dict/$t.dict" ]; then
      cp "$ROOT/fuzz/dict/$t.dict" "$OUT/$t.dict"
      echo "dict = $t.dict"
    fi
    echo "max_len = $max_len"
  } >"$OUT/$t.options"
  zip_dir "$ROOT/fuzz/corpus/$t" "$OUT/${t}_seed_corpus.zip"
  echo "build.sh: $OUT/$t ($(find "$ROOT/fuzz/corpus/$t" -type f | wc -l) seeds)" >&2
done
