#!/bin/bash
# bench/suites.sh — racepred on third-party race-detector test suites:
# Valgrind's own test programs for Helgrind (helgrind/tests) and DRD
# (drd/tests), and the ThreadSanitizer unit tests DRD ships
# (drd/tests/tsan_unittest.cpp, about 100 labelled cases).  Not part of
# `make check` (minutes; needs a Valgrind source tree):
#
#   bench/suites.sh VALGRIND_SRC [--tools="racepred helgrind drd"] [--out=DIR]
#
# VALGRIND_SRC is a Valgrind source tree of the installed version, e.g.
#   git clone -b VALGRIND_3_19_0 https://sourceware.org/git/valgrind.git
# Uses `valgrind` from PATH; for an uninstalled build point VALGRIND_LIB at
# its vglib.  For each test program of helgrind/tests and drd/tests that
# builds here, each .vgtest (its prog and args; its tool options are not
# used) runs natively and under each tool, with a timeout.  A line per
# test: the races the suite's own expected output shows (Helgrind's
# "Possible data race" lines, DRD's "Conflicting" lines, or the contexts
# of an output filtered down to its error summary: that tool's verdict,
# false alarms included; "?" when the test has no such output), the error contexts each tool reported,
# and whether the exit code and stdout (its lines sorted) are the native
# ones (a program that never ends natively differs too).  tsan_unittest
# runs each test labelled TP, TN, FP or FN alone, built with its
# ANNOTATE_EXPECT_RACE as a no-op (DRD's build turns it into "benign"), so
# that an expected race must be reported: a line per test with its label.
# Logs stay in --out (default /tmp/racepred-suites).
set -u

src=${1:?usage: bench/suites.sh VALGRIND_SRC [--tools=...] [--out=DIR]}
shift
tools="racepred"
out=/tmp/racepred-suites
for arg in "$@"; do
    case $arg in
    --tools=*) tools=${arg#--tools=} ;;
    --out=*) out=${arg#--out=} ;;
    *) echo "bench/suites.sh: unknown argument $arg" >&2; exit 2 ;;
    esac
done
[ -f "$src/drd/tests/tsan_unittest.cpp" ] || { echo "bench/suites.sh: $src is not a Valgrind source tree" >&2; exit 2; }
src=$(cd "$src" && pwd)
mkdir -p "$out/build" "$out/logs"

# The headers the tests include by relative path, and the configure
# results they test for.
build=$out/build
mkdir -p "$build/include" "$build/helgrind" "$build/drd" "$build/tests"
for h in valgrind.h helgrind.h drd.h memcheck.h; do cp "/usr/include/valgrind/$h" "$build/include/"; done
cp /usr/include/valgrind/helgrind.h "$build/helgrind/"
cp /usr/include/valgrind/drd.h "$build/drd/"
cp "$src/tests/sys_mman.h" "$src/tests/malloc.h" "$build/tests/" 2>/dev/null
cat > "$build/config.h" <<'EOF'
#define VGO_linux 1
#define VGA_amd64 1
#define VGP_amd64_linux 1
#define HAVE_PTHREAD_BARRIER_INIT 1
#define HAVE_PTHREAD_SPIN_LOCK 1
#define HAVE_PTHREAD_MUTEX_TIMEDLOCK 1
#define HAVE_PTHREAD_RWLOCK_TIMEDRDLOCK 1
#define HAVE_BUILTIN_ATOMIC 1
#define HAVE_PTHREAD_MUTEX_RECURSIVE_NP 1
#define HAVE_PTHREAD_MUTEX_ADAPTIVE_NP 1
#define HAVE_PTHREAD_MUTEX_ERRORCHECK_NP 1
#define HAVE_PTHREAD_YIELD 1
#define HAVE_SEM_TIMEDWAIT 1
#define HAVE_CLOCK_GETTIME 1
EOF

# build_suite DIR: every C and C++ program of DIR/tests, built from a copy
# in $build/DIR/tests, where their relative includes find the files above.
build_suite() {
    local d=$1 f n cc omp
    mkdir -p "$build/$d/tests"
    cp "$src/$d/tests"/*.c "$src/$d/tests"/*.cpp "$src/$d/tests"/*.h "$build/$d/tests/" 2>/dev/null
    for f in "$build/$d/tests"/*.c "$build/$d/tests"/*.cpp; do
        n=$(basename "${f%.*}")
        cc=gcc
        case $f in *.cpp) cc=g++ ;; esac
        omp=
        case $n in omp_*) omp=-fopenmp ;; esac
        $cc -g -O0 -pthread $omp -w -include "$build/config.h" -I"$build" -I"$build/include" \
            -DTHREAD_WRAPPERS='"tsan_thread_wrappers_pthread.h"' \
            -o "$build/$d/tests/$n" "$f" -lm -lrt 2>/dev/null || true
    done
}

# run_one LOG LIMIT CMD...: exit code, stdout and stderr of CMD, stopped
# after LIMIT seconds.
run_one() {
    local log=$1 limit=$2; shift 2
    timeout "$limit" "$@" > "$log.out" 2> "$log.err" < /dev/null
    echo $? > "$log.rc"
}

# Whether an expected output holds nothing but its error summary.
summary_only() {
    [ -f "$1" ] && grep -q "ERROR SUMMARY" "$1" && ! grep -v -e "ERROR SUMMARY" -e '^ *$' "$1" | grep -q .
}

contexts() {
    sed -n 's/.*ERROR SUMMARY: [0-9]* errors from \([0-9]*\) contexts.*/\1/p' "$1" | head -1
}

# run_suite DIR PATTERN: the .vgtest files of DIR/tests.
run_suite() {
    local d=$1 pattern=$2 v n prog args exp t line limit same
    for v in "$src/$d/tests"/*.vgtest; do
        n=$(basename "$v" .vgtest)
        prog=$(sed -n 's/^prog: *//p' "$v" | head -1)
        args=$(sed -n 's/^args: *//p' "$v" | head -1)
        # Some prog lines carry arguments of their own.
        case $prog in *" "*) args="${prog#* } $args"; prog=${prog%% *} ;; esac
        exp=$(grep -c "$pattern" "$src/$d/tests/$n.stderr.exp" 2>/dev/null)
        # Some expected outputs are filtered down to the error summary
        # (then every error in it is a race); others have none at all.
        [ "${exp:-0}" = 0 ] && summary_only "$src/$d/tests/$n.stderr.exp" \
            && exp=$(contexts "$src/$d/tests/$n.stderr.exp")
        (cd "$build/$d/tests" && [ -x "$prog" ]) || { printf '%-8s %-28s not built\n' "$d" "$n"; continue; }
        (cd "$build/$d/tests" && run_one "$out/logs/$d.$n.native" 60 "./$prog" $args)
        # A program that does not end natively (glibc 2.25+ blocks in
        # pthread_cond_destroy_busy, a livelock on 2 cores) gets as long.
        limit=300
        [ "$(cat "$out/logs/$d.$n.native.rc")" = 124 ] && limit=60
        line=$(printf '%-8s %-28s expected=%-4s' "$d" "$n" "${exp:-?}")
        for t in $tools; do
            (cd "$build/$d/tests" && run_one "$out/logs/$d.$n.$t" $limit valgrind --tool="$t" "./$prog" $args)
            same=same
            # Sorted: threads that print interleave their lines differently.
            cmp -s <(sort "$out/logs/$d.$n.native.out") <(sort "$out/logs/$d.$n.$t.out") \
                && [ "$(cat "$out/logs/$d.$n.native.rc")" = "$(cat "$out/logs/$d.$n.$t.rc")" ] || same=DIFFERS
            line="$line $t=$(contexts "$out/logs/$d.$n.$t.err") ($same)"
        done
        echo "$line"
    done
}

# tsan_unittest with ANNOTATE_EXPECT_RACE a no-op.
run_tsan() {
    local dir=$build/drd/tests n label
    sed 's|ANNOTATE_BENIGN_RACE_SIZED(addr, 4, "expected race")|do { } while (0)|' \
        "$dir/tsan_thread_wrappers_pthread.h" > "$dir/tsan_wrappers_noexpect.h"
    g++ -g -O0 -pthread -w -I"$build" -I"$build/include" \
        -DTHREAD_WRAPPERS='"tsan_wrappers_noexpect.h"' \
        -o "$dir/tsan_unittest_noexpect" "$dir/tsan_unittest.cpp" -lrt || return
    grep -E '^// test[0-9]+: *(TP|TN|FP|FN)\.' "$src/drd/tests/tsan_unittest.cpp" |
        sed -E 's|^// test0*([0-9]+): *(TP\|TN\|FP\|FN).*|\1 \2|' | while read -r n label; do
        line=$(printf 'tsan     test%-24s label=%s' "$n" "$label")
        for t in $tools; do
            (cd "$dir" && run_one "$out/logs/tsan.$n.$t" 300 valgrind --tool="$t" ./tsan_unittest_noexpect "$n")
            line="$line $t=$(contexts "$out/logs/tsan.$n.$t.err")"
        done
        echo "$line"
    done
}

build_suite helgrind
build_suite drd
run_suite helgrind "Possible data race"
run_suite drd "^Conflicting "
run_tsan
