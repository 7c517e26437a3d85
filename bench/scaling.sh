#!/usr/bin/env bash
# bench/scaling.sh — how time and memory grow with threads, shared locations and
# run length, for racepred beside native, --tool=none, Helgrind and DRD.
#
# Builds bench/scaling.c (into bench/out/, which is output), then sweeps one
# parameter at a time from a fixed base point, each point under every
# configuration, one process at a time.  CPU time is user+sys and peak RSS is
# GNU time's %M, both the minimum of SCALING_RUNS runs (the machine may be
# shared: the minimum is the run least disturbed).  Writes bench/out/scaling.csv
# and bench/out/scaling.md (one table per sweep, ratios to none/helgrind/drd).
#
# The threads sweep keeps the TOTAL work fixed (ops per thread = total /
# threads), so a flat row means per-operation cost does not depend on the
# thread count; the other two sweeps run 4 threads.
#
# Environment:
#   SCALING_RUNS     runs per point and configuration (default 2)
#   SCALING_TIMEOUT  seconds before a run is killed and shown as "timeout" (120)
#   SCALING_TOTAL    total operations of the threads and locations sweeps (800000)
#   SCALING_BASE     ops per thread of run length ×1 (50000)
#   SCALING_THREADS, SCALING_SHARED, SCALING_MULT   the swept values (empty: skip)
#   VALGRIND_LIB     where racepred is; defaults to the in-tree vglib/ when it
#                    exists, else the installed one
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
out="$here/out"
runs=${SCALING_RUNS:-2}
tmo=${SCALING_TIMEOUT:-120}
total=${SCALING_TOTAL:-800000}
base=${SCALING_BASE:-50000}
threads_list=${SCALING_THREADS-"2 4 8 16 32 64"}
shared_list=${SCALING_SHARED-"100 1000 10000 100000"}
mult_list=${SCALING_MULT-"1 2 4 8"}
base_threads=4
base_shared=1000
mkdir -p "$out"

for need in gcc valgrind /usr/bin/time timeout; do
    command -v "$need" >/dev/null || { echo "scaling: $need not found (apt-get install -y gcc valgrind time coreutils)" >&2; exit 1; }
done
if [ -z "${VALGRIND_LIB:-}" ] && [ -x "$top/vglib/racepred-amd64-linux" ]; then
    export VALGRIND_LIB="$top/vglib"
fi
valgrind -q --tool=racepred /bin/true 2>/dev/null \
    || { echo "scaling: valgrind cannot run --tool=racepred (build it: make, or set VALGRIND_LIB)" >&2; exit 1; }

prog="$out/scaling"
gcc -O1 -g -pthread -o "$prog" "$here/scaling.c"

# configuration name -> command prefix (empty: native)
configs=(native none helgrind drd racepred-hb racepred-default)
prefix() {
    case $1 in
        native) ;;
        none|helgrind|drd) echo "valgrind --tool=$1" ;;
        racepred-hb) echo "valgrind --tool=racepred --detector=hb" ;;
        racepred-default) echo "valgrind --tool=racepred" ;;
    esac
}

# measure CONFIG ARGS... : prints "cpu_s rss_kb errors status", the minimum of
# $runs runs; status is ok, timeout or failed (a timeout is not run again)
measure() {
    local config=$1; shift
    local -a cmd
    read -r -a cmd <<< "$(prefix "$config")"
    local best_cpu="" best_rss="" errors="-" status=ok i rc u s m
    for ((i = 0; i < runs; i++)); do
        rc=0
        /usr/bin/time -f "%U %S %M" -o "$out/time.tmp" \
            timeout -k 5 "$tmo" "${cmd[@]}" "$prog" "$@" > /dev/null 2> "$out/scaling.stderr" || rc=$?
        if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then status=timeout; break; fi
        if [ "$rc" -ne 0 ]; then status=failed; cp "$out/scaling.stderr" "$out/failed-$config.stderr"; break; fi
        read -r u s m < <(tail -n 1 "$out/time.tmp")
        best_cpu=$(awk -v a="$best_cpu" -v b="$(awk -v u="$u" -v s="$s" 'BEGIN { print u + s }')" \
            'BEGIN { print (a == "" || b < a) ? b : a }')
        best_rss=$(awk -v a="$best_rss" -v b="$m" 'BEGIN { print (a == "" || b < a) ? b : a }')
        # a race-free run must stay silent: keep the tool's error count
        if [ "$config" != native ]; then
            errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$out/scaling.stderr" | tail -n 1)
        fi
    done
    echo "${best_cpu:--} ${best_rss:--} ${errors:--} $status"
}

csv="$out/scaling.csv"
echo "sweep,value,threads,shared,ops_per_thread,config,cpu_s,peak_rss_kb,errors,status" > "$csv"

# point SWEEP VALUE THREADS SHARED OPS : every configuration at one point
point() {
    local sweep=$1 value=$2 t=$3 sh=$4 n=$5 c r
    for c in "${configs[@]}"; do
        r=$(measure "$c" -t "$t" -s "$sh" -n "$n")
        read -r cpu rss err st <<< "$r"
        echo "$sweep,$value,$t,$sh,$n,$c,$cpu,$rss,$err,$st" >> "$csv"
        echo "scaling: $sweep=$value $c: ${cpu} s, ${rss} kB, errors ${err}, $st" >&2
    done
}

started=$(date +%s)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for t in $threads_list; do point threads "$t" "$t" "$base_shared" $((total / t)); done
for sh in $shared_list; do point shared "$sh" "$base_threads" "$sh" $((total / base_threads)); done
for x in $mult_list; do point length "×$x" "$base_threads" "$base_shared" $((base * x)); done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
rm -f "$out/time.tmp"

# The markdown: per sweep, CPU seconds and the ratios of both racepred
# configurations, then peak RSS.  "timeout"/"failed" cells have no ratio.
md="$out/scaling.md"
{
    echo "Machine: $(nproc) cores ($(sed -n "s/^model name[[:space:]]*: //p" /proc/cpuinfo | head -1)), $(uname -r); $(valgrind --version); racepred $(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')"
    echo "Load average before/after: $load_before / $load_after; sweep took $(( $(date +%s) - started )) s; min of $runs runs per point; timeout ${tmo} s"
    echo "Workload: bench/scaling, 20 % of operations a locked read-modify-write of a random shared location (16 locks), the rest on thread-private words; race-free."
    awk -F, -v total="$total" -v base="$base" -v bt="$base_threads" -v bs="$base_shared" '
    NR == 1 { next }
    {
        key = $1 SUBSEP $2
        if (!(key in seen)) { seen[key] = 1; order[$1, ++nv[$1]] = $2 }
        v = ($10 == "ok") ? sprintf("%.2f", $7) : $10
        cpu[$1, $2, $6] = v
        rss[$1, $2, $6] = ($10 == "ok") ? sprintf("%.1f", $8 / 1024) : $10
        err[$1, $2, $6] = $9
        if ($9 != "-" && $9 != "0") noisy = noisy sprintf(" %s=%s %s (%s errors);", $1, $2, $6, $9)
    }
    function num(x) { return x ~ /^[0-9.]+$/ }
    function ratio(a, b) { return (num(a) && num(b) && b > 0) ? sprintf("%.2f", a / b) : "–" }
    function table(sw, title, i, v, c, n, h, d, hg, dr) {
        printf "\n### %s\n\n", title
        printf "CPU seconds (user+sys):\n\n"
        printf "| %s | native | none | helgrind | drd | racepred hb | racepred default | hb/none | hb/helgrind | hb/drd | default/none | default/helgrind | default/drd |\n", sw
        printf "|---|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        for (i = 1; i <= nv[sw]; i++) {
            v = order[sw, i]
            n = cpu[sw, v, "none"]; hg = cpu[sw, v, "helgrind"]; dr = cpu[sw, v, "drd"]
            h = cpu[sw, v, "racepred-hb"]; d = cpu[sw, v, "racepred-default"]
            printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", v,
                cpu[sw, v, "native"], n, hg, dr, h, d,
                ratio(h, n), ratio(h, hg), ratio(h, dr), ratio(d, n), ratio(d, hg), ratio(d, dr)
        }
        printf "\nPeak RSS MB:\n\n"
        printf "| %s | native | none | helgrind | drd | racepred hb | racepred default |\n", sw
        printf "|---|---|---|---|---|---|---|\n"
        for (i = 1; i <= nv[sw]; i++) {
            v = order[sw, i]
            printf "| %s | %s | %s | %s | %s | %s | %s |\n", v, rss[sw, v, "native"], rss[sw, v, "none"],
                rss[sw, v, "helgrind"], rss[sw, v, "drd"], rss[sw, v, "racepred-hb"], rss[sw, v, "racepred-default"]
        }
    }
    END {
        table("threads", sprintf("Threads (%d operations in all, %d shared locations)", total, bs))
        table("shared", sprintf("Shared locations (%d threads, %d operations in all)", bt, total))
        table("length", sprintf("Run length (%d threads, %d shared locations, ×1 = %d operations per thread)", bt, bs, base))
        printf "\nReports on the race-free program:%s\n", (noisy == "") ? " none (every tool: 0 errors)." : noisy
    }' "$csv"
} > "$md"
cat "$md"
echo "(written: $md, $csv)"
