#!/usr/bin/env bash
# Runs the allocore Python package's tests against a build tree:
#   bindings/python/run_tests.sh BUILD_DIR [pytest arguments...]
# The package is imported from BUILD_DIR/python (built by the allocore_python target); the
# example's test runs BUILD_DIR/bin/allocore. The interpreter is $PYTHON, else Debian's
# /usr/bin/python3 (the one python3-pytest, numpy, matplotlib and distributed are installed
# for), else python3 on PATH. Exits non-zero when a test fails or nothing could be run.
set -euo pipefail
if [[ $# -lt 1 ]]; then
  echo "usage: $0 BUILD_DIR [pytest arguments...]" >&2
  exit 2
fi
build_dir=$(cd "$1" && pwd)
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
if [[ -z "${PYTHON:-}" ]]; then
  if [[ -x /usr/bin/python3 ]]; then PYTHON=/usr/bin/python3; else PYTHON=python3; fi
fi
if ! compgen -G "$build_dir/python/allocore/_native*.so" > /dev/null; then
  echo "$0: $build_dir/python/allocore has no _native extension: build the allocore_python target" >&2
  exit 1
fi
export PYTHONPATH="$build_dir/python${PYTHONPATH:+:$PYTHONPATH}"
export ALLOCORE_BUILD_DIR="$build_dir"
# No stray plugins from the environment, no cache files in the source tree.
export PYTEST_DISABLE_PLUGIN_AUTOLOAD=1
export PYTHONDONTWRITEBYTECODE=1
# From the build directory: `python3 -m pytest` puts the working directory first on sys.path,
# and the source directory's allocore/ (no extension in it) must not shadow the build's.
cd "$build_dir"
exec "$PYTHON" -m pytest -q -p no:cacheprovider "$@" "$here/tests"
