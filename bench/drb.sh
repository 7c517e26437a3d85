#!/bin/bash
# bench/drb.sh — racepred on DataRaceBench's C micro-benchmarks (OpenMP,
# each labelled by its name: -yes racy, -no race-free).  Not part of
# `make check`:
#
#   git clone https://github.com/LLNL/dataracebench DRB
#   bench/drb.sh DRB [--out=DIR] [racepred options...]
#
# Builds each micro-benchmarks/DRB*.c with gcc -fopenmp (DRB_CC=clang: with
# clang against LLVM's libomp, -gdwarf-4 for Valgrind's reader; those that
# do not build are skipped), runs it under racepred with OMP_NUM_THREADS=2 (set it
# to change that) and a 120 s limit, and prints a line per program: its
# label, racepred's error contexts and the exit code (124: the limit), then
# the counts by label.  Runs the in-tree build (vglib/) when there is one,
# else the installed racepred; VALGRIND_LIB chooses another.  Logs stay
# in --out (default /tmp/racepred-drb).
set -u

drb=${1:?usage: bench/drb.sh DATARACEBENCH_DIR [--out=DIR] [racepred options...]}
shift
out=/tmp/racepred-drb
if [ $# -gt 0 ] && [ "${1#--out=}" != "$1" ]; then
    out=${1#--out=}
    shift
fi
mkdir -p "$out"
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
cc=${DRB_CC:-gcc}
cc_flags=""
[ "$cc" = clang ] && cc_flags=-gdwarf-4
# The build this script belongs to, unless VALGRIND_LIB says otherwise
# (an installed racepred may be older).
top=$(cd "$(dirname "$0")/.." && pwd)
if [ -z "${VALGRIND_LIB:-}" ] && [ -x "$top/vglib/racepred-amd64-linux" ]; then
    export VALGRIND_LIB="$top/vglib"
fi

for f in "$drb"/micro-benchmarks/DRB*.c; do
    n=$(basename "$f" .c)
    $cc -g $cc_flags -O0 -fopenmp -w -I"$drb/micro-benchmarks" -o "$out/$n" "$f" -lm 2>/dev/null || continue
    case $n in *-yes) label=racy ;; *) label=race-free ;; esac
    timeout 120 valgrind --tool=racepred "$@" "$out/$n" > "$out/$n.stdout" 2> "$out/$n.stderr" < /dev/null
    rc=$?
    ctx=$(sed -n 's/.*ERROR SUMMARY: [0-9]* errors from \([0-9]*\) contexts.*/\1/p' "$out/$n.stderr" | head -1)
    echo "$n $label contexts=${ctx:-?} rc=$rc"
done | tee "$out/results.txt"
awk '{ split($3, c, "="); r = (c[2] != "0" && c[2] != "?") ? "reported" : "silent";
       n[$2 " " r]++ } END { for (k in n) print n[k], k }' "$out/results.txt" | sort -k2
