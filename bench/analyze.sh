#!/bin/sh
# analyze.sh — racepred-analyze throughput and peak memory per detector on
# generated STD traces (bench/gen_trace.py), beside RAPID's engines on the
# same files.  Writes bench/out/analyze.csv and bench/out/analyze.md.
#
#   bench/analyze.sh                       # from the build tree
#
# Environment:
#   SIZES="100000 1000000"   trace lengths in events (add 10000000 if you
#                            have the time; the offline detectors keep at
#                            most RP_OFFLINE_MAX_EVENTS of them)
#   DETECTORS="hb shb wcp syncp osr m2"
#   M2_MAX=100000            m2 only on traces up to this length (quadratic)
#   REPS=3 RAPID_REPS=1      runs per cell; the median CPU time is reported
#   RAPID_ENGINES="HB SHB WCP SyncPreserving"  (SyncPreserving needs ~2 GB per
#                            10^6 events; empty: no RAPID)
#   NAME=analyze             output files bench/out/NAME.csv and NAME.md
#   TIMEOUT=600              seconds per run; a slower run is reported as such
#   RAPID_SRC=DIR            a RAPID checkout (github.com/umangm/rapid); default
#                            the fetched mirror /work/.mirror/umangm+rapid/repo,
#                            built with javac into a temporary directory.
#                            Without java/javac or sources RAPID is skipped.
#
# Time is user + system CPU seconds (/usr/bin/time), so a loaded machine
# changes it less than wall time; the load average is recorded.  Throughput
# = events / CPU seconds.  RAPID reports racy events (second accesses with
# some race), racepred race pairs and racy locations (--summary=yes).
set -u
top_builddir=$(pwd)
top_srcdir=$(cd "$(dirname "$0")/.." && pwd)
analyze=$top_builddir/racepred-analyze
SIZES=${SIZES:-"100000 1000000"}
DETECTORS=${DETECTORS:-"hb shb wcp syncp osr m2"}
M2_MAX=${M2_MAX:-100000}
REPS=${REPS:-3}
RAPID_REPS=${RAPID_REPS:-1}
TIMEOUT=${TIMEOUT:-600}
RAPID_SRC=${RAPID_SRC:-/work/.mirror/umangm+rapid/repo}
RAPID_ENGINES=${RAPID_ENGINES-"HB SHB WCP SyncPreserving"}
NAME=${NAME:-analyze}
out=$top_srcdir/bench/out
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$out"
[ -x "$analyze" ] || { echo "analyze.sh: build racepred-analyze first ($analyze)" >&2; exit 1; }

# RAPID from a git checkout or mirror: sources and the jars that exist.
build_rapid() {
    command -v javac >/dev/null && command -v java >/dev/null || return 1
    [ -d "$RAPID_SRC" ] || return 1
    r=$tmp/rapid
    mkdir -p "$r/classes"
    if [ -d "$RAPID_SRC/src" ]; then
        cp -r "$RAPID_SRC/src" "$RAPID_SRC/lib" "$r/"
    else
        git -C "$RAPID_SRC" archive HEAD src | tar x -C "$r" || return 1
        for f in $(git -C "$RAPID_SRC" ls-tree -r --name-only HEAD lib); do
            mkdir -p "$r/$(dirname "$f")"
            git -C "$RAPID_SRC" show "HEAD:$f" > "$r/$f" 2>/dev/null || rm -f "$r/$f"
        done
    fi
    javac -nowarn -encoding UTF-8 -cp "$r/lib/*:$r/lib/jgrapht/*" -d "$r/classes" \
        $(find "$r/src" -name '*.java') > "$r/javac.log" 2>&1 || return 1
    rapid_cp="$r/classes:$r/lib/*:$r/lib/jgrapht/*"
}

# run NAME CMD...: sets cpu (user+sys s), rss (KiB), status (ok|timeout|fail).
run() {
    timeout "$TIMEOUT" /usr/bin/time -f "%U %S %M" -o "$tmp/time" "$@" \
        > "$tmp/stdout" 2> "$tmp/stderr"
    rc=$?
    status=ok
    [ "$rc" -eq 124 ] && status=timeout
    [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ] && status=fail
    cpu=$(awk 'END { printf "%.2f", $1 + $2 }' "$tmp/time")
    rss=$(awk 'END { print $3 }' "$tmp/time")
}

median() {
    sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# measure TOOL ENGINE EVENTS REPS CMD...: one CSV row (median of REPS runs).
measure() {
    tool=$1 engine=$2 events=$3 reps=$4
    shift 4
    : > "$tmp/cpus"
    : > "$tmp/rsss"
    for k in $(seq "$reps"); do
        run "$@"
        [ "$status" = ok ] || break
        echo "$cpu" >> "$tmp/cpus"
        echo "$rss" >> "$tmp/rsss"
    done
    if [ "$status" != ok ]; then
        echo "$tool,$engine,$events,$status,,,," >> "$out/$NAME.csv"
        return
    fi
    c=$(median < "$tmp/cpus")
    m=$(median < "$tmp/rsss")
    if [ "$tool" = racepred ]; then
        found=$(sed -n "s/.*; $engine: \([0-9]*\) race pairs, \([0-9]*\) racy locations.*/\1 pairs; \2 locations/p" "$tmp/stderr")
    else
        found="$(sed -n "s/Number of 'racy' events found = //p" "$tmp/stdout" | tail -1) racy events"
    fi
    echo "$tool,$engine,$events,ok,$c,$(awk -v e="$events" -v c="$c" 'BEGIN { printf "%.0f", (c > 0) ? e / c : 0 }'),$((m / 1024)),$found" >> "$out/$NAME.csv"
}

echo "tool,engine,events,status,cpu_s,events_per_s,peak_rss_mib,found" > "$out/$NAME.csv"
rapid=no
build_rapid && rapid=yes
load=$(cut -d' ' -f1-3 /proc/loadavg)
for n in $SIZES; do
    trace=$tmp/gen-$n.std
    python3 "$top_srcdir/bench/gen_trace.py" --events "$n" > "$trace"
    for d in $DETECTORS; do
        [ "$d" = m2 ] && [ "$n" -gt "$M2_MAX" ] && continue
        measure racepred "$d" "$n" "$REPS" "$analyze" --detector="$d" --summary=yes "$trace"
    done
    if [ "$rapid" = yes ]; then
        for e in $RAPID_ENGINES; do
            measure rapid "$e" "$n" "$RAPID_REPS" java -cp "$rapid_cp" "$e" -f std -p "$trace"
        done
    fi
    rm -f "$trace"
done

{
    echo "racepred-analyze vs RAPID on bench/gen_trace.py STD traces (4 threads, 4 locks, 64 shared"
    echo "variables); CPU seconds (user+sys, median of $REPS racepred / $RAPID_REPS RAPID runs), events per"
    echo "CPU second, peak RSS; load average at the start: $load; $(nproc) CPUs; RAPID: $rapid."
    echo
    echo "| tool | engine | events | CPU s | events/s | peak RSS MiB | found |"
    echo "|---|---|---:|---:|---:|---:|---|"
    tail -n +2 "$out/$NAME.csv" | awk -F, '{
        if ($4 != "ok") printf "| %s | %s | %s | %s | | | |\n", $1, $2, $3, $4;
        else printf "| %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $5, $6, $7, $8 }'
} > "$out/$NAME.md"
cat "$out/$NAME.md"
