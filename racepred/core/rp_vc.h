/* rp_vc.h — vector clocks and epochs.
 *
 * A vector clock maps every thread (rp_tid_t, dense from 0) to a uint32
 * clock.  It is stored as a dense array that grows on demand; entries past
 * the end are 0, so a clock never needs to know how many threads exist.
 * Invariant: len <= cap, and entries [len, cap) are 0.
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

typedef struct rp_vc {
    uint32_t *clock;
    uint32_t len;
    uint32_t cap;
} rp_vc;

typedef struct rp_epoch {
    rp_tid_t tid;
    uint32_t clock;
} rp_epoch;

void vc_init(rp_vc *vc);
void vc_free(rp_vc *vc);

static inline uint32_t vc_get(const rp_vc *vc, rp_tid_t tid)
{
    return tid < vc->len ? vc->clock[tid] : 0;
}

void vc_set(rp_vc *vc, rp_tid_t tid, uint32_t clock);
void vc_inc(rp_vc *vc, rp_tid_t tid);

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
