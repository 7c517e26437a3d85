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
 *     (reads: the write clocks; writes: both).  The current critical section
 *     is not in them until it is released, so the first section must be
 *     closed and the second may be open (seed 001 erratum E4).  Conflict is
 *     by byte; sections of the same thread count too (the published WCP
 *     algorithm; for DC and WDC it changes nothing because program order is
 *     part of the relation);
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
 * Cost: an access O(held locks × bytes × threads); a release
 * O(accesses of the section × bytes × threads) plus O(threads) per history
 * entry consumed.
 *
 * Memory (seed 001's algorithms keep everything forever; racepred drops
 * what no future event can need, and bounds the rest):
 *   - rule (b): one clock per critical section.  A section every live
 *     thread has consumed is dropped: threads the tool forks inherit their
 *     parent's consumption (csrules_fork: their order clock starts above
 *     the parent's, so they would consume the same sections, to no
 *     effect), joined threads consume nothing more (csrules_thread_end).
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
 *   - rule (a): two clocks per (lock, byte) ever accessed inside a section
 *     on the lock.  Fresh memory (RP_EV_FORGET) drops its bytes: accesses
 *     before and after a forget do not conflict (rp_event.h).  The total
 *     is bounded by rp_cs_limits.max_bytes: beyond it, the locks with the
 *     most bytes lose them (counted), again a weaker relation.
 */
#ifndef RP_CSRULES_H
#define RP_CSRULES_H

#include "rp_event.h"
#include "rp_vc.h"

#include <stdbool.h>
#include <stdint.h>

typedef struct rp_csrules rp_csrules;

/* Bounds on what the rules keep, and what hitting them dropped. */
typedef struct rp_cs_limits {
    uint32_t max_sections;      /* rule (b): sections kept per lock and
                                 * thread; 0: unbounded */
    uint64_t max_bytes;         /* rule (a): (lock, byte) pairs kept per
                                 * detector; 0: unbounded */
    uint64_t dropped_sections;  /* sections dropped by the bound */
    uint64_t missed_sections;   /* times a thread needed a dropped section
                                 * that the summary does not stand for */
    uint64_t dropped_bytes;     /* (lock, byte) pairs dropped by the bound */
} rp_cs_limits;

/* The limits every rp_csrules created afterwards obeys and counts into
 * (NULL: unbounded).  The front end sets them once, from its options,
 * before it creates the engine; the detectors of one run share them. */
void csrules_set_limits(rp_cs_limits *limits);

/* rule_b: keep the section histories (WCP, DC; not WDC). */
rp_csrules *csrules_create(bool rule_b);
void csrules_destroy(rp_csrules *cs);

/* What the rules hold now: rule-(b) sections and rule-(a) (lock, byte)
 * pairs. */
uint64_t csrules_kept_sections(const rp_csrules *cs);
uint64_t csrules_kept_bytes(const rp_csrules *cs);

/* Thread child starts after this event of parent (the detector has joined
 * the parent's clocks into the child's). */
void csrules_fork(rp_csrules *cs, rp_tid_t parent, rp_tid_t child);

/* Thread tid has ended (joined): it takes part in no section any more. */
void csrules_thread_end(rp_csrules *cs, rp_tid_t tid);

/* [addr, addr + size) is fresh memory: its bytes conflict with nothing
 * before. */
void csrules_forget(rp_csrules *cs, uint64_t addr, uint32_t size);

/* Thread tid acquires lock; acq_epoch is its own entry of the clock that
 * rule (b) compares (the relation's order clock). */
void csrules_acquire(rp_csrules *cs, rp_tid_t tid, uint64_t lock, uint32_t acq_epoch);

/* Rule (a) for access e: joins into dst (and also, if not NULL) the release
 * clocks of earlier sections on held locks that conflict with e; records e
 * in the thread's open sections. */
void csrules_access(rp_csrules *cs, const rp_event *e, rp_vc *dst, rp_vc *also);

/* Rule (b) at a release of lock by tid, before csrules_release: joins into
 * order (and also, if not NULL) the release clocks of other threads'
 * sections on the lock whose acquire epoch is <= order[their thread]. */
void csrules_rule_b(rp_csrules *cs, rp_tid_t tid, uint64_t lock, rp_vc *order, rp_vc *also);

/* Closes tid's section on lock; released is the clock rule (a) and (b)
 * propagate from it: the thread's own clock, which only grows from one
 * release to the next (the summary of dropped sections relies on it).  A release of a lock the thread does not hold is
 * ignored. */
void csrules_release(rp_csrules *cs, rp_tid_t tid, uint64_t lock, const rp_vc *released);

#endif
