/* rp_history.c — --history-level; see rp_history.h. */
#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_stacktrace.h"
#include "pub_tool_threadstate.h"

#include "rp_history.h"
#include "rp_tool.h"
#include "rp_threads.h"

#define RP_HISTORY_MAX_FRAMES 64

rp_history_level rp_history = RP_HISTORY_APPROX;
UChar rp_history_stale = 1;

typedef struct {
    ULong id;               /* first event with these callers */
    ExeContext *callers;    /* frame 0 is a placeholder */
} rp_history_entry;

/* One thread's log: a ring of the last `capacity` entries, `total`
 * appended in all; entry i (0 <= i < total) is at ring[i % capacity]. */
typedef struct {
    rp_history_entry *ring;
    UInt capacity;
    ULong total;
    ExeContext *last;
} rp_history_log;

static rp_history_log *logs;
static rp_tid_t n_logs;

Bool rp_history_set(const HChar *value)
{
    if (VG_(strcmp)(value, "none") == 0)
        rp_history = RP_HISTORY_NONE;
    else if (VG_(strcmp)(value, "approx") == 0)
        rp_history = RP_HISTORY_APPROX;
    else if (VG_(strcmp)(value, "full") == 0)
        rp_history = RP_HISTORY_FULL;
    else
        return False;
    return True;
}

static rp_history_log *log_of(rp_tid_t tid)
{
    if (tid >= n_logs)
        logs = rp_tool_grow_zeroed("rp.history.logs", logs, &n_logs, tid, sizeof *logs);
    return &logs[tid];
}

static void append(rp_history_log *log, ULong id, ExeContext *callers)
{
    if (log->total == log->capacity && log->capacity < RP_HISTORY_LOG_MAX) {
        log->capacity = log->capacity ? 2 * log->capacity : 64;
        log->ring = VG_(realloc)("rp.history.ring", log->ring,
                                 log->capacity * sizeof *log->ring);
    }
    log->ring[log->total % log->capacity].id = id;
    log->ring[log->total % log->capacity].callers = callers;
    log->total++;
}

void rp_history_note(ULong next_id)
{
    Addr ips[RP_HISTORY_MAX_FRAMES];
    UInt max = VG_(clo_backtrace_size);
    UInt n;
    ExeContext *callers;
    rp_history_log *log;

    rp_history_stale = 0;
    if (rp_threads_current_vg == VG_INVALID_THREADID)
        return;
    if (max > RP_HISTORY_MAX_FRAMES)
        max = RP_HISTORY_MAX_FRAMES;
    n = VG_(get_StackTrace)(rp_threads_current_vg, ips, max, NULL, NULL, 0);
    if (n == 0)
        return;
    ips[0] = 0;
    callers = VG_(make_ExeContext_from_StackTrace)(ips, n);
    log = log_of(rp_threads_current);
    if (callers == log->last)
        return;
    log->last = callers;
    append(log, next_id, callers);
}

typedef struct {
    Addr *ips;
    UInt n;
} collected;

static void collect(UInt i, DiEpoch ep, Addr ip, void *opaque)
{
    collected *c = opaque;

    (void)ep;
    if (i < RP_HISTORY_MAX_FRAMES) {
        c->ips[i] = ip;
        c->n = i + 1;
    }
}

ExeContext *rp_history_stack(rp_tid_t tid, ULong id, Addr ip)
{
    Addr ips[RP_HISTORY_MAX_FRAMES];
    collected c = { ips, 0 };
    rp_history_log *log;
    ULong lo, hi, oldest;

    if (tid >= n_logs || logs[tid].total == 0)
        return NULL;
    log = &logs[tid];
    oldest = log->total > log->capacity ? log->total - log->capacity : 0;
    if (log->ring[oldest % log->capacity].id > id)
        return NULL;
    /* The last entry with id <= the access's: lo. */
    lo = oldest;
    hi = log->total;
    while (hi - lo > 1) {
        ULong mid = lo + (hi - lo) / 2;

        if (log->ring[mid % log->capacity].id <= id)
            lo = mid;
        else
            hi = mid;
    }
    VG_(apply_ExeContext)(collect, &c, log->ring[lo % log->capacity].callers);
    if (c.n == 0)
        return NULL;
    ips[0] = ip;
    return VG_(make_ExeContext_from_StackTrace)(ips, c.n);
}
