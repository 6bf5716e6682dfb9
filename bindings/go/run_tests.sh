#!/bin/sh
# bindings/go/run_tests.sh BUILD_DIR — vets and tests the Go package against the C library
# of a CMake build tree (target allocore_c), with the race detector, then builds and runs the
# example manager. Exits non-zero on any failure.
#
# It uses BUILD_DIR/pkgconfig-uninstalled/allocore-c.pc, exactly as a user's program uses an
# installed allocore-c.pc, and keeps Go's caches under BUILD_DIR/go.
set -eu

if [ $# -ne 1 ]; then
  echo "usage: $0 BUILD_DIR" >&2
  exit 2
fi
BUILD_DIR=$(cd "$1" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)

if [ ! -f "$BUILD_DIR/pkgconfig-uninstalled/allocore-c.pc" ]; then
  echo "$0: $BUILD_DIR/pkgconfig-uninstalled/allocore-c.pc is missing (configure the build)" >&2
  exit 1
fi
if ! command -v go >/dev/null 2>&1; then
  echo "$0: go is not installed (Debian: apt-get install golang-go)" >&2
  exit 1
fi

export PKG_CONFIG_PATH="$BUILD_DIR/pkgconfig-uninstalled${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export GOCACHE="$BUILD_DIR/go/cache"
export GOPATH="$BUILD_DIR/go/path"
export GOENV=off
export GOFLAGS=-mod=mod
export GO111MODULE=on
export GOTOOLCHAIN=local
export CGO_ENABLED=1
# A plain build must work: nothing may need these.
unset CGO_LDFLAGS_ALLOW CGO_CFLAGS_ALLOW

cd "$HERE"
echo "== go version: $(go version); allocore-c $(pkg-config --modversion allocore-c)"

unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
  echo "$0: not gofmt-formatted: $unformatted" >&2
  exit 1
fi

echo "== go vet ./..."
go vet ./...

echo "== go test -race ./..."
go test -race -count=1 ./...

echo "== examples/manager"
mkdir -p "$BUILD_DIR/go/bin"
go build -o "$BUILD_DIR/go/bin/allocore-go-manager" ./examples/manager
"$BUILD_DIR/go/bin/allocore-go-manager"

echo "== Go bindings: all passed"
