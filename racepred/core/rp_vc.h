/* rp_vc.h — vector clocks and epochs.
 *
 * A vector clock maps every thread (rp_tid_t, dense from 0) to a uint32
 * clock; entries past the end are 0, so a clock never needs to know how
 * many threads exist.
 *
 * Two layouts, chosen by length.  Up to rp_vc_flat_max entries a clock is
 * one array (entries [len, cap) are 0).  Longer ones — a program that
 * starts thousands of threads, each lock's last release holding a clock
 * as long as the threads seen — are cut into blocks of RP_VC_BLOCK
 * entries, grouped in pages of RP_VC_PAGE blocks; pages and blocks are
 * shared copy-on-write between clocks: a copy (a release into the lock's
 * clock) shares every page, a join skips what the two clocks share and
 * adopts the source's block (or page) where it dominates, and a write
 * copies a shared page and block first.  What threads learnt long ago (the
 * entries of threads that ended) is then the same few pages in every
 * clock instead of a copy in each (docs/performance.md, nineteenth
 * session: 10,000 threads over 10,000 locks, 4.5 GB before, 121 MB).
 *
 * An epoch t#k (FastTrack, Flanagan & Freund PLDI'09; seed 000 §3) is the
 * pair (thread, that thread's own clock) of one event.  With the clock
 * disciplines used in racepred — a thread's own entry is incremented after
 * it exports its clock (release, fork, send) and never on acquire — an
 * earlier event with epoch t#k happens before a later event whose thread
 * clock is V iff k <= V[t] (epoch_leq_vc); otherwise they are concurrent.
 */
#ifndef RP_VC_H
#define RP_VC_H

#include "rp_event.h"

#include <stdbool.h>
#include <stdint.h>

#define RP_VC_BLOCK_BITS 6
#define RP_VC_BLOCK (1u << RP_VC_BLOCK_BITS)
#define RP_VC_PAGE_BITS 4
#define RP_VC_PAGE (1u << RP_VC_PAGE_BITS)
/* Entries per page: a page holds RP_VC_PAGE blocks. */
#define RP_VC_PAGE_SPAN_BITS (RP_VC_BLOCK_BITS + RP_VC_PAGE_BITS)

typedef struct rp_vc_block {
    uint32_t refs;                 /* pages holding it */
    uint32_t clock[RP_VC_BLOCK];
} rp_vc_block;

typedef struct rp_vc_page {
    uint32_t refs;                 /* clocks holding it */
    rp_vc_block *blocks[RP_VC_PAGE];
} rp_vc_page;

/* cap's top bit: the clock is in pages of blocks. */
#define RP_VC_BLOCKED 0x80000000u

typedef struct rp_vc {
    union {
        uint32_t *clock;           /* flat: cap entries */
        rp_vc_page **pages;        /* blocked: cap & ~RP_VC_BLOCKED of them */
    } u;
    uint32_t len;
    uint32_t cap;
} rp_vc;

/* Clocks longer than this are kept in blocks (64 unless a test sets it,
 * while no clock exists). */
extern uint32_t rp_vc_flat_max;

/* Blocks and pages held by clocks now, each counted once however many
 * share it. */
uint64_t vc_blocks_in_use(void);

typedef struct rp_epoch {
    rp_tid_t tid;
    uint32_t clock;
} rp_epoch;

void vc_init(rp_vc *vc);
void vc_free(rp_vc *vc);

static inline uint32_t vc_get(const rp_vc *vc, rp_tid_t tid)
{
    if (tid >= vc->len)
        return 0;
    if (!(vc->cap & RP_VC_BLOCKED))
        return vc->u.clock[tid];
    return vc->u.pages[tid >> RP_VC_PAGE_SPAN_BITS]
        ->blocks[(tid >> RP_VC_BLOCK_BITS) & (RP_VC_PAGE - 1)]->clock[tid & (RP_VC_BLOCK - 1)];
}

void vc_set(rp_vc *vc, rp_tid_t tid, uint32_t clock);
void vc_inc(rp_vc *vc, rp_tid_t tid);

/* vc[tid] := max(vc[tid], clock): the join of the epoch tid#clock. */
static inline void vc_raise(rp_vc *vc, rp_tid_t tid, uint32_t clock)
{
    if (vc_get(vc, tid) < clock)
        vc_set(vc, tid, clock);
}

/* dst := dst ⊔ src (pointwise maximum). */
void vc_join(rp_vc *dst, const rp_vc *src);
/* dst := src. */
void vc_copy(rp_vc *dst, const rp_vc *src);
/* a ⊑ b (pointwise <=). */
bool vc_leq(const rp_vc *a, const rp_vc *b);
/* All entries 0. */
void vc_clear(rp_vc *vc);

static inline rp_epoch epoch_of(const rp_vc *vc, rp_tid_t tid)
{
    rp_epoch e = { tid, vc_get(vc, tid) };
    return e;
}

static inline bool epoch_leq_vc(rp_epoch e, const rp_vc *vc)
{
    return e.clock <= vc_get(vc, e.tid);
}

#endif
