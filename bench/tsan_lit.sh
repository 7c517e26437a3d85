#!/bin/bash
# bench/tsan_lit.sh — racepred on ThreadSanitizer's own lit tests
# (compiler-rt's test/tsan): small programs, each with FileCheck lines that
# say whether ThreadSanitizer must report a data race.  Not part of
# `make check` (minutes; needs a compiler-rt tree):
#
#   bench/tsan_lit.sh COMPILER_RT_DIR [--tools="racepred helgrind drd"] [--out=DIR]
#
# COMPILER_RT_DIR is a checkout of compiler-rt (or llvm-project/compiler-rt).
# Uses `valgrind` from PATH; for an uninstalled build point VALGRIND_LIB at
# its vglib (default: this tree's vglib).
#
# Each test's label comes from its CHECK lines: "racy" when a positive
# CHECK expects "data race", "race-free" when a CHECK-NOT excludes a
# warning and none expects a race; tests that expect something else
# (deadlocks, leaks, misuse), that need ThreadSanitizer's runtime (Java,
# fibers, its report API, TSAN_OPTIONS, blacklists) or do not build with
# gcc are listed as skipped, with the reason.  A test is built with gcc/g++
# and the flags of its first RUN line, linked against bench/tsan_shim.c
# (the tests' barrier, which must not synchronise, and the annotations),
# run natively and under each tool with a 120 s limit.  A line per test:
# label, error contexts per tool, and whether exit code and sorted stdout
# match the native run's; a summary at the end.  Logs stay in --out
# (default /tmp/racepred-tsan-lit).
set -u

src=${1:?usage: bench/tsan_lit.sh COMPILER_RT_DIR [--tools=...] [--out=DIR]}
shift
tools="racepred"
out=/tmp/racepred-tsan-lit
for arg in "$@"; do
    case $arg in
    --tools=*) tools=${arg#--tools=} ;;
    --out=*) out=${arg#--out=} ;;
    *) echo "bench/tsan_lit.sh: unknown argument $arg" >&2; exit 2 ;;
    esac
done
[ -f "$src/test/tsan/test.h" ] || { echo "bench/tsan_lit.sh: $src has no test/tsan/test.h (not compiler-rt)" >&2; exit 2; }
src=$(cd "$src" && pwd)
here=$(cd "$(dirname "$0")/.." && pwd)
export VALGRIND_LIB=${VALGRIND_LIB:-$here/vglib}
mkdir -p "$out/bin" "$out/logs"

# The shim is ignored by racepred like libc; Helgrind and DRD instrument
# it, so for them its barrier is ordinary (visible) synchronisation.
shim=$out/bin/libtsanshim.so
gcc -shared -fPIC -O1 -g -o "$shim" "$here/bench/tsan_shim.c" \
    || { echo "bench/tsan_lit.sh: cannot build the shim" >&2; exit 2; }
ignore="ld-linux*.so*,libc.so*,libjemalloc.so*,libtcmalloc*.so*,libmimalloc.so*,libtsanshim.so"

# skip_reason FILE: why a test cannot run here, or nothing.
skip_reason() {
    local f=$1
    grep -q 'java\.h' "$f" && { echo "java"; return; }
    grep -q '__tsan_[a-z]*fiber' "$f" && { echo "fibers"; return; }
    grep -o '__tsan_[a-z_0-9]*' "$f" | grep -v -q -x -e '__tsan_testonly_barrier_[a-z]*' \
        -e '__tsan_acquire' -e '__tsan_release' -e '__tsan_testonly_shadow_stack_current_size' \
        && { echo "tsan-runtime-api"; return; }
    grep -q 'AnnotateIgnoreSync\|AnnotateFlushState\|AnnotateMemoryIsInitialized' "$f" && { echo "tsan-annotation"; return; }
    grep -q 'env_tsan_opts\|TSAN_OPTIONS\|blacklist' "$f" && { echo "tsan-options"; return; }
    grep -q '^// RUN:.*%t-dir\|%ld_flags_rpath\|-shared' "$f" && { echo "multi-object"; return; }
}

# label FILE: racy, race-free or other.
label() {
    local f=$1
    if grep -E '^ *// *CHECK(-NEXT|-DAG)?:.*(data race|WARNING: ThreadSanitizer: race)' "$f" | grep -q .; then
        echo racy
    elif grep -E '^ *// *CHECK-NOT:.*(WARNING|data race)' "$f" | grep -q .; then
        echo race-free
    else
        echo other
    fi
}

# compile FILE BIN: with the flags of the first RUN line that compiles.
compile() {
    local f=$1 bin=$2 line flags cc=gcc
    case $f in *.cpp|*.cc) cc=g++ ;; esac
    line=$(grep -m1 '^// RUN: %clang' "$f")
    flags=$(echo "$line" | sed -e 's/^\/\/ RUN: %clang[a-z_]*//' -e 's/%s.*//' -e 's/-o %t.*//')
    # Tests that annotate only "if __has_feature(thread_sanitizer)" get
    # their annotations (the shim implements them); gcc 12 has no
    # __has_feature.
    # shellcheck disable=SC2086
    $cc -g -pthread -w '-D__has_feature(x)=1' $flags -I"$src/include" -I"$src/test/tsan" -I"$src/test" \
        -o "$bin" "$f" "$shim" -Wl,-rpath,"$out/bin" -ldl -lm -lrt 2> "$bin.build" && return 0
    return 1
}

run_one() {
    local log=$1 limit=$2; shift 2
    timeout "$limit" "$@" > "$log.out" 2> "$log.err" < /dev/null
    echo $? > "$log.rc"
}

contexts() {
    sed -n 's/.*ERROR SUMMARY: [0-9]* errors from \([0-9]*\) contexts.*/\1/p' "$1" | head -1
}

tool_args() {
    case $1 in
    racepred) echo "--ignore-objects=$ignore" ;;
    *) echo "" ;;
    esac
}

declare -A agree disagree
total=0
for f in "$src"/test/tsan/*.c "$src"/test/tsan/*.cpp "$src"/test/tsan/*.cc "$src"/test/tsan/Linux/*.c "$src"/test/tsan/Linux/*.cpp "$src"/test/tsan/Linux/*.cc; do
    [ -f "$f" ] || continue
    n=$(basename "${f%.*}")
    case $f in */Linux/*) n=Linux.$n ;; esac
    reason=$(skip_reason "$f")
    lab=$(label "$f")
    [ -z "$reason" ] && [ "$lab" = other ] && reason="expects no race verdict"
    if [ -n "$reason" ]; then
        printf '%-40s skipped (%s)\n' "$n" "$reason"
        continue
    fi
    bin=$out/bin/$n
    compile "$f" "$bin" || { printf '%-40s skipped (does not build with gcc)\n' "$n"; continue; }
    total=$((total + 1))
    run_one "$out/logs/$n.native" 60 "$bin"
    line=$(printf '%-40s %-9s' "$n" "$lab")
    for t in $tools; do
        # shellcheck disable=SC2046
        run_one "$out/logs/$n.$t" 120 valgrind --tool="$t" $(tool_args "$t") "$bin"
        c=$(contexts "$out/logs/$n.$t.err")
        same=same
        cmp -s <(sort "$out/logs/$n.native.out") <(sort "$out/logs/$n.$t.out") \
            && [ "$(cat "$out/logs/$n.native.rc")" = "$(cat "$out/logs/$n.$t.rc")" ] || same=DIFFERS
        ok=no
        if [ -z "$c" ]; then ok=no
        elif [ "$lab" = racy ] && [ "$c" -gt 0 ]; then ok=yes
        elif [ "$lab" = race-free ] && [ "$c" = 0 ]; then ok=yes
        fi
        key="$t $lab"
        if [ $ok = yes ]; then agree[$key]=$(( ${agree[$key]:-0} + 1 ))
        else disagree[$key]=$(( ${disagree[$key]:-0} + 1 )); fi
        line="$line $t=${c:-none} ($same)"
        [ $ok = yes ] || line="$line MISS"
    done
    echo "$line"
done

echo
echo "$total tests run"
for t in $tools; do
    for lab in racy race-free; do
        echo "$t $lab: ${agree[$t $lab]:-0} agree with ThreadSanitizer's label, ${disagree[$t $lab]:-0} do not"
    done
done
