#!/bin/sh
# bench/corpus.sh — racepred on real multi-threaded programs from Debian
# packages (issue 7).  One command, not part of `make check`:
#
#   bench/corpus.sh [--tools="racepred helgrind drd"] [--size-mb=N] [--timeout=S]
#                   [--out=DIR] [--only="pigz pbzip2 xz zstd sqlite3 sort git memcached redis"]
#                   [--detectors=LIST | --every-detector] [--memcached=PATH]
#
# --detectors=hb,wcp,... adds one racepred run per detector (--detector=D,
# shown as tool racepred:D) to --tools (the offline syncp, osr and m2 too:
# their log is bounded by --offline-events); --every-detector is
# --tools=racepred --detectors=hb,shb,lockset,wcp,dc,wdc,sdp,wdp and, unless
# --only says otherwise, only the small programs (pigz zstd sqlite3).
# --memcached=PATH runs that memcached binary instead of Debian's (a build
# with -g, to read the reports).
#
# Uses `valgrind` from PATH; to run an uninstalled build, point
# VALGRIND_LIB at its vglib (VALGRIND_LIB=$build/vglib bench/corpus.sh).
# As root, installs missing packages with apt-get.
#
# For each program: a native run, then one run under each tool (default
# detectors, --error-exitcode not set, so the program's own exit status
# must come out), each with a timeout (a timeout is a failure).  The output
# is compared with the native one (compressors: compressed bytes and the
# decompressed round trip; sqlite3, sort: the output; memcached: every
# answer checked by the client; redis: the counters and list lengths the
# benchmark left, and that its I/O threads did work).  Prints a table:
# program, tool, result, wall time, CPU time, peak RSS, errors and contexts
# from the tool's ERROR SUMMARY, racepred's unconfirmed predicted races;
# logs (with every report) stay in --out (default /tmp/racepred-corpus).
set -u

tools="racepred"
size_mb=2
timeout_s=300
out=/tmp/racepred-corpus
only=""
detectors=""
memcached_bin=memcached
want() { case " $only " in *" $1 "*) return 0 ;; esac; return 1; }
usage() {
    echo "usage: $0 [--tools=LIST] [--size-mb=N] [--timeout=S] [--out=DIR] [--only=LIST]" \
         "[--detectors=LIST | --every-detector] [--memcached=PATH]" >&2
    exit 2
}
for a in "$@"; do
    case $a in
    --tools=*) tools=${a#--tools=} ;;
    --size-mb=*) size_mb=${a#--size-mb=} ;;
    --timeout=*) timeout_s=${a#--timeout=} ;;
    --out=*) out=${a#--out=} ;;
    --only=*) only=${a#--only=} ;;
    --detectors=*) detectors=$(echo "${a#--detectors=}" | tr ',' ' ') ;;
    --every-detector)
        tools=""
        detectors="hb shb lockset wcp dc wdc sdp wdp"
        [ -n "$only" ] || only="pigz zstd sqlite3" ;;
    --memcached=*) memcached_bin=${a#--memcached=} ;;
    *) usage ;;
    esac
done
[ -n "$only" ] || only="pigz pbzip2 xz zstd sqlite3 sort git memcached redis"
for d in $detectors; do
    case $d in
    hb|shb|lockset|wcp|dc|wdc|sdp|wdp|syncp|osr|m2) tools="$tools racepred:$d" ;;
    *) echo "corpus: unknown detector '$d' (hb shb lockset wcp dc wdc sdp wdp syncp osr m2)" >&2; exit 2 ;;
    esac
done
[ -n "$tools" ] || usage

# --- packages -------------------------------------------------------------
need="pigz pbzip2 xz-utils zstd sqlite3 git memcached redis-server redis-tools python3 time"
missing=""
for p in $need; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "corpus: missing packages:$missing (run as root to install them)" >&2
        exit 2
    fi
    echo "corpus: installing$missing"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null || exit 2
fi

rm -rf "$out" && mkdir -p "$out" || exit 2
cd "$out" || exit 2
table=$out/table.txt
: > "$table"
failures=0

# Compressible, deterministic input: words and numbers from a fixed seed.
python3 - "$size_mb" > input.dat <<'PY'
import random, sys
r = random.Random(7)
words = [''.join(r.choice('etaoinshrdlucmfwyp') for _ in range(r.randint(2, 9))) for _ in range(4000)]
n = int(sys.argv[1]) << 20
out = []
size = 0
while size < n:
    line = ' '.join(r.choice(words) for _ in range(12)) + ' %d\n' % r.randint(0, 10**6)
    out.append(line)
    size += len(line)
sys.stdout.write(''.join(out)[:n])
PY

# The valgrind command line of TOOL: a tool name, or racepred:DETECTOR.
# racepred runs with -v for its count of unconfirmed predicted races.
vg_cmd() { # TOOL LOG
    case $1 in
    racepred:*) echo "valgrind --tool=racepred -v --detector=${1#racepred:} --log-file=$2" ;;
    racepred) echo "valgrind --tool=racepred -v --log-file=$2" ;;
    *) echo "valgrind --tool=$1 --log-file=$2" ;;
    esac
}

# Sets $secs, $cpu, $rss_kb from NAME.TOOL.time (/usr/bin/time's output,
# after a "Command exited with non-zero status N" line if any).
read_time() { # NAME TOOL
    tail -n 1 "$out/$1.$2.time" | { read -r s u r; echo "$s $u $r"; } > "$out/$1.$2.tr"
    read -r secs cpu rss_kb < "$out/$1.$2.tr"
}

# Sets $errs, $ctxs, $unconf from the tool's log (or - natively); $rc
# becomes 200 when the tool reported an internal failure.
read_log() { # TOOL LOG
    errs=- ctxs=- unconf=-
    [ "$1" != native ] || return 0
    if [ ! -f "$2" ]; then errs=none; return 0; fi
    summary=$(grep 'ERROR SUMMARY' "$2" | tail -n 1)
    errs=$(echo "$summary" | sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p')
    ctxs=$(echo "$summary" | sed -n 's/.*from \([0-9]*\) contexts.*/\1/p')
    [ -n "$errs" ] || errs="none"
    case $1 in racepred*)
        unconf=$(sed -n 's/.*racepred: witnesses.*, \([0-9]*\) unconfirmed$/\1/p' "$2" | tail -n 1)
        [ -n "$unconf" ] || unconf=- ;;
    esac
    if grep -q 'valgrind: the .impossible. happened\|racepred: internal error\|Assertion .* failed' "$2"; then
        rc=200
    fi
}

# run NAME TOOL OUTFILE CMD...: runs CMD (stdout to OUTFILE) natively
# (TOOL=native) or under valgrind (vg_cmd), with the timeout; sets $rc,
# $secs, $cpu, $rss_kb, $errs, $ctxs, $unconf; the log is NAME.TOOL.log.
run() {
    rname=$1 tool=$2 outfile=$3
    shift 3
    log=$out/$rname.$tool.log
    rm -f "$log"
    if [ "$tool" != native ]; then
        # shellcheck disable=SC2046  # word splitting of the command is meant
        set -- $(vg_cmd "$tool" "$log") "$@"
    fi
    /usr/bin/time -f '%e %U %M' -o "$out/$rname.$tool.time" \
        timeout -k 10 "$timeout_s" "$@" > "$outfile" 2> "$out/$rname.$tool.stderr"
    rc=$?
    read_time "$rname" "$tool"
    read_log "$tool" "$log"
}

record() { # NAME TOOL VERDICT
    printf '%-10s %-16s %-28s %8s %8s %9s %7s %6s %6s\n' "$1" "$2" "$3" "$secs" "$cpu" \
        "$rss_kb" "$errs" "$ctxs" "$unconf" >> "$table"
    case $3 in ok*) ;; *) failures=$((failures + 1)) ;; esac
}

verdict() { # NATIVE_RC SAME(0/1)
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then echo "FAIL timeout"
    elif [ "$rc" = 200 ]; then echo "FAIL tool crash"
    elif [ "$rc" != "$1" ]; then echo "FAIL exit $rc (native $1)"
    elif [ "$2" != 0 ]; then echo "FAIL output differs"
    else echo ok; fi
}

# --- compressors: compress (output identical to native), decompress ------
# valgrind follows the program, not sh: run the compressor directly.
compressor_direct() { # NAME "COMPRESS ARGS" "DECOMPRESS ARGS"
    name=$1 comp=$2 decomp=$3
    run "$name" native "$name.native.z" $comp input.dat; nrc=$rc
    $decomp "$name.native.z" > "$name.native.back" && cmp -s input.dat "$name.native.back" \
        || echo "corpus: $name: native round trip failed" >&2
    record "$name" native "$([ $nrc = 0 ] && echo ok || echo "FAIL native exit $nrc")"
    for t in $tools; do
        run "$name-c" "$t" "$name.$t.z" $comp input.dat
        cmp -s "$name.native.z" "$name.$t.z"; same=$?
        record "$name-c" "$t" "$(verdict $nrc $same)"
        run "$name-d" "$t" "$name.$t.back" $decomp "$name.native.z"
        cmp -s input.dat "$name.$t.back"; same=$?
        record "$name-d" "$t" "$(verdict 0 $same)"
    done
}

want pigz && compressor_direct pigz "pigz -p 2 -b 128 -c" "pigz -p 2 -d -c"
want pbzip2 && compressor_direct pbzip2 "pbzip2 -p2 -b1 -c" "pbzip2 -p2 -d -c"
want xz && compressor_direct xz "xz -T2 --block-size=262144 -c" "xz -T2 -d -c"
want zstd && compressor_direct zstd "zstd -q -T2 -B524288 -c" "zstd -q -T2 -d -c"

# --- sqlite3: the multi-threaded sorter (PRAGMA threads) ------------------
# 20,000 rows of 213-byte keys make CREATE INDEX sort several PMAs: sqlite
# then starts its sorter threads (2 clones natively, strace -f).
cat > sqlite.sql <<'SQL'
PRAGMA threads = 2;
PRAGMA cache_size = 50;
CREATE TABLE t(a INTEGER, b TEXT);
WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 20000)
INSERT INTO t SELECT (i * 7919) % 20011, printf('row-%08d-%.200c', (i * 104729) % 1000003, 'x') FROM c;
CREATE INDEX t_b ON t(b);
SELECT count(*), sum(a) FROM t;
SELECT b FROM t ORDER BY b LIMIT 3;
SELECT a, count(*) FROM t GROUP BY a ORDER BY 2 DESC, 1 LIMIT 3;
SQL
if want sqlite3; then
rm -f sq.*.db
run sqlite3 native sqlite3.native.out sqlite3 sq.native.db ".read sqlite.sql"; nrc=$rc
record sqlite3 native "$([ $nrc = 0 ] && echo ok || echo "FAIL native exit $nrc")"
for t in $tools; do
    run sqlite3 "$t" "sqlite3.$t.out" sqlite3 "sq.$t.db" ".read sqlite.sql"
    cmp -s sqlite3.native.out "sqlite3.$t.out"; same=$?
    record sqlite3 "$t" "$(verdict $nrc $same)"
done
fi

# --- GNU sort --parallel=2: a threaded merge of 300,000 lines -------------
# sort starts its merge threads only for 2^17 lines or more per thread
# (SUBTHREAD_LINES_HEURISTIC; 1 clone natively here, strace -f); -S keeps
# the buffer, whose every byte the tool shadows, at 32 MB.
if want sort; then
python3 - > lines.txt <<'PY'
import random
r = random.Random(3)
print('\n'.join('%08d %s' % (r.randint(0, 10**8), 'x' * (i % 7)) for i in range(300000)))
PY
run sort native sort.native.out sort --parallel=2 -S 32M lines.txt; nrc=$rc
record sort native "$([ $nrc = 0 ] && echo ok || echo "FAIL native exit $nrc")"
for t in $tools; do
    run sort "$t" "sort.$t.out" sort --parallel=2 -S 32M lines.txt
    cmp -s sort.native.out "sort.$t.out"; same=$?
    record sort "$t" "$(verdict $nrc $same)"
done
fi

# --- git: pack-objects --threads=2 (delta search) and grep --threads=2 ------
# A repository of 24 commits of three files cut from input.dat, with fixed
# authors and dates.  pack-objects' choice of deltas may follow its threads'
# schedule, so its pack is checked, not compared: index-pack verifies every
# object, and the objects it lists must be the ones given.  grep's matches,
# sorted, must be the native ones.
if want git; then
rm -rf repo && git init -q repo || exit 2
(
    cd repo || exit 2
    export GIT_AUTHOR_NAME=corpus GIT_AUTHOR_EMAIL=corpus@example.org \
        GIT_COMMITTER_NAME=corpus GIT_COMMITTER_EMAIL=corpus@example.org
    lines=$(wc -l < ../input.dat)
    i=0
    while [ $i -lt 24 ]; do
        for f in 0 1 2; do
            head -n $(( (lines / 4) + i * 97 + f * 1013 )) ../input.dat \
                | tail -n $(( lines / 24 + f * 311 )) > "file$f.txt"
        done
        git add file0.txt file1.txt file2.txt
        GIT_AUTHOR_DATE="@$((1700000000 + i)) +0000" GIT_COMMITTER_DATE="@$((1700000000 + i)) +0000" \
            git commit -q -m "commit $i"
        i=$((i + 1))
    done
)
git -C repo rev-list --objects --all > git.objects
cut -d' ' -f1 git.objects | sort > git.ids
git_pack_case() { # TOOL
    run git-pack "$1" "git.$1.pack" git -C repo pack-objects --threads=2 --no-reuse-delta \
        --stdout -q < git.objects
    rm -f "git.$1.idx"
    git index-pack -o "git.$1.idx" "git.$1.pack" > /dev/null 2>&1 \
        && git show-index < "git.$1.idx" | cut -d' ' -f2 | sort | cmp -s - git.ids
    same=$?
}
git_pack_case native; nrc=$rc
record git-pack native "$([ $nrc = 0 ] && [ $same = 0 ] && echo ok || echo "FAIL native exit $nrc")"
for t in $tools; do
    git_pack_case "$t"
    record git-pack "$t" "$(verdict $nrc $same)"
done
run git-grep native git-grep.native.out git -C repo grep --threads=2 -n -e 'ta[a-z]*e' -e '[0-9]77'
nrc=$rc
sort git-grep.native.out > git-grep.native.sorted
record git-grep native "$([ $nrc = 0 ] && echo ok || echo "FAIL native exit $nrc")"
for t in $tools; do
    run git-grep "$t" "git-grep.$t.out" git -C repo grep --threads=2 -n -e 'ta[a-z]*e' -e '[0-9]77'
    sort "git-grep.$t.out" | cmp -s git-grep.native.sorted -; same=$?
    record git-grep "$t" "$(verdict $nrc $same)"
done
fi

# --- memcached -t 4 on loopback, driven by a bounded client ---------------
# -c: memcached sets RLIMIT_NOFILE (soft and hard) to its connection limit,
# and Valgrind refuses any hard limit but its own (the process's minus the
# descriptors it keeps), so memcached exits 71 under every Valgrind tool
# unless -c is exactly that number; natively the same -c is used.
mc_conns=$(valgrind --tool=none sh -c 'ulimit -Hn' 2>/dev/null)
case $mc_conns in ''|*[!0-9]*) mc_conns=1024 ;; esac
cat > mc_client.py <<'PY'
import os, socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
deadline = time.time() + float(sys.argv[3])
while True:
    try:
        s = socket.create_connection(('127.0.0.1', port), timeout=30)
        break
    except OSError:
        if time.time() > deadline or (len(sys.argv) > 4 and not os.path.exists('/proc/' + sys.argv[4])):
            print('client: no server'); sys.exit(3)
        time.sleep(0.2)
f = s.makefile('rwb')
def cmd(line, data=None):
    f.write(line.encode() + b'\r\n')
    if data is not None:
        f.write(data + b'\r\n')
    f.flush()
bad = 0
for i in range(n):
    v = b'value-%d-' % i + b'x' * (i % 50)
    cmd('set key%d 0 0 %d' % (i, len(v)), v)
    if f.readline() != b'STORED\r\n':
        bad += 1
for i in range(n):
    cmd('get key%d' % i)
    v = b'value-%d-' % i + b'x' * (i % 50)
    if f.readline() != b'VALUE key%d 0 %d\r\n' % (i, len(v)) or f.readline() != v + b'\r\n' \
       or f.readline() != b'END\r\n':
        bad += 1
cmd('incr key0 1')
bad += f.readline() != b'CLIENT_ERROR cannot increment or decrement non-numeric value\r\n'
print('client: %d keys, %d bad answers' % (n, bad))
cmd('shutdown')
s.close()
sys.exit(1 if bad else 0)
PY
mc_port=$((21000 + $$ % 1000))
mc_case() { # TOOL
    t=$1 log=$out/memcached.$1.log
    if [ "$t" = native ]; then pre=""; else pre=$(vg_cmd "$t" "$log"); fi
    rm -f "$log"
    # shellcheck disable=SC2086  # $pre is a command line
    /usr/bin/time -f '%e %U %M' -o "$out/memcached.$t.time" timeout -k 10 "$timeout_s" \
        $pre "$memcached_bin" -t 4 -c "$mc_conns" -p "$mc_port" -U 0 -l 127.0.0.1 -A -m 16 -u nobody \
        > "$out/memcached.$t.stdout" 2> "$out/memcached.$t.stderr" &
    srv=$!
    python3 mc_client.py "$mc_port" 2000 120 "$srv" > "memcached.$t.client"; crc=$?
    wait $srv; rc=$?
    read_time memcached "$t"
    read_log "$t" "$log"
    [ "$crc" = 0 ] && same=0 || same=1
}
if want memcached; then
mc_case native; mc_nrc=$rc
record memcached native "$([ $crc = 0 ] && echo ok || echo "FAIL native client $crc")"
for t in $tools; do
    mc_case "$t"
    record memcached "$t" "$(verdict $mc_nrc $same)"
done
fi

# --- redis-server with 4 I/O threads on loopback --------------------------
# redis-benchmark: 32 connections, 8-request pipelines (enough pending
# clients for redis to hand reads and writes to its I/O threads), 2,000
# requests each of SET, GET, INCR and LPUSH on fixed keys.  Checked after:
# the counter and the list hold exactly 2,000, the value 3 bytes, and the
# I/O threads processed reads and writes; then SHUTDOWN NOSAVE (exit 0).
rd_port=$((23000 + $$ % 1000))
rd_n=2000
cat > redis.conf <<EOF
port $rd_port
bind 127.0.0.1
daemonize no
save ""
appendonly no
io-threads 4
io-threads-do-reads yes
dir $out
logfile ""
EOF
# Waits until the server answers PING (or died, or 120 s passed).
rd_wait() { # SERVER_PID
    i=0
    while [ $i -lt 600 ]; do
        [ "$(redis-cli -p "$rd_port" ping 2>/dev/null)" = PONG ] && return 0
        kill -0 "$1" 2>/dev/null || return 1
        sleep 0.2
        i=$((i + 1))
    done
    return 1
}
rd_checks() { # prints the facts compared with the expected ones
    echo "incr counter: $(redis-cli -p "$rd_port" get counter:__rand_int__)"
    echo "list length: $(redis-cli -p "$rd_port" llen mylist)"
    echo "value bytes: $(redis-cli -p "$rd_port" strlen key:__rand_int__)"
    redis-cli -p "$rd_port" info stats | tr -d '\r' | awk -F: '
        /^io_threaded_reads_processed:/ { r = $2 }
        /^io_threaded_writes_processed:/ { w = $2 }
        END { print "io threads read: " (r > 0 ? "yes" : "no") ", wrote: " (w > 0 ? "yes" : "no") }'
}
printf 'incr counter: %s\nlist length: %s\nvalue bytes: 3\nio threads read: yes, wrote: yes\n' \
    "$rd_n" "$rd_n" > redis.expected
rd_case() { # TOOL
    t=$1 log=$out/redis.$1.log
    if [ "$t" = native ]; then pre=""; else pre=$(vg_cmd "$t" "$log"); fi
    rm -f "$log"
    # shellcheck disable=SC2086  # $pre is a command line
    /usr/bin/time -f '%e %U %M' -o "$out/redis.$t.time" timeout -k 10 "$timeout_s" \
        $pre redis-server "$out/redis.conf" > "$out/redis.$t.stdout" 2> "$out/redis.$t.stderr" &
    srv=$!
    if rd_wait $srv; then
        timeout "$timeout_s" redis-benchmark -p "$rd_port" -c 32 -P 8 -n "$rd_n" \
            -t set,get,incr,lpush -q > "redis.$t.bench" 2>&1
        rd_checks > "redis.$t.checks"
        redis-cli -p "$rd_port" shutdown nosave > /dev/null 2>&1
    else
        echo "server never answered" > "redis.$t.checks"
    fi
    wait $srv; rc=$?
    read_time redis "$t"
    read_log "$t" "$log"
    cmp -s redis.expected "redis.$t.checks"; same=$?
}
if want redis; then
rd_case native; rd_nrc=$rc
record redis native "$([ $same = 0 ] && [ $rc = 0 ] && echo ok || echo "FAIL native checks/exit $rc")"
for t in $tools; do
    rd_case "$t"
    record redis "$t" "$(verdict $rd_nrc $same)"
done
fi

printf '%-10s %-16s %-28s %8s %8s %9s %7s %6s %6s\n' program tool result "time(s)" "cpu(s)" \
    "RSS(KB)" errors ctxs unconf
cat "$table"
echo "corpus: $failures failure(s); logs in $out"
[ "$failures" = 0 ]
