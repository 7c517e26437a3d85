/* rp_allpairs.h — race pairs of any vector-clock relation: one earlier
 * partner per racy access online, or every pair of the relation (seed 000
 * §5–6, generalised from SHB to any relation that vector clocks decide).
 *
 * The detector keeps its own clocks and calls allpairs_access() once per
 * access with
 *   order  the relation clock of the access: an earlier access g (thread u,
 *          epoch k) is ordered before it iff k <= order[u];
 *   clock  the access's own epoch in that relation.
 * This is exact for every relation racepred implements (HB, SHB, WCP ∪ PO,
 * DC, WDC, PO/fork/join) because each is transitive, contains program order,
 * and decides the predecessors of an access when the access is processed.
 *
 * Shadow state, per 8-byte granule: the set of recent, mutually concurrent
 * access cells {tid, clock, byte mask, is_write, ...}.  An access races with
 * every cell that shares a byte, belongs to another thread, is unordered
 * and is or meets a write; the pair filter of the detector (locksets) may
 * veto it.  Then the access removes its bytes from the cells ordered before
 * it — all of them for a write, only reads for a read (reads never evict
 * writes, seed 000 Alg 3) — unless the detector's evict function objects,
 * and adds itself.  Every racy access gets at least one partner online:
 * if e races with f and e's byte b was evicted, the chain of evictions of b
 * ends in a cell present at f that is after e, hence unordered with f
 * (transitivity), conflicting with f, and — when evict only allows g to
 * evict e if every pair filter that accepts (e, f) accepts (g, f) — kept.
 *
 * Twins (location mode only): two instances of one instruction (same
 * site, thread, epoch, kind, tag) stand in the same relation to every other
 * access — ordering is decided by the epoch, conflict by the kind, the
 * pair filter by the tag — so they share one cell: the union of their
 * bytes, named by the latest.  A report then gives the right code
 * locations and racy bytes, while its first access's id may be an instance
 * that touched other bytes of the cell; the witness window looks back for
 * the instance that touched the racy ones (rp_window.c).  Byte-wise loops
 * (compressors, string code) would otherwise keep up to eight cells per
 * granule and thread: pbzip2's peak RSS under hb went from 413 to 255 MB.
 *
 * Layout: a cell is 8 bytes (the number of an interned context,
 * rp_cellctx.h, that holds the site, thread, clocks, tag, kind and size;
 * the bytes; the event as an offset from the context's base).  A slot
 * (8 bytes) holds a granule's one cell itself, or points to an array of
 * its cells from a pool of power-of-two size classes (free lists refilled
 * from 256 KiB blocks, no call in the common case).  A forget of 4 KiB or more
 * returns emptied arrays to the pool; a smaller one (a stack frame) keeps
 * them for the next use; chunks a forget covers whole are freed.  With
 * shared cells (below), a slot is 4 bytes: the granule's one cell, the
 * number of its set, or where its 8-byte word is (rp_allpairs.c, "compact
 * slots"); pbzip2's peak under hb went from 80.8 to 74.0 MB.  There is
 * no fast path: the engine's filter of repeats (rp_repeats.h) comes first.
 *
 * Shared cells (location mode, env->sites_suffice): a cell names the latest
 * access of its context, so granules that a loop gave the same accesses
 * have equal lists; a list that outgrows its slot or array is looked up
 * among interned sets (rp_cellsets.h) and the granule points to the set.
 * A set's granule that changes gets a new list (set or array); the set
 * itself never changes.
 *
 * All-pairs mode (env->all_pairs): every eviction adds an edge evicted ≺
 * evicting (seed 000 erratum E1: ordered means clock <= order[tid]); every
 * unordered conflicting pair found online is kept as a "conc" pair (α, β)
 * with a copy V_β of β's order clock.  allpairs_finish() walks the edge
 * predecessors of every α and takes (g, β) iff g shares a byte with β and
 * clock(g) > V_β[tid(g)] (erratum E2), recursing only through such g; a pair
 * is reported if it also conflicts and passes the filter.  Completeness is
 * the chain argument above; the walk visits each event once per β.  Extra
 * pairs the detector finds by other means (SHB's write-read-dependency
 * pairs) are added with allpairs_add_pair().  Pairs come out deduplicated,
 * sorted by (first id, second id).
 *
 * Cost: online, per access O(cells overlapping it) (O(threads) for HB-like
 * relations); all-pairs adds O(1) per access and edge, one clock copy per
 * access that has a concurrent partner, and a walk of O(pairs + edges
 * visited) at the end.
 */
#ifndef RP_ALLPAIRS_H
#define RP_ALLPAIRS_H

#include "rp_detector.h"
#include "rp_vc.h"

#include <stdbool.h>
#include <stdint.h>

#define ALLPAIRS_NO_EVENT UINT32_MAX

typedef struct rp_allpairs rp_allpairs;

/* May the pair (first, second) be reported?  Arguments are the tags the
 * detector gave the two accesses. */
typedef bool (*rp_allpairs_filter_fn)(void *ctx, uint32_t first_tag, uint32_t second_tag);
/* May the access tagged new_tag evict the ordered cell tagged old_tag? */
typedef bool (*rp_allpairs_evict_fn)(void *ctx, uint32_t old_tag, uint32_t new_tag);
/* The read of `reader` read bytes whose latest write, of thread `writer`,
 * it is not HB-ordered after: the detector raises the reader's entries for
 * the writer to `clock` (hb_clock in HB), the writer's epoch before the
 * write's.  rp_allpairs itself orders the reader after the writer's
 * accesses of the write's epoch that are no later than the write (a bound
 * per reader and writer, which the reader's later accesses and races
 * consult, not passed on by synchronisation: an under-approximation of
 * SHB's reads-from edge, never an order SHB lacks). */
typedef void (*rp_allpairs_read_from_fn)(void *ctx, rp_tid_t reader, rp_tid_t writer,
                                         uint32_t clock, uint32_t hb_clock);

typedef struct rp_allpairs_config {
    const char *detector;          /* rp_race.detector */
    rp_allpairs_filter_fn filter;  /* NULL: every pair */
    rp_allpairs_evict_fn evict;    /* NULL: evict whatever is ordered */
    void *ctx;
    /* Value of rp_race.observed when the access gives no HB clock. */
    bool observed_without_hb;
    rp_allpairs_read_from_fn read_from;  /* NULL: not asked; location mode only */
} rp_allpairs_config;

typedef struct rp_allpairs_access {
    const rp_event *e;
    const rp_vc *order;
    uint32_t clock;
    const rp_vc *hb;      /* HB clock of the thread, or NULL */
    uint32_t hb_clock;    /* the access's HB epoch (if hb != NULL) */
    uint32_t tag;
} rp_allpairs_access;

rp_allpairs *allpairs_create(const rp_detector_env *env, const rp_allpairs_config *config);
void allpairs_destroy(rp_allpairs *p);

/* Checks and records one access; returns its event number in all-pairs
 * mode (for allpairs_add_pair), else ALLPAIRS_NO_EVENT. */
uint32_t allpairs_access(rp_allpairs *p, const rp_allpairs_access *a);

/* An extra race (first earlier in the stream), observed iff
 * config.observed_without_hb: reported at once online, kept for finish() in
 * all-pairs mode (then both event numbers are needed).  addr/size: bytes
 * both touch. */
void allpairs_add_pair(rp_allpairs *p, const rp_access *first, uint32_t first_event,
                       const rp_access *second, uint32_t second_event,
                       uint64_t addr, uint64_t size);

/* RP_EV_FORGET: the bytes are fresh memory. */
void allpairs_forget(rp_allpairs *p, const rp_event *e);

/* End of stream: all-pairs post-processing and reports. */
void allpairs_finish(rp_allpairs *p);

/* The thread of the latest write the cells remember to the byte at addr,
 * or RP_NO_WRITER.  The latest write is always remembered (only a later
 * write evicts a write), unless the byte was forgotten since.  Latest
 * means the greatest reference: the event id (or in all-pairs mode its
 * number); with sites_suffice, the latest access of the cell's context. */
rp_tid_t allpairs_last_writer(rp_allpairs *p, uint64_t addr);

/* rp_detector_ops.last_writer for a detector whose state starts with its
 * rp_allpairs pointer (every online detector's does). */
rp_tid_t allpairs_detector_last_writer(void *self, uint64_t addr);

#endif
