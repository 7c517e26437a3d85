#!/bin/sh
# bad_input.sh — the bad-input matrix of docs/reliability.md, as tests.
# Run by `make check` from the top build directory (automake exports
# $srcdir); `make check-sanitize` runs its analyser half again on the
# sanitized racepred-analyze (RP_ANALYZE=..., RP_BAD_INPUT_TOOL=no).
#
#   tool options     every racepred option with a bad value stops Valgrind
#                    with a non-zero exit and exactly one line saying what
#                    is wrong between Valgrind's "Bad option: OPT" line and
#                    its "Use --help" line;
#   trace files      racepred-analyze on truncated, garbage, huge numbers,
#                    unknown threads, release of an unheld lock, join of an
#                    unknown thread, in the text, STD and binary formats:
#                    exit 1, exactly one line on stderr, "FILE:LINE: message"
#                    (text, STD) or "FILE: offset N: message" (binary), with
#                    the expected line/offset and words; never a crash.
set -u

top_builddir=$(pwd)
analyze=${RP_ANALYZE:-$top_builddir/racepred-analyze}
run_tool_checks=${RP_BAD_INPUT_TOOL:-yes}
VALGRIND_LIB=${VALGRIND_LIB:-$top_builddir/vglib}
export VALGRIND_LIB
tmp=$(mktemp -d "${TMPDIR:-/tmp}/racepred-bad.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

failures=0
checks=0
pass() { checks=$((checks + 1)); echo "PASS: $1"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL: $1"; }

# --- tool options -----------------------------------------------------------
# bad_option OPTION EXPECTED-WORDS (a grep -E pattern for the message line)
bad_option() {
    valgrind --tool=racepred "$1" /bin/true >"$tmp/out" 2>"$tmp/err"
    rc=$?
    msg=$(sed -n '2p' "$tmp/err")
    if [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && [ "$(wc -l < "$tmp/err")" -eq 3 ] \
        && grep -qxF -- "valgrind: Bad option: $1" "$tmp/err" \
        && echo "$msg" | grep -Eq -- "$2" \
        && sed -n 3p "$tmp/err" | grep -q 'Use --help'; then
        pass "option $1: $msg"
    else
        fail "option $1 (exit $rc): $(cat "$tmp/err")"
    fi
}

if [ "$run_tool_checks" = yes ]; then
    bad_option --detector=nope "unknown detector 'nope' \(known: hb, "
    bad_option --detector=hb,hb "detector 'hb' listed twice"
    bad_option --detector= "empty detector name in the list \(known: hb, "
    bad_option --detector=hb, "empty detector name"
    bad_option --ignore-objects= "expected a comma-separated list of object name patterns"
    bad_option --ignore-objects=, "expected a comma-separated list of object name patterns"
    bad_option --sync-objects=libgomp.so*, "expected a comma-separated list of object name patterns"
    bad_option --atomic-sources= "expected a comma-separated list of source path patterns"
    bad_option --lock-functions=lock@futex.rs, "expected a comma-separated list of function name patterns"
    bad_option --rwlock-functions=,read@futex.rs "expected a comma-separated list of function name patterns"
    bad_option --atomic-sources=*/atomic,,*/x.h "expected a comma-separated list of source path patterns"
    bad_option --free-is-write=maybe "Invalid boolean value .maybe."
    bad_option --fd-sync=perhaps "Invalid boolean value .perhaps."
    bad_option --spin-loops=maybe "Invalid boolean value .maybe."
    bad_option --racy-reads-order=maybe "Invalid boolean value .maybe."
    bad_option --record-trace=/nonexistent/dir/t.rpt "cannot create the file"
    bad_option --record-trace="$tmp" "cannot create the file"
    bad_option --record-trace= "No filename given"
    bad_option --sarif-file=/nonexistent/dir/r.sarif "cannot create the file"
    bad_option --sarif-file= "No filename given"
    bad_option --history-level=bogus "expected none, approx or full"
    bad_option --max-memory=x "Invalid integer value 'x'"
    bad_option --max-memory=-1 "must be between 0 and"
    bad_option --history-level= "expected none, approx or full"
    bad_option --show-unconfirmed=maybe "Invalid boolean value 'maybe'"
    bad_option --offline-events=x "Invalid integer value 'x'"
    bad_option --offline-events=15 "'--offline-events' argument must be between 16 and 2147483648"
    bad_option --offline-events=4294967296 "must be between 16 and"
    bad_option --offline-spill=x "Invalid integer value 'x'"
    bad_option --offline-spill=-1 "'--offline-spill' argument must be between 0 and"
    bad_option --window=x "Invalid integer value 'x'"
    bad_option --window=1e5 "Invalid integer value '1e5'"
    bad_option --window=0 "'--window' argument must be between [0-9]+ and [0-9]+"
    bad_option --window=-1 "must be between"
    bad_option --window=99999999999999999999 "must be between"
    valgrind --tool=racepred --bogus /bin/true >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ "$rc" -ne 0 ] && grep -qxF "valgrind: Unknown option: --bogus" "$tmp/err"; then
        pass "option --bogus"
    else
        fail "option --bogus (exit $rc): $(cat "$tmp/err")"
    fi
fi

# --- trace files --------------------------------------------------------------
# bad_trace NAME WHERE EXPECTED-WORDS: $tmp/NAME must give exit 1 and one
# line "$tmp/NAME<WHERE>: <message matching EXPECTED-WORDS>", WHERE being
# ":LINE" or ": offset N".
bad_trace() {
    "$analyze" --detector=hb,wcp,syncp "$tmp/$1" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    line=$(cat "$tmp/err")
    case $line in
    "$tmp/$1$2: "*) prefix_ok=yes ;;
    *) prefix_ok=no ;;
    esac
    if [ "$rc" -eq 1 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] && [ "$prefix_ok" = yes ] \
        && echo "$line" | grep -Eq -- "$3" && [ ! -s "$tmp/out" ]; then
        pass "trace $1: ${line#"$tmp/"}"
    else
        fail "trace $1 (exit $rc, want '$1$2: ...$3'): $line"
    fi
}

# Text (docs/trace-format.md).
printf 'T0 w(x)\nT1 w(' > "$tmp/trunc.trace"
bad_trace trunc.trace :2 "missing name"
printf 'T0 w(x)\nT0 acq(l)\n' > "$tmp/unreleased.trace"
printf 'T0 w(x)\n\001\377\376garbage\000\n' > "$tmp/garbage.trace"
bad_trace garbage.trace :2 "."
printf 'T0 w(x)\nT99999999999999999999 w(x)\n' > "$tmp/huge.trace"
bad_trace huge.trace :2 "number too large"
printf 'T0 w(x)\nT4294967296 w(x)\n' > "$tmp/huge32.trace"
bad_trace huge32.trace :2 "number too large"
printf 'T0 w(x)\nT1 join(T7)\n' > "$tmp/join.trace"
bad_trace join.trace :2 "join of an unknown thread: 'T7'"
printf 'T0 w(x)\nT0 rel(l)\n' > "$tmp/unheld.trace"
bad_trace unheld.trace :2 "release of a lock this thread does not hold 'l'"
printf 'T0 acq(l)\nT1 rel(l)\n' > "$tmp/otherrel.trace"
bad_trace otherrel.trace :2 "does not hold 'l'"
printf 'T0 fork(T1)\nT0 join(T1)\nT1 w(x)\n' > "$tmp/afterjoin.trace"
bad_trace afterjoin.trace :3 "after it was joined: 'T1'"
printf 'T0 w(x)\nT0 frob(x)\n' > "$tmp/badop.trace"
bad_trace badop.trace :2 "."

# STD (RAPID): "THREAD|OP(OBJECT)|LOCATION".
printf 'T0|w(x)|1\nT1|w(' > "$tmp/trunc.std"
bad_trace trunc.std :2 "missing"
printf 'T0|w(x)|1\n\001\002\003|||((\n' > "$tmp/garbage.std"
bad_trace garbage.std :2 "expected OP\(OBJECT\)"
printf 'T0|w(x)|1\nT0|frob(x)|2\n' > "$tmp/badop.std"
bad_trace badop.std :2 "unknown operation"
printf 'T0|w(x)|1\nT0|join(T7)|2\n' > "$tmp/join.std"
bad_trace join.std :2 "join of an unknown thread: 'T7'"
printf 'T0|w(x)|1\nT0|rel(l)|2\n' > "$tmp/unheld.std"
bad_trace unheld.std :2 "does not hold 'l'"
printf 'T0|fork(T1)|1\nT0|join(T1)|2\nT1|w(x)|3\n' > "$tmp/afterjoin.std"
bad_trace afterjoin.std :3 "after it was joined"

# Binary (rp_bintrace.h): magic, version 1, records.  0x91 = write, thread
# follows, size code 4 (8 bytes); 0x17 = join; 0x2f = end record.
magic='\211RPTRACE\001'
printf "$magic"'\221\000\040\002' > "$tmp/trunc.rpt"
bad_trace trunc.rpt ": offset 13" "truncated: no end record"
printf "$magic"'\221\000\040' > "$tmp/trunc2.rpt"
bad_trace trunc2.rpt ": offset 12" "truncated|runs past the end|site"
printf '\211RPTR' > "$tmp/magic.rpt"
bad_trace magic.rpt ": offset 0" "truncated"
printf "$magic"'\376garbage\377' > "$tmp/garbage.rpt"
bad_trace garbage.rpt ": offset 9" "unknown record tag 254"
printf "$magic"'\221\377\377\377\377\377\377\377\377\377\377\001\040\002\057\001' > "$tmp/huge.rpt"
bad_trace huge.rpt ": offset 10" "does not fit"
printf "$magic"'\221\000\040\002\057\377\377\377\377\377\377\377\377\377\377\177' > "$tmp/hugecount.rpt"
bad_trace hugecount.rpt ": offset 14" "does not fit|counts"
printf "$magic"'\221\005\040\002\057\001' > "$tmp/thread.rpt"
bad_trace thread.rpt ": offset 9" "thread 5 appears before thread 0"
printf "$magic"'\027\000\006\000\057\001' > "$tmp/join.rpt"
bad_trace join.rpt ": offset 9" "join of unknown thread 3"
printf "$magic"'\221\000\040\002\057\011' > "$tmp/count.rpt"
bad_trace count.rpt ": offset 13" "end record counts 9 events, the trace has 1"
printf "$magic"'\221\000\040\002\057\001\000' > "$tmp/after.rpt"
bad_trace after.rpt ": offset 15" "data after the end record"
printf '\211RPTRACE\002' > "$tmp/version.rpt"
bad_trace version.rpt ": offset 8" "unsupported version 2"
# Release of an unheld lock (0x13 = release, thread 0, lock 3), and of a
# lock another thread holds (0x12 = acquire by thread 0, then 0x13 by
# thread 1): refused like the text reader refuses them.
printf "$magic"'\023\000\006\000\057\001' > "$tmp/unheld.rpt"
bad_trace unheld.rpt ": offset 9" "^.*: release of lock 0x3, which thread 0 does not hold$"
printf "$magic"'\022\000\006\000\023\001\000\000\057\002' > "$tmp/otherrel.rpt"
bad_trace otherrel.rpt ": offset 13" "release of lock 0x3, which thread 1 does not hold"

# --racy-reads-order=yes is a location-mode rule: with all pairs, one line, exit 2.
printf 'T0 w(d)\n' > "$tmp/one.trace"
"$analyze" --racy-reads-order=yes "$tmp/one.trace" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 2 ] && [ "$(wc -l < "$tmp/err")" -eq 1 ] &&
   grep -q -- "--racy-reads-order=yes needs --all-pairs=no" "$tmp/err"; then
    pass "racepred-analyze --racy-reads-order=yes with all pairs"
else
    fail "racepred-analyze --racy-reads-order=yes with all pairs (exit $rc): $(cat "$tmp/err")"
fi

# A missing file: one line, exit 1.
"$analyze" "$tmp/nonexistent.trace" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" -eq 1 ] && grep -qx "$tmp/nonexistent.trace: No such file or directory" "$tmp/err"; then
    pass "missing trace file"
else
    fail "missing trace file (exit $rc): $(cat "$tmp/err")"
fi

echo "bad_input.sh: $checks checks, $failures failed"
[ "$failures" -eq 0 ]
