/* rp_witness.h — witnesses of predicted races, and the ONE validator every
 * detector's witness goes through ("detectors propose, witnesses decide",
 * DESIGN.md).
 *
 * The observed run is an array of rp_event in trace order (the "log");
 * events are named by their 0-based index in it (messages print rp_event.id,
 * the 1-based trace position).  A candidate race is a pair of indices
 * e1 < e2 of conflicting accesses: different threads, overlapping bytes, at
 * least one write.  A witness is a sequence of indices: a reordered,
 * truncated copy of the run after which e1 and e2 are both enabled, so that
 * executing them back to back exhibits the race.  It is valid iff
 *   - no index is out of range or repeated, and e1, e2 are not in it;
 *   - each thread's events in it are a prefix of that thread's events in
 *     program order, and e1 / e2 are the next events of their threads;
 *   - fork: no event of a forked thread before its fork (this includes e1
 *     and e2: their threads must have been forked in the witness);
 *   - join: a join only after every event of the joined thread (in the
 *     whole observed run) is in the witness;
 *   - locks: an exclusive acquire only of a lock no thread holds, a shared
 *     acquire only of a lock no thread holds exclusively; releases only by
 *     a holder;
 *   - hard edges: a sync_recv on obj only after every sync_send on obj that
 *     precedes the recv in the observed run (conservative: the recv may
 *     have needed any of them);
 *   - every read keeps its last writer, byte-wise: for each byte of a read
 *     in the witness, the last write to that byte before the read in the
 *     witness is the same event as in the observed run, or there is none in
 *     both.  A forget (fresh memory) counts as a write of its bytes;
 *   - a fixed start (wcheck_set_fixed), if any, comes first, in log order.
 * Branch events constrain nothing beyond program order (classic definition
 * of predictable races, seeds 000/002).
 *
 * rp_witness_check returns a precise reason on failure.  rp_witness_format
 * prints a witness compactly for reports: which events of which thread the
 * reordering omits, which critical sections swap relative to the run, and
 * the two accesses that end up adjacent.  Witnesses are built elsewhere
 * (rp_spclosure.h for the sync-preserving closure, usable for any
 * detector's pair; rp_trcone.h's tc_reversal_witness for OSR's, which may
 * swap critical sections).
 */
#ifndef RP_WITNESS_H
#define RP_WITNESS_H

#include "rp_event.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RP_WITNESS_NONE UINT32_MAX
#define RP_WITNESS_MESSAGE_MAX 240

/* A witness for the pair (e1, e2): events[0 .. n) in witness order. */
typedef struct rp_witness {
    uint32_t e1, e2;
    uint32_t *events;
    uint32_t n, cap;
} rp_witness;

void witness_init(rp_witness *w);
void witness_free(rp_witness *w);
void witness_clear(rp_witness *w);
void witness_push(rp_witness *w, uint32_t event);

typedef enum rp_witness_status {
    RP_WITNESS_OK,
    RP_WITNESS_BAD_PAIR,        /* e1/e2 not conflicting accesses, e1 >= e2 */
    RP_WITNESS_BAD_INDEX,       /* index out of range or listed twice */
    RP_WITNESS_CONTAINS_PAIR,   /* e1 or e2 itself is in the witness */
    RP_WITNESS_NOT_PREFIX,      /* a thread's events skip or reorder */
    RP_WITNESS_NOT_NEXT,        /* e1/e2 not the next event of its thread */
    RP_WITNESS_BEFORE_FORK,     /* a thread acts before its fork */
    RP_WITNESS_EARLY_JOIN,      /* join before all of the child's events */
    RP_WITNESS_LOCK_HELD,       /* acquire of a lock another holder has */
    RP_WITNESS_LOCK_NOT_HELD,   /* release by a thread that does not hold */
    RP_WITNESS_SEND_MISSING,    /* recv before an earlier send on its obj */
    RP_WITNESS_LAST_WRITER,     /* a read's last writer changed */
    RP_WITNESS_NOT_FIXED,       /* the fixed start (wcheck_set_fixed) is not
                                   the witness's first events in log order */
    RP_WITNESS_STATUS_COUNT
} rp_witness_status;

typedef struct rp_witness_error {
    rp_witness_status status;
    uint32_t at;        /* position in the witness sequence, or NONE */
    uint32_t event;     /* the offending event index, or NONE */
    uint32_t other;     /* the related event (missing send, expected
                           writer, holder's acquire, ...) or NONE */
    char message[RP_WITNESS_MESSAGE_MAX];
} rp_witness_error;

const char *rp_witness_status_name(rp_witness_status status);

/* The validator's view of one observed run: facts computed once from the
 * log alone (thread positions, forks, observed last writers per read byte,
 * sends before each recv), so that each check costs O(|witness| * size). */
typedef struct rp_wcheck rp_wcheck;

/* The log must outlive the checker and is not copied. */
rp_wcheck *wcheck_create(const rp_event *log, uint32_t n);
void wcheck_destroy(rp_wcheck *chk);

/* The first n_fixed events of the log are executed before everything
 * else, in log order (the engine's window: the locks held where its
 * sub-log starts, rp_window.h): from now on a witness is valid only if it
 * starts with events 0 .. n_fixed - 1 in this order.  Default 0. */
void wcheck_set_fixed(rp_wcheck *chk, uint32_t n_fixed);

/* True iff w is a valid witness for the pair (w->e1, w->e2).  On failure
 * fills *err (if not NULL) with the first violation found. */
bool witness_check(rp_wcheck *chk, const rp_witness *w, rp_witness_error *err);

/* The same for the witness "base, then w->events": base is a cone (one
 * prefix length per thread) whose events all precede, in the log, every
 * event of w and e1; it stands for its events in trace order, which the
 * caller has established replay validly and leave exactly the acquires
 * open[0 .. n_open) held (rp_trcone.h: tc_base_is_prefix, tested against
 * witness_check).  Only w's events are replayed: a check costs
 * O(T + n_open + |w|), not O(|base|), so long witnesses that differ from
 * trace order only at their end (osr) are checked in time independent of
 * the log's length. */
bool witness_check_after(rp_wcheck *chk, const uint32_t *base, const uint32_t *open,
                         uint32_t n_open, const rp_witness *w, rp_witness_error *err);

/* One-shot form: builds and destroys a checker. */
bool witness_check_log(const rp_event *log, uint32_t n, const rp_witness *w,
                       rp_witness_error *err);

/* Names used when printing; any function may be NULL or return NULL, then
 * numbers are printed ("thread 3", "lock 0x5000", "0x10000"). */
typedef struct rp_witness_names {
    const char *(*thread)(void *ctx, rp_tid_t tid);
    const char *(*lock)(void *ctx, uint64_t obj);
    const char *(*var)(void *ctx, uint64_t addr);
    void *ctx;
} rp_witness_names;

/* Writes the compact form of a (valid) witness into buf (always
 * NUL-terminated, truncated to cap - 1 characters); returns the length the
 * full text needs.  Example:
 *   "keeps 6 of 14 events; T1: 7-14 omitted (5 events); T3: 9-12 omitted
 *    (2 events); T1's critical section on L (3-5) moved after T2's (8-10);
 *    then 6 w(x)@T1 and 13 w(x)@T2 are adjacent" */
size_t witness_format(const rp_event *log, uint32_t n, const rp_witness *w,
                      const rp_witness_names *names, char *buf, size_t cap);

#endif
