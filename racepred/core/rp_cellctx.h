/* rp_cellctx.h — the shared part of race-pair cells: interned access
 * contexts.
 *
 * A cell of rp_allpairs.c remembers one access of a granule.  Most of what
 * it remembers is the same for thousands of cells: the instruction (site),
 * the thread, its epochs in the detector's relation and in HB, the
 * detector's tag, the kind and the size.  A context holds that once; a
 * cell is 8 bytes, the context's number, its bytes, and its reference (the
 * event id, or the event's index in all-pairs mode) as a 24-bit offset
 * from the context's base reference.  A byte-wise loop over a buffer makes
 * one context per instruction and epoch, and a cell per granule.
 *
 * Interning looks in a table of the contexts interned last, by site and
 * thread: if the entry has the key and its base is at most 2^24 - 1 below
 * the given reference, that is the context; otherwise a new one (based at
 * that reference) replaces the entry.  So references must not decrease
 * between the calls for one key (event ids and indices only grow), and one
 * key may have several contexts (when two keys share an entry in turn, or
 * an offset would not reach): a cell only needs its context to have its
 * key.  No index of every context: a program that synchronises between
 * most accesses makes a context per cell, and looking each up in an index
 * (a cache miss at interning and another at release) doubled hb's time on
 * such a program (bench/scaling.c, 100,000 shared locations).
 *
 * A context lives while cells name it: every cell that stores its number
 * holds it (cellctx_hold), and lets go when it is evicted, forgotten or
 * released (cellctx_release); the last one to let go frees the number for
 * reuse.
 *
 * Layout: contexts in one array, numbered from 1 (0 is never a context);
 * free numbers in a list threaded through base_ref; the table of recent
 * contexts, direct-mapped.
 *
 * A table may also keep each context's first reference (cellctx_keep_firsts):
 * with shared cells a context's base moves to its latest access
 * (rp_allpairs.c, cell_for), and what a racy read is ordered after must be
 * bounded from below (rp_allpairs.c, read_from).
 *
 * Cost: intern is a compare with the context it returned last, else with
 * the recent context, else a new context;
 * hold and release a counter.  Memory: 40 bytes per live context (48 when
 * first references are kept), and the table's 4 KiB.
 */
#ifndef RP_CELLCTX_H
#define RP_CELLCTX_H

#include "rp_event.h"

#include <stdbool.h>
#include <stdint.h>

#define CELLCTX_OFFSET_BITS 24
#define CELLCTX_OFFSET_LIMIT ((uint64_t)1 << CELLCTX_OFFSET_BITS)
#define CELLCTX_RECENT_BITS 10
#define CELLCTX_RECENT (1u << CELLCTX_RECENT_BITS)

/* What cells of one context share. */
typedef struct rp_cellctx_key {
    uint64_t site;
    rp_tid_t tid;
    uint32_t clock;        /* epoch in the detector's relation */
    uint32_t hb_clock;     /* epoch in HB */
    uint32_t tag;          /* the detector's (locks held, for lockset-like filters) */
    uint8_t twin_size;     /* 1..8: the access lies in the cell's granule; 0: it does not */
    bool is_write;
} rp_cellctx_key;

/* A context: its key's fields, flat (40 bytes, not 48). */
typedef struct rp_cellctx {
    uint64_t site;
    uint64_t base_ref;     /* a free context: the next free number, 0 at the end */
    rp_tid_t tid;
    uint32_t clock;
    uint32_t hb_clock;
    uint32_t tag;
    uint32_t holders;      /* 0: free */
    uint8_t twin_size;
    bool is_write;
} rp_cellctx;

typedef struct rp_cellctx_table {
    rp_cellctx *ctx;       /* ctx[0] unused */
    uint32_t n, cap;       /* numbers handed out so far (+1), room */
    uint32_t free_head;    /* 0: none */
    uint32_t live;
    uint32_t last;         /* the context the last intern returned, or 0 */
    uint32_t recent[CELLCTX_RECENT];   /* by site and thread: the context interned last, or 0 */
    bool keeps_firsts;
    uint64_t *first_ref;   /* by number, if keeps_firsts: the reference the context began at */
} rp_cellctx_table;

void cellctx_init(rp_cellctx_table *t);
void cellctx_fini(rp_cellctx_table *t);
/* From now on every new context remembers its first reference
 * (cellctx_first_ref); call before the first intern. */
void cellctx_keep_firsts(rp_cellctx_table *t);

/* Number of a context of key whose references reach ref (see above); the
 * caller holds it before storing it anywhere. */
uint32_t cellctx_intern(rp_cellctx_table *t, const rp_cellctx_key *key, uint64_t ref);

static inline const rp_cellctx *cellctx_get(const rp_cellctx_table *t, uint32_t number)
{
    return &t->ctx[number];
}

/* The reference a context of a table that keeps_firsts began at: no
 * access of the context is older. */
static inline uint64_t cellctx_first_ref(const rp_cellctx_table *t, uint32_t number)
{
    return t->first_ref[number];
}

/* Whether ref can be stored as an offset from the context's base. */
static inline bool cellctx_reaches(const rp_cellctx_table *t, uint32_t number, uint64_t ref)
{
    return ref - t->ctx[number].base_ref < CELLCTX_OFFSET_LIMIT;
}

static inline void cellctx_hold(rp_cellctx_table *t, uint32_t number)
{
    t->ctx[number].holders++;
}

/* One holder less; the last frees the context. */
void cellctx_release(rp_cellctx_table *t, uint32_t number);

/* Whether the context has this key. */
static inline bool cellctx_has_key(const rp_cellctx *c, const rp_cellctx_key *key)
{
    return c->site == key->site && c->tid == key->tid && c->clock == key->clock
           && c->hb_clock == key->hb_clock && c->tag == key->tag
           && c->twin_size == key->twin_size && c->is_write == key->is_write;
}

#endif
