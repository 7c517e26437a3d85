/* rp_repeats.h — the engine's filter of repeated accesses.
 *
 * Most accesses of a real program repeat what its thread did a moment ago:
 * the same bytes, read or written again before the thread synchronises
 * with anyone.  For the detectors whose verdict on an access depends only
 * on its thread's clocks, its bytes and whether it writes (hb, wcp, dc,
 * wdc, lockset: rp_detector_ops.repeat_safe), such a repeat can change
 * nothing they report about the racy bytes, so the engine drops it before
 * any detector sees it.  Only in location mode: all-pairs mode must pair
 * every access.
 *
 * Spans and stamps.  A thread's span is the stretch of its events between
 * two of its non-access events (any synchronisation, fork, join, branch).
 * A span that accesses memory gets a stamp from one counter at its first
 * recorded access, so a stamp names a thread and one of its spans.  Per 8-byte granule the filter keeps the stamp of the
 * last access it passed on and the bytes passed on under that stamp (all,
 * and written).  An access of thread t is a repeat when its granule holds
 * t's current stamp and those bytes cover it (the written ones, for a
 * write); an access over two granules is one when both of its parts are.
 *
 * Why dropping the repeat a2 is safe.  Its granule's stamp says that the
 * accesses a1.. of t that covered it were passed on in the same span, and
 * that no other thread's access of the granule was passed on since (it
 * would have replaced the stamp).  A repeat-safe detector gives a1 and a2
 * the same epoch and the same lock context, and a2's clock contains a1's:
 *   - an earlier access b of another thread that races with a2 precedes a1
 *     too and races with it (unordered with a2, so with a1; it conflicts
 *     with a1, which is a write where a2 is): the race on those bytes is
 *     reported at a1;
 *   - a later access c that races with a2 finds a1's cell, or a cell of
 *     the same epoch that replaced it: ordering against an epoch is the
 *     same for a1 and a2, and whatever evicts a1 would evict a2.
 * So every racy byte, with the pair of threads racing on it, that location
 * mode reports without the filter, it reports with it; and everything it
 * reports is a race of the relation.  For HB and lockset, whose clocks
 * move only at synchronisation, the reports are the same; WCP, DC and WDC
 * may grow a thread's clock at an access (rule (a) of rp_csrules.h), so a2
 * could have evicted a cell that a1 could not, and the filter may report
 * more (real) races.  tests/unit/test_repeats.c checks all of this on
 * random runs.  A report may name a1's code location where a2's would have
 * been another.  Detectors whose clock moves at every access (shb), or
 * that track values through reads (sdp, wdp), are not repeat-safe.
 *
 * The witness window (rp_window.h) needs more than the detectors.  Dropped
 * reads it can do without: a sync-preserving witness keeps the run's
 * order, so a2, if its thread's prefix reaches it, reads from the same
 * write as a1 (no other thread touched the granule between them).  A
 * dropped write w2 it cannot simply lose: a later read of another thread
 * reads from it, and a witness whose copy of the log shows a1 as that
 * read's writer could cut the writing thread between a1 and w2.  But it
 * need not have every w2 in its place either.  The filter marks the
 * granule rewritten (once: a bit of its stamp) and lists it; the list
 * has one thread's granules (another thread's dropped write flushes it
 * first, rp_engine_list_rewrite), and before any event that is not an access
 * of that thread is passed on (another thread's event, its own
 * synchronisation, a forget, its exit) the engine appends one write per
 * listed granule — the bytes written under the stamp, a run of them per
 * record — to the window (repeats_flush_rewrites), where they stand for
 * the rewrites.  Nothing else came in between but that thread's accesses
 * and other threads' repeats of other granules, so the record is later
 * than the writes it stands for only past events of its own thread: a
 * witness that keeps it keeps its thread's prefix through them, one that
 * does not has no read of those bytes after them (such a read would have
 * flushed the list first).  What this costs is completeness, not
 * soundness: a witness that must cut the writing thread after a rewrite
 * but before a later access of the same thread no longer exists, and
 * such a witness needs a read of the rewritten bytes racing with the
 * rewrite.  tests/unit/test_window_filtered.c maps the witnesses of such
 * a window back to the whole run and validates them there.  On pigz this
 * replaces 110 M window records by the rewritten granules of each stretch
 * between two flushes (1.5 M).
 *
 * Repeated receives.  A thread that polls a synchronisation variable
 * (a plain load of a word an atomic RMW used is a receive: rp_atomics.h)
 * receives on it again and again while no one sends.  Such a receive r2,
 * with no send on its object since the same thread's receive r1 on it, is
 * dropped, and its thread's span goes on.  Exact for every repeat-safe
 * detector: a receive joins the object's clock into the thread's, the
 * object's clock moves only at a send, and the thread's clock has only
 * grown since r1, so r2 changes no clock.  Exact for the witness window
 * too: a receive is ordered after every earlier send on its object
 * (rp_witness.h), which are r2's predecessors, done before r1, which its
 * thread does before r2.  The engine keeps each object's count of sends
 * and, per thread, the count seen at its last receives, direct-mapped by
 * object (RP_REPEATS_RECV_WAYS); a receive not found there is passed on.
 *
 * Cost: one shadow lookup and two compares per access; 4 bytes per granule
 * accessed.  Stamps are 15 bits (the 16th marks a rewrite): a stamp
 * counter that wraps (every 32,767 spans; compressors make a few thousand
 * in a run) empties the filter, freeing its shadow, which then fills again
 * as the threads go on.
 */
#ifndef RP_REPEATS_H
#define RP_REPEATS_H

#include "rp_event.h"
#include "rp_shadow.h"
#include "rp_u64map.h"

#include <stdbool.h>
#include <stdint.h>

/* The top bit of a slot's stamp: rewritten since the last flush. */
#define RP_REPEATS_REWRITTEN 0x8000u

typedef struct rp_repeat_slot {
    uint16_t stamp;        /* 0: nothing passed on; | RP_REPEATS_REWRITTEN */
    uint8_t any;           /* bytes passed on under stamp */
    uint8_t written;       /* bytes written under stamp */
} rp_repeat_slot;

/* A thread's last receive on obj, when obj had had `sends` sends + 1
 * (0: the entry is empty). */
typedef struct rp_recv_seen {
    uint64_t obj;
    uint64_t sends;
} rp_recv_seen;

/* Receives remembered per thread, direct-mapped by object. */
#define RP_REPEATS_RECV_WAYS 8u

typedef struct rp_repeats {
    rp_shadow shadow;      /* rp_repeat_slot per granule */
    uint16_t *stamp;       /* current stamp per thread */
    rp_recv_seen *seen;    /* RP_REPEATS_RECV_WAYS per thread */
    rp_u64map sends;       /* sync object -> its sends + 1 (absent: none) */
    /* Chunks of the shadow before the last wrap of the stamps emptied it
     * (value: non-NULL), until a forget covers them: with the shadow's
     * own, the chunks where some access has been passed on since the
     * memory was last fresh (repeats_seen_parts). */
    rp_u64map seen_before_wrap;
    uint64_t n_sends;      /* sends passed on so far, on any object */
    uint64_t recvs_dropped;
    uint32_t n_threads, cap_stamps, cap_seen;
    uint16_t last_stamp;
    /* The thread the front end runs (repeats_set_current) and its stamp,
     * kept equal to stamp[current] (0: none yet) wherever that changes:
     * the front end's test (repeats_slot_cached) reads this one field. */
    uint16_t current_stamp;
    rp_tid_t current;
    uint64_t dropped;      /* repeats dropped so far */
    /* Granules marked rewritten, all by one thread (see above). */
    uint64_t *rewritten;
    uint32_t n_rewritten, cap_rewritten;
    rp_tid_t rewriter;
} rp_repeats;

/* A flush hands each rewritten run of bytes to the caller. */
typedef void (*rp_rewrite_fn)(void *ctx, rp_tid_t tid, uint64_t addr, uint32_t size);

/* More listed granules than this and the engine flushes at once. */
#define RP_REPEATS_MAX_REWRITTEN (1u << 20)

rp_repeats *repeats_create(void);
void repeats_destroy(rp_repeats *r);

/* Slot s (of the granule of addr) when an access within that granule of
 * the thread whose stamp is `stamp` repeats, else NULL. */
static inline rp_repeat_slot *repeats_test(rp_repeat_slot *s, uint16_t stamp, uint64_t addr,
                                           uint32_t size, bool is_write)
{
    if ((s->stamp & ~RP_REPEATS_REWRITTEN) != stamp)
        return NULL;
    uint32_t offset = (uint32_t)(addr & (RP_SHADOW_GRANULE_SIZE - 1));
    uint8_t mask = (uint8_t)(((1u << size) - 1) << offset);
    if ((mask & ~(is_write ? s->written : s->any)) != 0)
        return NULL;
    return s;
}

/* Whether an access lies within one granule. */
static inline bool repeats_within_granule(uint64_t addr, uint32_t size)
{
    uint32_t offset = (uint32_t)(addr & (RP_SHADOW_GRANULE_SIZE - 1));
    return size - 1u < RP_SHADOW_GRANULE_SIZE - offset;
}

/* The filter's slot of granule if its chunk is in the shadow's cache,
 * else NULL.  Typed arithmetic: the slot size is a constant here. */
static inline rp_repeat_slot *repeats_cached_slot(const rp_repeats *r, uint64_t granule)
{
    const rp_shadow_cache_entry *c = shadow_cache_entry(&r->shadow,
                                                        granule >> RP_SHADOW_CHUNK_BITS);
    if (c->chunk != granule >> RP_SHADOW_CHUNK_BITS)
        return NULL;
    return (rp_repeat_slot *)c->slots + (granule & (RP_SHADOW_CHUNK_GRANULES - 1));
}

/* No thread runs yet (current, until repeats_set_current). */
#define RP_REPEATS_NO_THREAD UINT32_MAX

/* The front end runs thread tid from now on (see current_stamp). */
void repeats_set_current(rp_repeats *r, rp_tid_t tid);

/* The slot of an access of the current thread (repeats_set_current)
 * within one granule when it repeats, uncounted, found through the
 * shadow's cache only: NULL if it is no repeat, spans two granules or its
 * chunk is not in the cache (the front end's inline test, which calls
 * nothing; repeats_slot_of then looks further).  *answered: the access
 * lies in one granule whose chunk is cached, so that NULL means no repeat
 * (the front end then does not ask again). */
static inline rp_repeat_slot *repeats_slot_cached(rp_repeats *r, uint64_t addr, uint32_t size,
                                                  bool is_write, bool *answered)
{
    *answered = false;
    if (!repeats_within_granule(addr, size))
        return NULL;
    rp_repeat_slot *s = repeats_cached_slot(r, addr >> RP_SHADOW_GRANULE_BITS);
    if (s == NULL)
        return NULL;
    *answered = true;
    return repeats_test(s, r->current_stamp, addr, size, is_write);
}

/* The slot of an access within one granule when it repeats, uncounted;
 * NULL if it is no repeat or spans two granules.  A chunk not in the
 * cache is looked up in the shadow's map (out of line, refilling the
 * cache): a program that walks more chunks at random than the cache holds
 * (bzip2's block sort) would otherwise pass a repeat on to the detectors
 * at every cache miss. */
static inline rp_repeat_slot *repeats_slot_of(rp_repeats *r, rp_tid_t tid, uint64_t addr,
                                              uint32_t size, bool is_write)
{
    if (!repeats_within_granule(addr, size) || tid >= r->n_threads)
        return NULL;
    uint64_t granule = addr >> RP_SHADOW_GRANULE_BITS;
    rp_repeat_slot *s = repeats_cached_slot(r, granule);
    if (s == NULL && (s = shadow_find_refill(&r->shadow, granule)) == NULL)
        return NULL;
    return repeats_test(s, r->stamp[tid], addr, size, is_write);
}

/* The slot of a repeated access within one granule, counted, or NULL.
 * Front ends call it on their hot path before building an event; the
 * engine calls it for events. */
static inline rp_repeat_slot *repeats_repeat_slot(rp_repeats *r, rp_tid_t tid, uint64_t addr,
                                                  uint32_t size, bool is_write)
{
    rp_repeat_slot *s = repeats_slot_of(r, tid, addr, size, is_write);
    r->dropped += s != NULL;
    return s;
}

/* An access over two granules or more (an unaligned load or store, or
 * the range a libc function or system call touches: rp_libc.h) is a
 * repeat when its part in each granule is one: the argument above holds
 * byte by byte.  Then it is counted.  Out of line: only accesses that the
 * one-granule test refused reach it. */
bool repeats_granules_repeat(rp_repeats *r, rp_tid_t tid, uint64_t addr, uint32_t size,
                             bool is_write);

static inline bool repeats_is_repeat(rp_repeats *r, rp_tid_t tid, uint64_t addr,
                                     uint32_t size, bool is_write)
{
    return repeats_repeat_slot(r, tid, addr, size, is_write) != NULL
        || repeats_granules_repeat(r, tid, addr, size, is_write);
}

/* Marks slot s, which a repeated write of tid hit (only with a witness
 * window), rewritten and lists its granule.  The list must be empty or
 * tid's (else flush it first: another thread's repeat is dropped without
 * passing through repeats_flush_due); true when it is full
 * (RP_REPEATS_MAX_REWRITTEN) and must be flushed now. */
bool repeats_list_rewrite(rp_repeats *r, rp_tid_t tid, rp_repeat_slot *s, uint64_t addr);

/* Must the rewrites be flushed before event e is passed on? */
static inline bool repeats_flush_due(const rp_repeats *r, const rp_event *e)
{
    return r->n_rewritten != 0 && (e->tid != r->rewriter || !rp_event_is_access(e));
}

/* Hands the listed granules' written bytes to fn, a record per run of
 * bytes, in the order they were listed, and empties the list. */
void repeats_flush_rewrites(rp_repeats *r, rp_rewrite_fn fn, void *ctx);

/* Whether receive e repeats its thread's last receive on the same object
 * with no send on it in between (see "Repeated receives"); counted. */
bool repeats_recv_is_repeat(rp_repeats *r, const rp_event *e);

/* Event e is passed on to the detectors: an access records its bytes under
 * its thread's stamp, a forget clears its range, any other event starts a
 * new span of its thread (and of the other thread of a fork or join). */
void repeats_note(rp_repeats *r, const rp_event *e);

/* No access of [addr, addr + size) is a repeat until it is passed on
 * again (as for a forget, but the detectors see nothing). */
void repeats_forget(rp_repeats *r, uint64_t addr, uint64_t size);

/* Calls fn for each run of [addr, addr + size) made of granules some of
 * whose bytes in the range an access passed on since a forget last
 * covered them, clipped to the range, and of whole shadow chunks
 * (RP_SHADOW_CHUNK_BITS granules: 64 KiB) where that was so before a wrap
 * of the stamps emptied the filter; nothing of the rest has reached a
 * detector since it was fresh. */
typedef void (*rp_range_fn)(void *ctx, uint64_t addr, uint64_t size);
void repeats_seen_parts(const rp_repeats *r, uint64_t addr, uint64_t size, rp_range_fn fn,
                        void *ctx);

#endif
