#!/bin/sh
# test_analyze_summary.sh — racepred-analyze's summary on stderr
# (--summary=yes): on a trace whose counts are known, the numbers are the
# trace's (events, threads, locks, variables) and each detector's (race
# pairs = its stdout lines, racy locations = the distinct positions in
# them); stdout is the same without it, and with stderr not a terminal the
# default prints nothing on stderr; a file that does not parse gets its
# error message only.  Also --racy-reads-order.  Run from the build tree.
top_builddir=$(pwd)
top_srcdir=$(cd "$(dirname "$0")/../.." && pwd)
analyze=${RP_ANALYZE:-$top_builddir/racepred-analyze}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

check() {
    if [ "$2" = "$3" ]; then
        echo "PASS: $1"
    else
        echo "FAIL: $1: got '$2', want '$3'"
        failures=$((failures + 1))
    fi
}

# 3 threads, 2 locks, 2 variables, 11 events.
cat > "$tmp/t.trace" <<'TRACE'
T0 fork(T1)
T0 fork(T2)
T0 w(x)
T1 acq(l)
T1 w(y)
T1 rel(l)
T2 acq(m)
T2 r(x)
T2 rel(m)
T1 w(x)
T2 w(y)
TRACE
"$analyze" --detector=hb,syncp --summary=yes "$tmp/t.trace" > "$tmp/out" 2> "$tmp/err"
check "exit status" "$?" 0
check "one summary line" "$(wc -l < "$tmp/err" | tr -d ' ')" 1
summary=$(cat "$tmp/err")
check "counts" "$(echo "$summary" | sed 's/; hb.*//')" \
    "$tmp/t.trace: 11 events, 3 threads, 2 locks, 2 variables"
for d in hb syncp; do
    pairs=$(grep -c "^$d " "$tmp/out")
    locations=$(grep "^$d " "$tmp/out" | awk '{ split($2, p, "-"); print p[1]; print p[2] }' |
                sort -u | wc -l | tr -d ' ')
    check "$d counts" "$(echo "$summary" | sed -n "s/.*; $d: \([0-9]*\) race pairs, \([0-9]*\) racy locations.*/\1 \2/p")" \
        "$pairs $locations"
done
check "some races" "$(test -s "$tmp/out" && echo yes)" yes
echo "$summary" | grep -Eq '; [0-9]+\.[0-9]{2} s CPU, [0-9]+\.[0-9]{2} s, peak RSS [0-9]+ MiB$'
check "time and memory" "$?" 0

"$analyze" --detector=hb,syncp "$tmp/t.trace" > "$tmp/out2" 2> "$tmp/err2"
check "default: same stdout" "$(cmp -s "$tmp/out" "$tmp/out2" && echo same)" same
check "default, stderr a file: empty stderr" "$(wc -c < "$tmp/err2" | tr -d ' ')" 0

# --racy-reads-order=yes (location mode): T1's racy read of the flag
# orders it after T0's writes, so the data's race goes, the flag's stays.
printf 'T0 w(d)\nT0 w(f)\nT1 r(f)\nT1 r(d)\n' > "$tmp/flag.trace"
check "racy reads: without the order" \
    "$("$analyze" --all-pairs=no "$tmp/flag.trace" | tr '\n' ';')" "hb 1-4 d w@T0 r@T1;hb 2-3 f w@T0 r@T1;"
check "racy reads: with the order" \
    "$("$analyze" --all-pairs=no --racy-reads-order=yes "$tmp/flag.trace" | tr '\n' ';')" "hb 2-3 f w@T0 r@T1;"

printf 'T0 w(x)\nT0 rel(l)\n' > "$tmp/bad.trace"
"$analyze" --summary=yes "$tmp/bad.trace" > /dev/null 2> "$tmp/err3"
check "bad trace: exit 1" "$?" 1
check "bad trace: only its message" "$(wc -l < "$tmp/err3" | tr -d ' ')" 1

[ "$failures" -eq 0 ]
