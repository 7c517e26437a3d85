#!/bin/bash
# bench/goblint.sh — racepred on Goblint's regression tests (small pthread
# programs whose accesses are marked `// RACE!` or `// NORACE` for
# Goblint's static analysis).  Not part of `make check`:
#
#   git clone https://github.com/goblint/analyzer GOBLINT
#   bench/goblint.sh GOBLINT [--out=DIR] [DIR...] [-- racepred options...]
#
# For each tests/regression/DIR/*.c (default DIRs: the ones about races,
# locks, threads and escaping memory), builds it with gcc -O0 against a stub
# of goblint.h and of SV-COMP's __VERIFIER_* functions (nondet values from
# rand(), atomic sections under one mutex), runs it natively (5 s limit:
# programs that never end are skipped) and under racepred (60 s), and prints
# a line per program: its label (racy: some `RACE!`; race-free: only
# `NORACE`; none), racepred's error contexts, and both exit codes; then
# the counts by label.  The labels are a static analyser's: a race on a
# path this run does not take, or after main returned without joining,
# cannot be seen by any dynamic tool.  Runs the in-tree build (vglib/)
# when there is one, else the installed racepred.  Logs stay in --out
# (default /tmp/racepred-goblint).
set -u

gob=${1:?usage: bench/goblint.sh GOBLINT_DIR [--out=DIR] [DIR...] [-- racepred options...]}
shift
out=/tmp/racepred-goblint
if [ $# -gt 0 ] && [ "${1#--out=}" != "$1" ]; then
    out=${1#--out=}
    shift
fi
dirs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
    dirs+=("$1")
    shift
done
[ $# -gt 0 ] && shift
[ ${#dirs[@]} -eq 0 ] && dirs=(02-base 04-mutex 05-lval_ls 06-symbeq 09-regions 10-synch
    13-privatized 29-svcomp 40-threadid 45-escape 51-threadjoins 53-races-mhp 58-base-mm-tid
    71-doublelocking 72-thread_create_wrapper)
mkdir -p "$out/stub"
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${VALGRIND_LIB:-}" ] && [ -x "$top/vglib/racepred-amd64-linux" ]; then
    export VALGRIND_LIB="$top/vglib"
fi

cat > "$out/stub/goblint.h" <<'STUB'
#include <stdlib.h>
#define __goblint_check(x) ((void)(x))
#define __goblint_assert(x) ((void)(x))
#define __goblint_assume(x) ((void)(x))
#define __goblint_unknown(x) ((void)(x))
#define __goblint_split_begin(x) ((void)(x))
#define __goblint_split_end(x) ((void)(x))
#define __goblint_assume_join(x) ((void)(x))
#define __goblint_globalize(x) ((void)(x))
STUB
cat > "$out/stub/stub.c" <<'STUB'
#include <pthread.h>
#include <stdlib.h>
int __VERIFIER_nondet_int(void) { return rand() & 1; }
unsigned int __VERIFIER_nondet_uint(void) { return (unsigned)rand() & 1; }
_Bool __VERIFIER_nondet_bool(void) { return rand() & 1; }
char __VERIFIER_nondet_char(void) { return (char)(rand() & 1); }
static pthread_mutex_t atomic_section = PTHREAD_MUTEX_INITIALIZER;
void __VERIFIER_atomic_begin(void) { pthread_mutex_lock(&atomic_section); }
void __VERIFIER_atomic_end(void) { pthread_mutex_unlock(&atomic_section); }
void reach_error(void) {}
STUB
gcc -c -O0 -o "$out/stub/stub.o" "$out/stub/stub.c" || exit 1

for d in "${dirs[@]}"; do
    for f in "$gob"/tests/regression/"$d"/*.c; do
        [ -f "$f" ] || continue
        n=$d-$(basename "$f" .c)
        if grep -q 'RACE!' "$f"; then label=racy
        elif grep -q 'NORACE' "$f"; then label=race-free
        else label=none; fi
        gcc -g -O0 -w -pthread -I"$out/stub" -I"$(dirname "$f")" -o "$out/$n" "$f" \
            "$out/stub/stub.o" 2>/dev/null || continue
        timeout 5 "$out/$n" > "$out/$n.native" 2>/dev/null < /dev/null
        native=$?
        [ $native -eq 124 ] && continue
        timeout 60 valgrind --tool=racepred "$@" "$out/$n" > "$out/$n.stdout" 2> "$out/$n.stderr" < /dev/null
        rc=$?
        ctx=$(sed -n 's/.*ERROR SUMMARY: [0-9]* errors from \([0-9]*\) contexts.*/\1/p' "$out/$n.stderr" | head -1)
        echo "$n $label contexts=${ctx:-?} rc=$rc native=$native"
    done
done | tee "$out/results.txt"
awk '{ split($3, c, "="); r = (c[2] != "0" && c[2] != "?") ? "reported" : "silent";
       n[$2 " " r]++ } END { for (k in n) print n[k], k }' "$out/results.txt" | sort -k2
