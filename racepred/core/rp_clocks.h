/* rp_clocks.h — the vector-clock tables every vector-clock detector keeps:
 * one clock per thread, one clock per synchronisation object.
 *
 * Thread clocks live in one dense array indexed by rp_tid_t that grows on
 * demand; a new thread's clock has its own entry set to `own_initial`
 * (1 in every racepred discipline: epoch 0 is "before everything").
 * Growing moves the array, so a caller that needs two thread clocks at once
 * (fork, join) first calls tclocks_ensure() with the larger tid.
 * Object clocks (locks, sync objects) start at 0 and live until
 * objclocks_free().
 */
#ifndef RP_CLOCKS_H
#define RP_CLOCKS_H

#include "rp_u64map.h"
#include "rp_vc.h"

typedef struct rp_thread_clocks {
    rp_vc *clock;
    uint32_t n, cap;
    uint32_t own_initial;
} rp_thread_clocks;

void tclocks_init(rp_thread_clocks *tc, uint32_t own_initial);
void tclocks_free(rp_thread_clocks *tc);
void tclocks_grow(rp_thread_clocks *tc, rp_tid_t tid);

/* Makes threads 0 .. tid exist; earlier pointers into the table may move. */
static inline void tclocks_ensure(rp_thread_clocks *tc, rp_tid_t tid)
{
    if (tid >= tc->n)
        tclocks_grow(tc, tid);
}

/* Thread tid was joined and its clock joined into the joiner's: no event
 * of it follows (the front end's stream; trace readers reject one), so its
 * clock goes.  Without it, a program that starts and joins thousands of
 * threads keeps a clock as long as the threads seen for each. */
void tclocks_release(rp_thread_clocks *tc, rp_tid_t tid);

static inline rp_vc *tclocks_get(rp_thread_clocks *tc, rp_tid_t tid)
{
    tclocks_ensure(tc, tid);
    return &tc->clock[tid];
}

/* Thread tid's clock, or NULL if the table has none yet (moves nothing). */
static inline const rp_vc *tclocks_peek(const rp_thread_clocks *tc, rp_tid_t tid)
{
    return tid < tc->n ? &tc->clock[tid] : NULL;
}

/* The clock of obj in m, created (all 0) on first use. */
rp_vc *objclocks_get(rp_u64map *m, uint64_t obj);
/* Frees every clock of m and the map itself. */
void objclocks_free(rp_u64map *m);
/* Removes (and frees) the clocks of objects [first, first + count): for
 * maps keyed by byte address, when the bytes are fresh memory. */
void objclocks_forget(rp_u64map *m, uint64_t first, uint64_t count);

#endif
