/* rp_csrules.h — the critical-section rules of the predictive relations
 * WCP (Kini, Mathur, Viswanathan PLDI'17), DC (Roemer, Genç, Bond PLDI'18)
 * and WDC (Roemer et al. PLDI'20), as vector-clock bookkeeping (seed 001
 * §2 and Alg 1/2; seeds 003/004 digests):
 *
 *  (a) conflicting critical sections: a release r1 of lock l is ordered
 *      before every later access e2 inside a critical section on l (open or
 *      closed) that conflicts with an access e1 inside CS(r1);
 *  (b) release–release: r1 is ordered before a later release r2 of l when
 *      the acquire of r1 is ordered before r2.
 *
 * The detector owns the clocks; this module remembers what the rules need
 * and joins the right clocks into the detector's at the right events:
 *   - rule (a): per lock and byte, the join of the clocks of the releases of
 *     critical sections that read / wrote the byte ("L^r_{l,x}",
 *     "L^w_{l,x}"); an access joins those of the locks its thread holds
 *     (reads: the write clocks; writes: both).  They are kept per 8-byte
 *     granule, and the bytes of a granule whose clocks of a kind are equal
 *     (nearly always: they were published together) share one clock, so an
 *     access costs a lookup and a join or two per granule, not per byte.
 *     The current critical section is not in them until it is released,
 *     so the first section must be closed and the second may be open
 *     (seed 001 erratum E4).  Conflict is by byte; sections of the same
 *     thread count too (the published WCP algorithm; for DC and WDC it
 *     changes nothing because program order is part of the relation);
 *   - rule (b): per lock, the history of the critical sections of each
 *     thread (the acquire's epoch, the release's clock) — the per-lock
 *     queues of the published algorithms, shared by all readers: each
 *     thread keeps, per lock and per other thread, how far it has consumed
 *     that thread's history.  At a release of thread t, every section of
 *     another thread whose acquire is ordered before the release (its epoch
 *     is <= order[u]) has its release clock joined, in order, repeated
 *     until nothing changes.  Threads created later start at the beginning
 *     of every history.
 *
 * Cost: an access O(held locks × granules × threads); a release
 * O(accesses of the section × granules × threads) plus O(threads) per
 * history entry consumed.
 *
 * Memory (seed 001's algorithms keep everything forever; racepred drops
 * what no future event can need, and bounds the rest):
 *   - rule (b): one clock per critical section.  A section every live
 *     thread has consumed is dropped: threads the tool forks inherit their
 *     parent's consumption (csrules_fork: their order clock starts above
 *     the parent's, so they would consume the same sections, to no
 *     effect); a thread that ended — it exited (csrules_thread_end, from
 *     the engine's thread_end) or was joined — consumes nothing more.  It
 *     can still be joined: its clocks are the detector's, not these.
 *     What is left is bounded by rp_cs_limits.max_sections per lock and
 *     thread: beyond it the oldest sections are dropped (counted), all but
 *     the last, kept as a summary.  A thread's release clocks only grow,
 *     so a thread that had not consumed the dropped sections and later
 *     consumes up to the summary or beyond (a thread that waited in a join
 *     and takes the lock afterwards) gets exactly what they would have
 *     given.  Only a thread that needs some dropped section but not the
 *     summary misses ordering: counted (missed_sections) — the relation is
 *     then weaker: more candidates, never fewer.  Without limits
 *     (racepred-analyze) nothing is dropped, since trace files may start
 *     threads without a fork.
 *   - rule (a): a clock per kind and (lock, granule) ever accessed inside a
 *     section on the lock (more where its bytes' clocks differ, at most 8
 *     of a kind); the bound counts (lock, byte) pairs.  Fresh memory
 *     (RP_EV_FORGET) drops its bytes: accesses before and after a forget
 *     do not conflict (rp_event.h).  The total is bounded by
 *     rp_cs_limits.max_bytes: beyond it, the locks with the most bytes lose
 *     them (counted), again a weaker relation.
 *   - the log of an open section (rp_cs_log, also sdp's and wdp's): its
 *     distinct accesses, published at the release.  A section held across
 *     a long loop repeats the same accesses; the log merges them (the same
 *     bytes and kind, wherever they come in the section), and keeps at
 *     most max_bytes distinct ones: later new ones are not recorded
 *     (counted once per section, full_logs).  What that loses, checked
 *     against the rules: an access missing from the log is missing from
 *     the publication, so a later section that conflicts with it only
 *     through that access is not ordered after this release (rule (a);
 *     sdp's rules 1, 2 and 4 with the access as e1).  Every other edge is
 *     still one the relation has (the clocks published are the real
 *     release's), so the relation computed is a subset of the real one:
 *     it orders less, and the detector reports the same races or more —
 *     never fewer.  The extra candidates may be false for the relation,
 *     but none is an error without a validated witness (rp_witness.h),
 *     which checks the reordering against the observed events, not the
 *     relation.  The converse — a dropped entry can only lose races —
 *     would hold for a bound that adds order (a section standing for
 *     every byte), not for one that drops it.
 *
 * sdp (det_sdp.c) keeps its per-lock histories here too
 * (csrules_create_histories): its rules 3 and 4 ask for the last section of
 * a thread acquired before a bound (csrules_join_last), which consumes
 * sections the same way — a section whose release clock the asking thread
 * already holds, and every earlier one of its thread, can do nothing more
 * for it — so the same dropping and bound apply; a thread's own sections
 * count for it too in sdp, so it consumes its own history as well.
 */
#ifndef RP_CSRULES_H
#define RP_CSRULES_H

#include "rp_detector.h"
#include "rp_vc.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct rp_csrules rp_csrules;

/* Bounds on what the rules keep, and what hitting them dropped. */
typedef struct rp_cs_limits {
    uint32_t max_sections;      /* rule (b): sections kept per lock and
                                 * thread; 0: unbounded */
    uint64_t max_bytes;         /* rule (a): (lock, byte) pairs kept per
                                 * detector, and distinct accesses logged
                                 * per open section; 0: unbounded */
    uint64_t dropped_sections;  /* sections dropped by the bound */
    uint64_t missed_sections;   /* times a thread needed a dropped section
                                 * that the summary does not stand for */
    uint64_t dropped_bytes;     /* (lock, byte) pairs dropped by the bound */
    uint64_t full_logs;         /* sections whose log reached the bound and
                                 * left later accesses out */
} rp_cs_limits;

/* One access an open section made: the bytes, the kind and the ids of
 * the first and the last time the section made it. */
typedef struct rp_cs_logged {
    uint64_t addr, first_id, last_id;
    uint32_t size;
    bool is_write;
} rp_cs_logged;

/* The distinct accesses of an open critical section (see above). */
typedef struct rp_cs_log {
    rp_cs_logged *entries;
    uint32_t n, cap;
    bool full;
} rp_cs_log;

/* Adds access e to the log (limits: NULL for no bound). */
void cslog_record(rp_cs_log *log, const rp_event *e, rp_cs_limits *limits);
void cslog_free(rp_cs_log *log);

/* The limits every rp_csrules created afterwards obeys and counts into
 * (NULL: unbounded).  The front end sets them once, from its options,
 * before it creates the engine; the detectors of one run share them. */
void csrules_set_limits(rp_cs_limits *limits);

/* rule_b: keep the section histories (WCP, DC; not WDC). */
rp_csrules *csrules_create(bool rule_b);

/* The clocks thread tid consumes sections into (csrules_rule_b's order and
 * also; *also may be NULL; *order NULL if the thread has none yet), for
 * the detector's context.  Must not move the detector's clocks. */
typedef void (*rp_cs_clocks_fn)(void *ctx, rp_tid_t tid, const rp_vc **order,
                                const rp_vc **also);

/* Lets the rules read the live threads' clocks, so that an ended thread's
 * sections go once every live thread knows them, consumed or not
 * (retiring them does not wait for a thread that never takes the lock
 * again).  Optional. */
void csrules_set_clocks(rp_csrules *cs, rp_cs_clocks_fn clocks_of, void *ctx);
/* The section histories only, for csrules_join_last (sdp): a thread's own
 * sections count for it too. */
rp_csrules *csrules_create_histories(void);
void csrules_destroy(rp_csrules *cs);

/* The limits cs obeys (NULL: unbounded), for the detector's own state. */
rp_cs_limits *csrules_limits(const rp_csrules *cs);

/* What the rules hold now: rule-(b) sections and rule-(a) (lock, byte)
 * pairs. */
uint64_t csrules_kept_sections(const rp_csrules *cs);
uint64_t csrules_kept_bytes(const rp_csrules *cs);
/* Adds both, and the most sections kept at once, to *stats. */
void csrules_kept(const rp_csrules *cs, rp_history_stats *stats);

/* Thread child starts after this event of parent (the detector has joined
 * the parent's clocks into the child's). */
void csrules_fork(rp_csrules *cs, rp_tid_t parent, rp_tid_t child);

/* Thread tid has exited: it takes part in no section any more, and
 * consumes nothing; its sections stay for the others.  Calling it again
 * changes nothing. */
void csrules_thread_end(rp_csrules *cs, rp_tid_t tid);

/* joiner has joined thread joined (the detector has joined joined's
 * clocks into joiner's); csrules_thread_gone(joined) follows (the engine
 * sends every joined thread's gone notice right after the join).  Without clocks to
 * read (csrules_set_clocks), joiner takes over what joined consumed (as
 * csrules_fork's child takes its parent's), so that a thread that joins
 * the threads it starts does not hold back, nor make the threads it starts
 * next consume again, every section they passed; with them, joiner's
 * clocks say as much (it knows those sections), and taking over would
 * make it a consumer in every lock its threads took, passed on to every
 * thread it starts. */
void csrules_join(rp_csrules *cs, rp_tid_t joiner, rp_tid_t joined);

/* Thread tid has ended and will not be joined (or was): what it consumed
 * goes.  Calling it again changes nothing. */
void csrules_thread_gone(rp_csrules *cs, rp_tid_t tid);

/* [addr, addr + size) is fresh memory: its bytes conflict with nothing
 * before. */
void csrules_forget(rp_csrules *cs, uint64_t addr, uint32_t size);

/* Thread tid acquires lock; acq_epoch is its own entry of the clock that
 * rule (b) compares (the relation's order clock). */
void csrules_acquire(rp_csrules *cs, rp_tid_t tid, uint64_t lock, uint32_t acq_epoch);
/* The same, remembering the acquire's event id for csrules_join_last
 * (only a csrules_create_histories instance keeps ids). */
void csrules_acquire_id(rp_csrules *cs, rp_tid_t tid, uint64_t lock, uint32_t acq_epoch,
                        uint64_t acq_id);

/* Rule (a) for access e: joins into dst (and also, if not NULL) the release
 * clocks of earlier sections on held locks that conflict with e; records e
 * in the thread's open sections. */
void csrules_access(rp_csrules *cs, const rp_event *e, rp_vc *dst, rp_vc *also);

/* Rule (b) at a release of lock by tid, before csrules_release: joins into
 * order (and also, if not NULL) the release clocks of other threads'
 * sections on the lock whose acquire epoch is <= order[their thread].
 * Only the last such section of each thread is joined, and not at all when
 * order (and also) already reach its release in its thread's entry: the
 * callers' clocks must be joins of clocks taken at sends, each followed by
 * a step of the sender's own entry (then such a clock holds the whole
 * release clock).  wcp, dc, wdc and wdp's are. */
void csrules_rule_b(rp_csrules *cs, rp_tid_t tid, uint64_t lock, rp_vc *order, rp_vc *also);

/* Closes tid's section on lock; released is the clock rule (a) and (b)
 * propagate from it: the thread's own clock, which only grows from one
 * release to the next (the summary of dropped sections relies on it).  A release of a lock the thread does not hold is
 * ignored. */
void csrules_release(rp_csrules *cs, rp_tid_t tid, uint64_t lock, const rp_vc *released);
/* The same, remembering the release's event id (as above). */
void csrules_release_id(rp_csrules *cs, rp_tid_t tid, uint64_t lock, const rp_vc *released,
                        uint64_t rel_id);

/* Event ids bounding some accesses: a section holds them when it was
 * acquired before lo and released after hi. */
typedef struct rp_cs_span {
    uint64_t lo, hi;
} rp_cs_span;

/* sdp's rules 3 and 4 at a release of lock by tid: the last released
 * section of producer on lock whose acquire epoch is <= bound — or the one
 * before it, when skip is not NULL and that section holds skip — has its
 * release clock joined into order (and also, if not NULL) unless order
 * already holds it.  True if order changed.  The section counts as
 * consumed by tid either way. */
bool csrules_join_last(rp_csrules *cs, rp_tid_t tid, uint64_t lock, rp_tid_t producer,
                       uint32_t bound, const rp_cs_span *skip, rp_vc *order, rp_vc *also);

#endif
