#!/bin/sh
# scripts/setup.sh — the README's first command: on a fresh Debian (bookworm)
# machine, as root, install what is missing, build, install racepred next to
# Valgrind's own tools (/usr/libexec/valgrind), then run it on the bundled
# racy example so that a race report appears.
#   --no-demo   stop after installing (used by .ci/run)
#   --fuzz      first argument: also install libclang-rt-14-dev
#               for `make fuzz-smoke` (tests/fuzz/fuzz.am)
set -eu
cd "$(dirname "$0")/.."

packages="build-essential autoconf automake pkg-config valgrind libcmocka-dev libxml2-utils libglib2.0-dev clang libomp-14-dev libc++-dev libc++abi-dev rustc"
# --fuzz: also what `make fuzz-smoke` needs (clang's libFuzzer and
# sanitizer runtimes, libclang_rt.fuzzer-x86_64.a); not needed by make check.
[ "${1:-}" = "--fuzz" ] && { packages="$packages libclang-rt-14-dev"; shift; }
missing=""
for p in $packages; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing$missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
fi

autoreconf -fi
./configure --prefix=/usr
make -j"$(nproc)"
make install

[ "${1:-}" = "--no-demo" ] && exit 0
echo
echo "setup: racepred is installed; running: valgrind --tool=racepred examples/racy"
echo
valgrind --tool=racepred examples/racy || true
