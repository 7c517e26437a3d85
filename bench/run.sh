#!/usr/bin/env bash
# bench/run.sh — racepred beside native, --tool=none, Helgrind and DRD, in one run.
#
# For each workload it runs every configuration BENCH_RUNS times, the
# configurations taking turns (median wall time, median CPU time = user +
# sys, median peak RSS, from GNU time)
# and writes a markdown table and a CSV to bench/out/ with the ratios of
# CPU times to none, the floor, Helgrind and DRD (CPU time, because the
# machine may be shared: wall time counts the other jobs too).  A ratio is
# the median of the runs' own ratios, each run's CPU time divided by that
# of the reference's run in the same turn: a machine whose speed drifts
# over minutes (a shared VM's does: docs/performance.md, thirty-seventh
# session) then moves both sides of each ratio alike.  "floor" is
# racepred with --bench-floor=yes: every access calls an empty helper, the
# cost of the instrumentation alone.  The last two columns come from the
# last run's stderr: the races each tool reported (error contexts; one per
# race for racepred) and racepred's predicted races without a witness
# (counted, not shown).  Nothing here is a pass/fail test: the numbers go
# into docs/performance.md.
#
# Environment:
#   BENCH_RUNS       runs per configuration (default 3)
#   BENCH_BYTES      random bytes before base64 for the input (default 3000000,
#                    which gives the 4 MB input of docs/performance.md)
#   BENCH_DETECTORS  space-separated racepred detector lists (default "hb")
#   BENCH_EXTRA      more workloads, separated by ';', each a command that
#                    reads the input on stdin (e.g. a -O0 build of zstd:
#                    "/path/to/zstd -T2 -c"); a command that reads no input
#                    works too (git -C REPO repack ..., docs/performance.md)
#   BENCH_BASE       "no" leaves pigz, pbzip2 and fresh out (default: they run;
#                    fresh is bench/fresh.c, built here with cc: two threads
#                    that fill fresh blocks and free them, "fresh 1000 256")
#   BENCH_VALGRIND_OPTS  more options for every Valgrind run, e.g.
#                    --trace-children=yes for a workload that runs its work
#                    in a child process
#   VALGRIND_LIB     where racepred is; defaults to the in-tree vglib/ when
#                    it exists, else the installed one
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out="$here/out"
runs=${BENCH_RUNS:-3}
bytes=${BENCH_BYTES:-3000000}
detectors=${BENCH_DETECTORS:-hb}
mkdir -p "$out"

if [ -z "${VALGRIND_LIB:-}" ] && [ -x "$top/vglib/racepred-amd64-linux" ]; then
    export VALGRIND_LIB="$top/vglib"
fi
for need in valgrind /usr/bin/time pigz; do
    command -v "$need" >/dev/null || { echo "bench: $need not found (apt-get install -y valgrind time pigz)" >&2; exit 1; }
done

input="$out/input.b64"
if [ ! -s "$input" ] || [ "$(stat -c %s "$input")" -lt $((bytes * 4 / 3)) ]; then
    head -c "$bytes" /dev/urandom | base64 > "$input"
fi

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# run_once NAME CMD... : one timed run, appended to $out/NAME.samples as
# "wall cpu rss_kb"; its stderr stays in $out/NAME.stderr.
run_once() {
    local name=$1; shift
    local w u sy r
    /usr/bin/time -f "%e %U %S %M" -o "$out/time.tmp" "$@" < "$input" > /dev/null 2> "$out/$name.stderr" || true
    read -r w u sy r < "$out/time.tmp"
    echo "$w $(awk -v u="$u" -v s="$sy" 'BEGIN { print u + s }') $r" >> "$out/$name.samples"
}

# summary NAME: "NAME wall cpu rss_kb", the medians of its samples.
summary() {
    local f="$out/$1.samples"
    printf '%s %s %s %s\n' "$1" "$(awk '{ print $1 }' "$f" | median)" \
        "$(awk '{ print $2 }' "$f" | median)" "$(awk '{ print $3 }' "$f" | median)"
}

# paired NAME REF: the median over the turns of NAME's CPU time divided by
# REF's in the same turn (the samples' lines are the turns, in order).
paired() {
    paste -d ' ' "$out/$1.samples" "$out/$2.samples" | awk '{ print $2 / $5 }' | median
}

# run_config NAME: one run of configuration NAME on the workload in cmd[].
run_config() {
    case $1 in
    native) run_once native "${cmd[@]}" ;;
    none) run_once none valgrind -q --tool=none "${vgopts[@]}" "${cmd[@]}" ;;
    floor) run_once floor valgrind -q --tool=racepred --bench-floor=yes "${vgopts[@]}" "${cmd[@]}" ;;
    helgrind) run_once helgrind valgrind -q --tool=helgrind "${vgopts[@]}" "${cmd[@]}" ;;
    drd) run_once drd valgrind -q --tool=drd "${vgopts[@]}" "${cmd[@]}" ;;
    racepred-*) run_once "$1" valgrind --tool=racepred --detector="${1#racepred-}" "${vgopts[@]}" \
                         "${cmd[@]}" ;;
    esac
}

# races NAME: "contexts unconfirmed" from the last run's stderr: the error
# summary's contexts (races, for racepred: one per reported race) and
# racepred's predicted races without a witness; "- -" for runs that
# detect nothing.
races() {
    local f="$out/$1.stderr" ctx unconf
    case $1 in native|none|floor) echo "- -"; return ;; esac
    # Summed over the processes of the run (--trace-children=yes).
    ctx=$(sed -n 's/.*ERROR SUMMARY: [0-9,]* errors from \([0-9,]*\) contexts.*/\1/p' "$f" \
          | tr -d , | awk '{ n += $1 } END { print n + 0 }')
    unconf=-
    case $1 in racepred-*)
        unconf=$(sed -n 's/.*racepred: \([0-9]*\) predicted race reports not shown.*/\1/p' "$f" \
                 | awk '{ n += $1 } END { print n + 0 }') ;;
    esac
    echo "${ctx:-0} ${unconf:-0}"
}

read -r -a vgopts <<< "${BENCH_VALGRIND_OPTS:-}"
workloads=()
if [ "${BENCH_BASE:-yes}" != no ]; then
    workloads+=("pigz -p 2 -c")
    command -v pbzip2 >/dev/null && workloads+=("pbzip2 -p2 -c")
    if cc -O2 -pthread -o "$out/fresh" "$here/fresh.c" 2>/dev/null; then
        workloads+=("$out/fresh 1000 256")
    else
        echo "bench: cannot build bench/fresh.c with cc: fresh left out" >&2
    fi
fi
IFS=';' read -r -a extra <<< "${BENCH_EXTRA:-}"
for wl in "${extra[@]}"; do
    [ -n "${wl// /}" ] && workloads+=("$wl")
done

csv="$out/bench.csv"
md="$out/bench.md"
echo "workload,config,wall_s,cpu_s,peak_rss_kb,cpu_vs_none,cpu_vs_floor,cpu_vs_helgrind,cpu_vs_drd,races,unconfirmed" > "$csv"
{
    echo "Machine: $(nproc) cores ($(sed -n "s/^model name[[:space:]]*: //p" /proc/cpuinfo | head -1)), $(uname -r); $(valgrind --version); input $(stat -c %s "$input") bytes; median of $runs runs (a ratio: the median of the turns' ratios)"
    echo
    echo "| workload | config | wall s | CPU s | peak RSS MB | CPU vs none | vs floor | vs helgrind | vs drd | races | unconfirmed |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|"
} > "$md"

# The configurations take turns, run after run, so that a machine that
# gets slower or faster during the benchmark moves every median alike.
configs=(native none floor helgrind drd)
for d in $detectors; do configs+=("racepred-$d"); done
for wl in "${workloads[@]}"; do
    read -r -a cmd <<< "$wl"
    for c in "${configs[@]}"; do rm -f "$out/$c.samples"; done
    for ((i = 0; i < runs; i++)); do
        for c in "${configs[@]}"; do run_config "$c"; done
    done
    for c in "${configs[@]}"; do
        read -r name wall cpu rss <<< "$(summary "$c")"
        read -r ctx unconf <<< "$(races "$name")"
        read -r vs_none vs_floor vs_hg vs_drd <<< "$(paired "$c" none) $(paired "$c" floor) $(paired "$c" helgrind) $(paired "$c" drd)"
        echo "\"$wl\",\"$name\",$wall,$cpu,$rss,$vs_none,$vs_floor,$vs_hg,$vs_drd,$ctx,$unconf" >> "$csv"
        awk -v wl="$wl" -v n="$name" -v w="$wall" -v c="$cpu" -v r="$rss" -v a="$vs_none" \
            -v b="$vs_floor" -v h="$vs_hg" -v d="$vs_drd" -v ctx="$ctx" -v unconf="$unconf" \
            'BEGIN { printf "| %s | %s | %.2f | %.2f | %.1f | %.2f | %.2f | %.2f | %.2f | %s | %s |\n", wl, n, w, c, r / 1024, a, b, h, d, ctx, unconf }' >> "$md"
    done
done
rm -f "$out/time.tmp" "$out"/*.samples
cat "$md"
echo "(written: $md, $csv)"
