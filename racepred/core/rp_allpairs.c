/* rp_allpairs.c — race pairs of any vector-clock relation (rp_allpairs.h). */
#include "rp_allpairs.h"

#include "rp_array.h"
#include "rp_cellctx.h"
#include "rp_cellsets.h"
#include "rp_shadow.h"
#include "rp_shim.h"
#include "rp_sort.h"
#include "rp_u64map.h"

#define NO_INDEX UINT32_MAX
#define PENDING_MAX 8

/* One access as a granule remembers it, 8 bytes: the number of its
 * context (rp_cellctx.h: site, thread, clocks, tag, kind, size) in bits
 * 32-63, its reference (the event id in location mode, the index into
 * events in all-pairs mode) as an offset from the context's base in bits
 * 8-31, and its bytes in bits 0-7. */
typedef uint64_t ap_cell;

#define CELL_OFFSET_SHIFT 8
#define CELL_CONTEXT_SHIFT 32

static inline uint8_t cell_mask(ap_cell c)
{
    return (uint8_t)c;
}

static inline uint32_t cell_context(ap_cell c)
{
    return (uint32_t)(c >> CELL_CONTEXT_SHIFT);
}

static inline ap_cell cell_with_mask(ap_cell c, uint8_t mask)
{
    return (c & ~(ap_cell)0xFF) | mask;
}

/* A cell of context `number` for reference ref, which the context reaches. */
static inline ap_cell make_cell(const rp_cellctx_table *t, uint32_t number, uint64_t ref,
                                uint8_t mask)
{
    uint64_t offset = ref - cellctx_get(t, number)->base_ref;
    return (ap_cell)number << CELL_CONTEXT_SHIFT | offset << CELL_OFFSET_SHIFT | mask;
}

static inline uint64_t cell_ref(const rp_cellctx_table *t, ap_cell c)
{
    uint64_t offset = (uint32_t)c >> CELL_OFFSET_SHIFT;
    return cellctx_get(t, cell_context(c))->base_ref + offset;
}

/* A granule, 8 bytes: 0 if it has no cell (a zero-filled slot is empty);
 * its one cell itself (a cell's low byte, its bytes, is never 0); or, with
 * a zero low byte, its array of 2^k cells: k in bits 8-12, the array's
 * address divided by 8 (it is a multiple of 8) in bits 13-63.  An array
 * has no header: its cells come first, each with its bytes, the unused
 * rest is zero.  Most granules have one cell, which then costs no array.
 * With sites_suffice, bits 8-12 may be SLOT_SET instead: the address is an
 * interned set's (rp_cellsets.h), which the granule shares. */
typedef struct ap_slot {
    uint64_t word;
} ap_slot;

#define SLOT_ARRAY_SHIFT 13
#define SLOT_CAP_SHIFT 8
#define SLOT_CAP_BITS 0x1Fu
#define SLOT_SET SLOT_CAP_BITS

static inline bool slot_holds_cell(uint64_t word)
{
    return (uint8_t)word != 0;
}

static inline ap_cell *slot_array(uint64_t word)
{
    return (ap_cell *)(uintptr_t)(word >> SLOT_ARRAY_SHIFT << 3);
}

static inline uint32_t slot_cap_log(uint64_t word)
{
    return (uint32_t)(word >> SLOT_CAP_SHIFT) & SLOT_CAP_BITS;
}

static inline bool slot_holds_set(uint64_t word)
{
    return word != 0 && !slot_holds_cell(word) && slot_cap_log(word) == SLOT_SET;
}

static inline rp_cellset *slot_set(uint64_t word)
{
    return (rp_cellset *)slot_array(word);
}

static inline uint64_t set_word(rp_cellset *set)
{
    return (uint64_t)(uintptr_t)set >> 3 << SLOT_ARRAY_SHIFT | (uint64_t)SLOT_SET << SLOT_CAP_SHIFT;
}

static inline uint64_t array_word(ap_cell *cells, uint32_t cap_log)
{
    uint64_t word = (uint64_t)(uintptr_t)cells >> 3 << SLOT_ARRAY_SHIFT
                    | (uint64_t)cap_log << SLOT_CAP_SHIFT;
    rp_assert(slot_array(word) == cells && cap_log < SLOT_SET);
    return word;
}

/* A slot's cells where they are: its own word, or its array. */
typedef struct ap_cell_run {
    ap_cell *cell;
    uint32_t n;
    bool in_array;
} ap_cell_run;

static inline ap_cell_run slot_cells(ap_slot *s)
{
    ap_cell_run r = { NULL, 0, false };
    if (s->word == 0)
        return r;
    if (slot_holds_cell(s->word)) {
        r.cell = &s->word;
        r.n = 1;
        return r;
    }
    if (slot_holds_set(s->word)) {
        r.cell = slot_set(s->word)->cells;
        r.n = slot_set(s->word)->n;
        return r;
    }
    uint32_t cap = (uint32_t)1 << slot_cap_log(s->word);
    r.cell = slot_array(s->word);
    r.in_array = true;
    while (r.n < cap && r.cell[r.n] != 0)
        r.n++;
    return r;
}

/* Zeroes n cells.  A loop, not rp_memset: the arrays are a few cells
 * long and usually nothing is cleared, where a call of the host's memset
 * cost 5 % of a run (zstd -O0, 16 M calls). */
static inline void cells_clear(ap_cell *cell, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        cell[i] = 0;
}

/* The run's cells were compacted to the first `kept`. */
static inline void slot_keep(ap_slot *s, const ap_cell_run *r, uint32_t kept)
{
    if (r->in_array)
        cells_clear(r->cell + kept, r->n - kept);
    else if (kept == 0)
        s->word = 0;
}

/* Cell arrays of 2^k cells, k < POOL_CLASSES, come from free lists refilled
 * from big blocks (no per-array header, no calls in the common case);
 * larger ones from rp_malloc. */
#define POOL_CLASSES 5
#define POOL_BLOCK_BYTES ((size_t)256 << 10)
/* Forgets of at least this many bytes free emptied cell arrays. */
#define FORGET_FREES_BYTES 4096

typedef struct ap_pool {
    void *free[POOL_CLASSES];
    uint8_t *bump;
    size_t bump_left;
    void **blocks;
    uint32_t n_blocks, cap_blocks;
} ap_pool;

/* All-pairs mode: one per access, in stream order. */
typedef struct ap_event {
    uint64_t id;
    uint64_t site;
    uint64_t addr;
    rp_tid_t tid;
    uint32_t size;
    uint32_t clock;
    uint32_t hb_clock;
    uint32_t tag;
    uint32_t first_pred;   /* index into edges, or NO_INDEX */
    uint32_t snapshot;     /* index into snapshots, or NO_INDEX */
    uint32_t visited_by;   /* 1 + index of the β whose walk reached it */
    uint8_t is_write;
} ap_event;

typedef struct ap_edge {
    uint32_t pred;
    uint32_t next;
} ap_edge;

typedef struct ap_snapshot {
    rp_vc order;           /* V_β */
    rp_vc hb;              /* β's HB clock (empty if the detector gave none) */
    bool has_hb;
} ap_snapshot;

typedef struct ap_forget {
    uint64_t id;
    uint64_t addr;
    uint64_t size;
} ap_forget;

/* A race of the current access, merged over the granules it spans. */
typedef struct ap_pending {
    uint64_t partner_ref, partner_site;
    rp_tid_t partner_tid;
    bool partner_writes;
    uint64_t partner_lo, partner_hi;   /* partner's bytes seen, inclusive */
    uint64_t both_lo, both_hi;         /* shared bytes seen, inclusive */
    bool observed;
} ap_pending;

struct rp_allpairs {
    rp_detector_env env;
    rp_allpairs_config config;
    rp_shadow shadow;      /* ap_compact slots if shares, else ap_slot */
    /* The words of granules that do not compact (see "compact slots"):
     * a table, a free list through it, and an 8-byte shadow for the rest. */
    uint64_t *words;
    uint32_t n_words, cap_words, free_word;
    rp_shadow wide;
    ap_pool pool;
    rp_cellctx_table contexts;
    /* env.sites_suffice in location mode: a cell names the latest access
     * of its context, granules share interned sets. */
    bool shares;
    rp_cellsets sets;
    /* config.read_from in location mode: by reader << 32 | writer, the
     * latest reference of the writer's accesses the reader is ordered
     * after by racy reads (read_from). */
    bool reads_order;
    rp_u64map read_bounds;

    ap_pending pending[PENDING_MAX];
    uint32_t n_pending;

    ap_event *events;
    uint32_t n_events, cap_events;
    ap_edge *edges;
    uint32_t n_edges, cap_edges;
    uint64_t *conc;        /* second << 32 | first, in stream order of second */
    uint32_t n_conc, cap_conc;
    ap_snapshot *snapshots;
    uint32_t n_snapshots, cap_snapshots;
    ap_forget *forgets;
    uint32_t n_forgets, cap_forgets;
    uint64_t *extra;       /* first << 32 | second */
    uint32_t n_extra, cap_extra;
};


/* ---- cell arrays ------------------------------------------------------------ */

static size_t cells_bytes(uint32_t cap_log)
{
    return sizeof(ap_cell) << cap_log;
}

/* A zeroed array of 2^cap_log cells. */
static ap_cell *pool_alloc(ap_pool *p, uint32_t cap_log)
{
    ap_cell *cells;
    size_t bytes = cells_bytes(cap_log);
    if (cap_log >= POOL_CLASSES) {
        cells = rp_malloc("rp.allpairs.cells", bytes);
    } else if (p->free[cap_log] != NULL) {
        cells = p->free[cap_log];
        p->free[cap_log] = *(void **)cells;
        /* The next array out is cold (freed by an earlier forget) and its
         * link is what the next call reads first: it is fetched now. */
        __builtin_prefetch(p->free[cap_log], 1);
    } else {
        if (p->bump_left < bytes) {
            p->blocks = rp_array_reserve("rp.allpairs.array", p->blocks, p->n_blocks,
                                         &p->cap_blocks, sizeof(void *));
            p->bump = rp_malloc("rp.allpairs.cells", POOL_BLOCK_BYTES);
            rp_bulk_alloc(POOL_BLOCK_BYTES);
            p->blocks[p->n_blocks++] = p->bump;
            p->bump_left = POOL_BLOCK_BYTES;
        }
        cells = (ap_cell *)p->bump;
        p->bump += bytes;
        p->bump_left -= bytes;
    }
    cells_clear(cells, (uint32_t)1 << cap_log);
    return cells;
}

static void pool_free(ap_pool *p, ap_cell *cells, uint32_t cap_log)
{
    if (cap_log >= POOL_CLASSES) {
        rp_free(cells);
        return;
    }
    *(void **)cells = p->free[cap_log];
    p->free[cap_log] = cells;
}

static void pool_fini(ap_pool *p)
{
    for (uint32_t i = 0; i < p->n_blocks; i++) {
        rp_free(p->blocks[i]);
        rp_bulk_free(POOL_BLOCK_BYTES);
    }
    rp_free(p->blocks);
}

/* Appends a cell to a slot: into the slot itself when it is empty, else
 * into its array (made for its one cell and the new one, or grown when
 * full). */
static void slot_append(ap_pool *p, ap_slot *s, ap_cell c)
{
    if (s->word == 0) {
        s->word = c;
        return;
    }
    if (slot_holds_cell(s->word)) {
        ap_cell *cells = pool_alloc(p, 1);
        cells[0] = s->word;
        cells[1] = c;
        s->word = array_word(cells, 1);
        return;
    }
    ap_cell_run r = slot_cells(s);
    uint32_t cap_log = slot_cap_log(s->word);
    if (r.n < (uint32_t)1 << cap_log) {
        r.cell[r.n] = c;
        return;
    }
    rp_assert(cap_log < 27);
    ap_cell *bigger = pool_alloc(p, cap_log + 1u);
    rp_memcpy(bigger, r.cell, sizeof(ap_cell) * r.n);
    bigger[r.n] = c;
    pool_free(p, r.cell, cap_log);
    s->word = array_word(bigger, cap_log + 1u);
}

/* ---- shared cell sets (sites_suffice) ------------------------------------- */

/* A set the table drops lets go of its contexts. */
static void drop_set(void *ctx, rp_cellset *set)
{
    rp_allpairs *p = ctx;
    for (uint32_t i = 0; i < set->n; i++)
        cellctx_release(&p->contexts, cell_context(set->cells[i]));
}

/* Lets go of what a slot's word holds: its cell's context, its set, or
 * its array's contexts and the array. */
static void word_release(rp_allpairs *p, uint64_t word)
{
    if (slot_holds_set(word)) {
        slot_set(word)->holders--;
        return;
    }
    ap_slot s = { word };
    ap_cell_run r = slot_cells(&s);
    for (uint32_t i = 0; i < r.n; i++)
        cellctx_release(&p->contexts, cell_context(r.cell[i]));
    if (r.in_array)
        pool_free(&p->pool, r.cell, slot_cap_log(word));
}

static void hold_cells(rp_allpairs *p, const ap_cell *cells, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        cellctx_hold(&p->contexts, cell_context(cells[i]));
}

/* A private array of the n cells, which it holds. */
static uint64_t array_of(rp_allpairs *p, const ap_cell *cells, uint32_t n)
{
    uint32_t cap_log = 0;
    while ((uint32_t)1 << cap_log < n)
        cap_log++;
    ap_cell *array = pool_alloc(&p->pool, cap_log);
    rp_memcpy(array, cells, n * sizeof *cells);
    hold_cells(p, cells, n);
    return array_word(array, cap_log);
}

/* The word of n >= 2 cells: the interned set of this list, else a private
 * array.  Only a list met recently (rp_cellsets.h) is looked for: most
 * lists that are not sets then cost no probe of the table, and a set whose
 * mark was overwritten is found again from the list's next meeting. */
static uint64_t shared_word(rp_allpairs *p, const ap_cell *cells, uint32_t n)
{
    if (n > CELLSET_MAX)
        return array_of(p, cells, n);
    uint64_t hash = cellsets_hash(cells, n);
    if (!cellsets_met_before(&p->sets, hash))
        return array_of(p, cells, n);
    rp_cellset *set = cellsets_find(&p->sets, cells, n, hash);
    if (set == NULL) {
        /* Held first: making room may drop sets that alone held them. */
        hold_cells(p, cells, n);
        set = cellsets_add(&p->sets, cells, n, hash);
    }
    set->holders++;
    return set_word(set);
}

/* The slot holds the n cells (a copy) instead of what it held, in a set
 * if `share` and the list is one: the new holds come before the old ones
 * are let go, which may share contexts. */
static void slot_store(rp_allpairs *p, ap_slot *s, const ap_cell *cells, uint32_t n, bool share)
{
    uint64_t old = s->word;
    if (n == 0) {
        s->word = 0;
    } else if (n == 1) {
        cellctx_hold(&p->contexts, cell_context(cells[0]));
        s->word = cells[0];
    } else {
        s->word = share ? shared_word(p, cells, n) : array_of(p, cells, n);
    }
    word_release(p, old);
}

/* Whether n cells are the set's (no library call: most accesses to a
 * set's granule change nothing, and this is how they find out). */
static inline bool same_cells(const ap_cell *cells, uint32_t n, const rp_cellset *set)
{
    if (n != set->n)
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (cells[i] != set->cells[i])
            return false;
    return true;
}

/* slot_forget for a slot that shares a set. */
static void set_forget(rp_allpairs *p, ap_slot *s, uint8_t mask)
{
    const rp_cellset *set = slot_set(s->word);
    ap_cell cells[CELLSET_MAX];
    uint32_t n = 0;
    for (uint32_t i = 0; i < set->n; i++) {
        uint8_t left = cell_mask(set->cells[i]) & (uint8_t)~mask;
        if (left != 0)
            cells[n++] = cell_with_mask(set->cells[i], left);
    }
    if (!same_cells(cells, n, set))
        slot_store(p, s, cells, n, true);
}

/* Removes the bytes `mask` from every cell (RP_EV_FORGET); a cell left
 * without bytes lets go of its context.  An emptied array stays with its
 * granule: a small forget (a stack frame) is about to be used again. */
static void slot_forget(rp_allpairs *p, ap_slot *s, uint8_t mask)
{
    if (slot_holds_set(s->word)) {
        set_forget(p, s, mask);
        return;
    }
    ap_cell_run r = slot_cells(s);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < r.n; i++) {
        ap_cell c = r.cell[i];
        uint8_t left = cell_mask(c) & (uint8_t)~mask;
        if (left != 0)
            r.cell[kept++] = cell_with_mask(c, left);
        else
            cellctx_release(&p->contexts, cell_context(c));
    }
    slot_keep(s, &r, kept);
}

/* The same for a large forget (a freed heap block, an unmapping): an
 * array left with one cell or none goes back to the pool, or memory the
 * program never uses again would keep it. */
static void slot_forget_and_free(rp_allpairs *p, ap_slot *s, uint8_t mask)
{
    slot_forget(p, s, mask);
    ap_cell_run r = slot_cells(s);
    if (!r.in_array || r.n > 1)
        return;
    uint32_t cap_log = slot_cap_log(s->word);
    s->word = r.n == 1 ? r.cell[0] : 0;
    pool_free(&p->pool, r.cell, cap_log);
}

/* ---- compact slots ------------------------------------------------------------ */

/* When cells name their context's latest access (p->shares), every cell's
 * offset is 0, a granule's one cell fits in 4 bytes, and so does the
 * number of the interned set it shares: the shadow's slots are then 4
 * bytes.  A compact slot is
 *   0                       no cell;
 *   bytes != 0 (bits 0-7)   its one cell: the context's number in bits
 *                           8-31 (if below AP_COMPACT_CONTEXTS);
 *   bytes 0, bit 8 set      the set numbered bits 9-31 (if below
 *                           AP_COMPACT_SETS);
 *   bytes 0, bit 8 clear    its 8-byte word is elsewhere: bits 9-31 are
 *                           COMPACT_IN_WIDE (the granule's slot of
 *                           p->wide) or the index of an entry of p->words.
 * pbzip2 under hb at its end: 1.46 M granules with one cell against
 * 17,000 with more, in 200 of its 220 chunks (a second shadow of 8-byte
 * slots for those would cost most of what the compact one saves); at its
 * peak, most granules with more than one cell share sets.  The table
 * has AP_COMPACT_WORDS entries at most, then p->wide takes the rest.
 * The cell code works on 8-byte words throughout: a view opens a
 * granule's word (in p->words or p->wide, or made from the compact slot)
 * and closes it back into the form that fits. */
typedef uint32_t ap_compact;

#ifndef AP_COMPACT_CONTEXTS
#define AP_COMPACT_CONTEXTS ((uint32_t)1 << 24)
#endif
#ifndef AP_COMPACT_SETS
#define AP_COMPACT_SETS ((uint32_t)1 << 23)
#endif
#ifndef AP_COMPACT_WORDS
#define AP_COMPACT_WORDS ((uint32_t)1 << 23)
#endif
#define COMPACT_CELL_SHIFT 8
#define COMPACT_SET_BIT ((ap_compact)1 << 8)
#define COMPACT_INDEX_SHIFT 9
#define COMPACT_IN_WIDE 1u
/* p->words[0] and [1] are never used: 0 is an empty slot. */
#define COMPACT_FIRST_WORD 2u

static inline bool compact_is_word(ap_compact c)
{
    return (uint8_t)c == 0 && c != 0 && !(c & COMPACT_SET_BIT);
}

/* The compact form of a word, if it has one. */
static inline bool compact_of(uint64_t word, ap_compact *c)
{
    if (word == 0) {
        *c = 0;
        return true;
    }
    if (slot_holds_cell(word)) {
        *c = (ap_compact)(cell_context(word) << COMPACT_CELL_SHIFT | cell_mask(word));
        return (uint32_t)word >> CELL_OFFSET_SHIFT == 0 && cell_context(word) < AP_COMPACT_CONTEXTS;
    }
    if (!slot_holds_set(word) || slot_set(word)->number >= AP_COMPACT_SETS)
        return false;
    *c = slot_set(word)->number << COMPACT_INDEX_SHIFT | COMPACT_SET_BIT;
    return true;
}

/* The word of a compact slot that holds no word. */
static inline uint64_t compact_word(const rp_allpairs *p, ap_compact c)
{
    if ((uint8_t)c == 0 && (c & COMPACT_SET_BIT))
        return set_word(cellsets_by_number(&p->sets, c >> COMPACT_INDEX_SHIFT));
    return (uint64_t)(c >> COMPACT_CELL_SHIFT) << CELL_CONTEXT_SHIFT | (uint8_t)c;
}

/* An entry of p->words for `word`, or 0 when the table is full. */
static uint32_t word_entry_new(rp_allpairs *p, uint64_t word)
{
    uint32_t k = p->free_word;
    if (k != 0) {
        p->free_word = (uint32_t)p->words[k];
    } else {
        if (p->n_words == AP_COMPACT_WORDS)
            return 0;
        p->words = rp_array_reserve("rp.allpairs.words", p->words, p->n_words, &p->cap_words,
                                    sizeof *p->words);
        k = p->n_words++;
    }
    p->words[k] = word;
    return k;
}

static void word_entry_free(rp_allpairs *p, uint32_t k)
{
    p->words[k] = p->free_word;
    p->free_word = k;
}

typedef struct ap_view {
    ap_slot *slot;         /* the word to work on */
    ap_slot copy;          /* the word made from the compact slot */
    ap_compact *compact;   /* NULL: the shadow's slots are 8 bytes */
} ap_view;

/* The word of a granule whose slot in p->shadow is `slot`.  No other view
 * may be opened until it is closed (p->words may move then). */
static inline ap_slot *view_open(rp_allpairs *p, ap_view *v, void *slot, uint64_t granule)
{
    if (!p->shares) {
        v->compact = NULL;
        v->slot = slot;
        return v->slot;
    }
    ap_compact c = *(ap_compact *)slot;
    v->compact = slot;
    if (!compact_is_word(c)) {
        v->copy.word = compact_word(p, c);
        v->slot = &v->copy;
    } else if (c >> COMPACT_INDEX_SHIFT == COMPACT_IN_WIDE) {
        v->slot = shadow_slot(&p->wide, granule);
    } else {
        v->slot = (ap_slot *)&p->words[c >> COMPACT_INDEX_SHIFT];
    }
    return v->slot;
}

/* The word goes back where it fits: into the compact slot, else where it
 * was, else into a new entry of p->words, else into p->wide. */
static inline void view_close(rp_allpairs *p, ap_view *v, uint64_t granule)
{
    if (v->compact == NULL)
        return;
    ap_compact was = *v->compact, c;
    if (compact_of(v->slot->word, &c)) {
        *v->compact = c;
        if (!compact_is_word(was))
            return;
        if (was >> COMPACT_INDEX_SHIFT == COMPACT_IN_WIDE)
            v->slot->word = 0;
        else
            word_entry_free(p, was >> COMPACT_INDEX_SHIFT);
        return;
    }
    if (v->slot != &v->copy)
        return;
    uint32_t k = word_entry_new(p, v->slot->word);
    if (k == 0) {
        ((ap_slot *)shadow_slot(&p->wide, granule))->word = v->slot->word;
        k = COMPACT_IN_WIDE;
    }
    *v->compact = k << COMPACT_INDEX_SHIFT;
}

/* The bytes `mask` leave a slot that holds one cell or none (most of a
 * freed block's granules), the cell's context let go if it keeps no byte;
 * false for a slot that holds an array, a set or (compact) a word. */
static inline bool forget_one_cell(rp_allpairs *p, void *slot, uint8_t mask)
{
    ap_compact *compact = p->shares ? slot : NULL;
    uint64_t word = compact != NULL ? *compact : ((ap_slot *)slot)->word;
    if ((uint8_t)word == 0)
        return word == 0;
    if (compact != NULL)
        word = compact_word(p, (ap_compact)word);
    uint8_t left = cell_mask(word) & (uint8_t)~mask;
    if (left == 0)
        cellctx_release(&p->contexts, cell_context(word));
    word = left == 0 ? 0 : cell_with_mask(word, left);
    /* The cell fitted its compact slot, and fits with fewer bytes. */
    if (compact != NULL)
        compact_of(word, compact);
    else
        ((ap_slot *)slot)->word = word;
    return true;
}

/* The shadow's callbacks: fn on the granule's word (every fn leaves a
 * slot's one cell the same: its bytes in mask gone). */
static inline void on_view(void *ctx, uint64_t granule, void *slot, uint8_t mask,
                           void (*fn)(rp_allpairs *, ap_slot *, uint8_t))
{
    rp_allpairs *p = ctx;
    ap_view v;
    if (forget_one_cell(p, slot, mask))
        return;
    fn(p, view_open(p, &v, slot, granule), mask);
    view_close(p, &v, granule);
}

static void forget_cb(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    on_view(ctx, granule, slot, mask, slot_forget);
}

static void forget_and_free_cb(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    on_view(ctx, granule, slot, mask, slot_forget_and_free);
}

/* Releases a slot's cells (destroy, and chunks a forget covers whole). */
static void slot_release(rp_allpairs *p, ap_slot *s, uint8_t mask)
{
    (void)mask;
    word_release(p, s->word);
    s->word = 0;
}

static void release_cb(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    on_view(ctx, granule, slot, mask, slot_release);
}

/* A forget of p->wide's granules, after the compact slots' (which left
 * the words of the granules it covers whole 0), only frees its chunks:
 * the granules at its ends are the compact slots' business. */
static void wide_kept(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    (void)ctx;
    (void)granule;
    (void)slot;
    (void)mask;
}

/* What a wide chunk that a forget covers whole still holds: nothing. */
static void wide_forgotten(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    (void)ctx;
    (void)granule;
    (void)mask;
    rp_assert(((ap_slot *)slot)->word == 0);
}

/* ---- online reports ----------------------------------------------------------- */

static uint32_t lowest_byte(uint8_t mask)
{
    uint32_t i = 0;
    while (!(mask & (1u << i)))
        i++;
    return i;
}

static uint32_t highest_byte(uint8_t mask)
{
    uint32_t i = 7;
    while (!(mask & (1u << i)))
        i--;
    return i;
}

static void report_race(rp_allpairs *p, const rp_access *first, const rp_access *second,
                        uint64_t addr, uint64_t size, bool observed)
{
    rp_race race;
    race.detector = p->config.detector;
    race.first = *first;
    race.second = *second;
    race.addr = addr;
    race.size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
    race.observed = observed;
    race.confirmed = false;
    race.witness = NULL;
    p->env.report(p->env.report_ctx, &race);
}

static rp_access access_of(const rp_event *e)
{
    rp_access a = { e->id, e->obj, e->site, e->tid, e->size, e->kind == RP_EV_WRITE };
    return a;
}

static void flush_pending(rp_allpairs *p, const rp_event *e)
{
    rp_access second = access_of(e);
    for (uint32_t i = 0; i < p->n_pending; i++) {
        const ap_pending *q = &p->pending[i];
        rp_access first = { q->partner_ref, q->partner_lo, q->partner_site, q->partner_tid,
                            (uint32_t)(q->partner_hi - q->partner_lo + 1),
                            q->partner_writes };
        report_race(p, &first, &second, q->both_lo, q->both_hi - q->both_lo + 1, q->observed);
    }
    p->n_pending = 0;
}

static ap_pending *pending_for(rp_allpairs *p, const rp_event *e, ap_cell c)
{
    const rp_cellctx *x = cellctx_get(&p->contexts, cell_context(c));
    uint64_t ref = cell_ref(&p->contexts, c);
    for (uint32_t i = 0; i < p->n_pending; i++)
        if (p->pending[i].partner_ref == ref && p->pending[i].partner_tid == x->tid)
            return &p->pending[i];
    if (p->n_pending == PENDING_MAX)
        flush_pending(p, e);
    ap_pending *q = &p->pending[p->n_pending++];
    q->partner_ref = ref;
    q->partner_site = x->site;
    q->partner_tid = x->tid;
    q->partner_writes = x->is_write;
    q->partner_lo = q->both_lo = UINT64_MAX;
    q->partner_hi = q->both_hi = 0;
    return q;
}

/* Online mode: remember the race until the access is complete, merging the
 * granules of one partner into one report. */
static void note_race(rp_allpairs *p, const rp_allpairs_access *a, uint64_t granule,
                      ap_cell c, uint8_t both)
{
    uint64_t base = granule << RP_SHADOW_GRANULE_BITS;
    ap_pending *q = pending_for(p, a->e, c);
    const rp_cellctx *x = cellctx_get(&p->contexts, cell_context(c));
    uint64_t lo = base + lowest_byte(cell_mask(c)), hi = base + highest_byte(cell_mask(c));
    /* A cell shared by twins: the earlier access is one of them, of the
     * twins' size, on the racy bytes. */
    uint32_t twin_size = x->twin_size;
    if (twin_size != 0 && hi - lo + 1 > twin_size) {
        lo = base + lowest_byte(both);
        hi = lo + twin_size - 1;
    }
    q->observed = a->hb != NULL ? x->hb_clock > vc_get(a->hb, x->tid)
                                : p->config.observed_without_hb;
    q->partner_lo = lo < q->partner_lo ? lo : q->partner_lo;
    q->partner_hi = hi > q->partner_hi ? hi : q->partner_hi;
    lo = base + lowest_byte(both);
    hi = base + highest_byte(both);
    q->both_lo = lo < q->both_lo ? lo : q->both_lo;
    q->both_hi = hi > q->both_hi ? hi : q->both_hi;
}

/* ---- all-pairs bookkeeping ------------------------------------------------ */

static uint32_t record_event(rp_allpairs *p, const rp_allpairs_access *a)
{
    p->events = rp_array_reserve("rp.allpairs.array", p->events, p->n_events,
                                 &p->cap_events, sizeof(ap_event));
    ap_event *ev = &p->events[p->n_events];
    ev->id = a->e->id;
    ev->site = a->e->site;
    ev->addr = a->e->obj;
    ev->tid = a->e->tid;
    ev->size = a->e->size;
    ev->clock = a->clock;
    ev->hb_clock = a->hb_clock;
    ev->tag = a->tag;
    ev->first_pred = NO_INDEX;
    ev->snapshot = NO_INDEX;
    ev->visited_by = 0;
    ev->is_write = a->e->kind == RP_EV_WRITE;
    return p->n_events++;
}

static void add_edge(rp_allpairs *p, uint32_t pred, uint32_t succ)
{
    ap_event *ev = &p->events[succ];
    if (ev->first_pred != NO_INDEX && p->edges[ev->first_pred].pred == pred)
        return;
    p->edges = rp_array_reserve("rp.allpairs.array", p->edges, p->n_edges,
                                &p->cap_edges, sizeof(ap_edge));
    p->edges[p->n_edges].pred = pred;
    p->edges[p->n_edges].next = ev->first_pred;
    ev->first_pred = p->n_edges++;
}

static void take_snapshot(rp_allpairs *p, ap_event *ev, const rp_allpairs_access *a)
{
    p->snapshots = rp_array_reserve("rp.allpairs.array", p->snapshots, p->n_snapshots,
                                    &p->cap_snapshots, sizeof(ap_snapshot));
    ap_snapshot *s = &p->snapshots[p->n_snapshots];
    vc_init(&s->order);
    vc_init(&s->hb);
    vc_copy(&s->order, a->order);
    s->has_hb = a->hb != NULL;
    if (s->has_hb)
        vc_copy(&s->hb, a->hb);
    ev->snapshot = p->n_snapshots++;
}

static void add_conc_pair(rp_allpairs *p, uint32_t first, const rp_allpairs_access *a,
                          uint32_t second)
{
    ap_event *ev = &p->events[second];
    if (ev->snapshot == NO_INDEX)
        take_snapshot(p, ev, a);
    p->conc = rp_array_reserve("rp.allpairs.array", p->conc, p->n_conc,
                               &p->cap_conc, sizeof(uint64_t));
    p->conc[p->n_conc++] = (uint64_t)second << 32 | first;
}

/* ---- accesses --------------------------------------------------------------- */

static bool may_pair(const rp_allpairs *p, uint32_t first_tag, uint32_t second_tag)
{
    return p->config.filter == NULL || p->config.filter(p->config.ctx, first_tag, second_tag);
}

static bool may_evict(const rp_allpairs *p, uint32_t old_tag, uint32_t new_tag)
{
    return p->config.evict == NULL || p->config.evict(p->config.ctx, old_tag, new_tag);
}

static void unordered_cell(rp_allpairs *p, const rp_allpairs_access *a, uint32_t event,
                           uint64_t granule, ap_cell c, const rp_cellctx *x, uint8_t both)
{
    if (x->tid == a->e->tid || !(a->e->kind == RP_EV_WRITE || x->is_write))
        return;
    if (p->env.all_pairs)
        add_conc_pair(p, (uint32_t)cell_ref(&p->contexts, c), a, event);
    else if (may_pair(p, x->tag, a->tag))
        note_race(p, a, granule, c, both);
}

/* Whether the bytes of mask are one run. */
static inline bool contiguous(uint8_t mask)
{
    uint32_t run = (uint32_t)mask >> __builtin_ctz(mask);
    return (run & (run + 1)) == 0;
}

/* The context of the access's cell in the granule of its bytes `mask`.
 * Only an access within the granule may have twins: its size is then the
 * number of its bytes here. */
static inline rp_cellctx_key access_key(const rp_allpairs_access *a, uint8_t mask)
{
    uint32_t size = a->e->size;
    rp_cellctx_key key = { a->e->site, a->e->tid, a->clock, a->hb_clock, a->tag,
                           (uint8_t)(size <= 8 && size == shadow_mask_bytes(mask) ? size : 0),
                           a->e->kind == RP_EV_WRITE };
    return key;
}

/* A cell the access could share (rp_allpairs.h, twins): another instance
 * of the same instruction in the same epoch, thread, kind and tag, of the
 * same size, both within this granule, their bytes together one run.  The
 * bytes are tested first: the context is a load, and most cells of a
 * granule of byte-wise accesses are not next to the access's bytes (git
 * pack-objects: 57 M visits to granules of 9 to 16 cells). */
static inline bool is_twin(const rp_cellctx *x, const rp_cellctx_key *key, uint8_t cell_bytes,
                    uint8_t mask)
{
    return key->twin_size != 0 && contiguous(cell_bytes | mask) && cellctx_has_key(x, key);
}

/* The cell of context `number` for reference ref.  When granules share
 * sets, the context's base moves to ref first: the cell, and every cell of
 * the context, names the latest access of the context, and equal cells of
 * different granules are equal words. */
static ap_cell cell_for(rp_allpairs *p, uint32_t number, uint64_t ref, uint8_t mask)
{
    if (p->shares)
        p->contexts.ctx[number].base_ref = ref;
    return make_cell(&p->contexts, number, ref, mask);
}

/* The twin's cell c joined by the access, which it now names: in a newer
 * context of the same key when c's own cannot reach the access.  Holding
 * the context is the caller's business. */
static ap_cell twin_joined(rp_allpairs *p, ap_cell c, const rp_cellctx_key *key, uint64_t ref,
                           uint8_t mask)
{
    uint32_t number = cell_context(c);
    if (!cellctx_reaches(&p->contexts, number, ref))
        number = cellctx_intern(&p->contexts, key, ref);
    return cell_for(p, number, ref, cell_mask(c) | mask);
}

static void merge_twin(rp_allpairs *p, ap_cell *c, const rp_cellctx_key *key, uint64_t ref,
                       uint8_t mask)
{
    uint32_t number = cell_context(*c);
    ap_cell joined = twin_joined(p, *c, key, ref, mask);
    if (cell_context(joined) != number) {
        cellctx_hold(&p->contexts, cell_context(joined));
        cellctx_release(&p->contexts, number);
    }
    *c = joined;
}

/* The latest write among the cells a read meets (read_from); scan_cells
 * looks for it only when the detector asks (config.read_from).  A cell's
 * reference is no earlier than its access (a twin's, or with shared cells
 * its context's, latest), its context's first one no later: the cell with
 * the latest reference is the latest write only when its context began
 * after every other cell's reference. */
typedef struct ap_last_write {
    const rp_cellctx *x;   /* the cell with the latest reference, or NULL */
    uint64_t ref;          /* its reference */
    uint64_t first;        /* its context's first */
    uint64_t others;       /* the latest reference of the other write cells, or 0 */
} ap_last_write;

static inline void note_write_met(const rp_allpairs *p, ap_last_write *w, ap_cell c,
                                  const rp_cellctx *x)
{
    uint64_t ref = cell_ref(&p->contexts, c);
    if (w->x != NULL && ref <= w->ref) {
        w->others = ref > w->others ? ref : w->others;
        return;
    }
    if (w->x != NULL)
        w->others = w->ref;
    w->x = x;
    w->ref = ref;
    w->first = cellctx_first_ref(&p->contexts, cell_context(c));
}

static inline uint32_t epoch_before(uint32_t clock)
{
    return clock > 0 ? clock - 1 : 0;
}

/* *w, emptied, when the detector asks for the latest write a read meets
 * (location mode), else NULL. */
static inline ap_last_write *last_write_wanted(const rp_allpairs *p, ap_last_write *w)
{
    if (!p->reads_order)
        return NULL;
    w->x = NULL;
    w->others = 0;
    return w;
}

static inline uint64_t bound_key(rp_tid_t reader, rp_tid_t writer)
{
    return (uint64_t)reader << 32 | writer;
}

/* The latest reference of thread writer's accesses that racy reads
 * ordered thread reader after, or 0. */
static inline uint64_t read_bound(const rp_allpairs *p, rp_tid_t reader, rp_tid_t writer)
{
    return (uint64_t)(uintptr_t)u64map_get(&p->read_bounds, bound_key(reader, writer));
}

/* Whether the access is ordered after cell c (context x), which its clock
 * is not, by a racy read of its thread.  A cell's reference is its
 * context's latest with shared cells, never older than its own access. */
static bool read_orders(const rp_allpairs *p, const rp_allpairs_access *a, ap_cell c,
                        const rp_cellctx *x)
{
    return p->reads_order && cell_ref(&p->contexts, c) <= read_bound(p, a->e->tid, x->tid);
}

/* The read met the write cells w of its bytes in this granule: when the
 * latest is certain, another thread's, and not HB-ordered before the
 * read, the read is ordered after it: the detector raises the reader's
 * clocks to the epoch before the write's, and the bound covers the
 * write's epoch up to the first access of its context (no later than the
 * write itself). */
static void read_from(rp_allpairs *p, const rp_allpairs_access *a, const ap_last_write *w)
{
    if (w->x == NULL || w->x->tid == a->e->tid || w->first <= w->others)
        return;
    const rp_vc *hb = a->hb != NULL ? a->hb : a->order;
    uint32_t clock = a->hb != NULL ? w->x->hb_clock : w->x->clock;
    uint64_t bound = read_bound(p, a->e->tid, w->x->tid);
    if (clock <= vc_get(hb, w->x->tid) || w->ref <= bound)
        return;
    p->config.read_from(p->config.ctx, a->e->tid, w->x->tid, epoch_before(w->x->clock),
                        epoch_before(w->x->hb_clock));
    if (w->first > bound)
        u64map_put(&p->read_bounds, bound_key(a->e->tid, w->x->tid), (void *)(uintptr_t)w->first);
}

/* Races of the access with a granule's n cells `in`, and eviction of its
 * bytes `mask` from the ordered ones (all of them for a write, reads only
 * for a read; unless the detector objects).  The cells kept go to out, in
 * order (out may be in); a dropped cell lets go of its context if `owned`.
 * Returns how many were kept; *twin: the index in out of the access's
 * twin, or NO_INDEX; *w, unless w is NULL: the latest write a read met.
 * Inlined into both callers: it is the loop of every access that reaches
 * the detector. */
static inline __attribute__((always_inline)) uint32_t
scan_cells(rp_allpairs *p, const rp_allpairs_access *a, uint32_t event, uint64_t granule,
           const rp_cellctx_key *key, uint8_t mask, const ap_cell *in, uint32_t n, ap_cell *out,
           bool owned, uint32_t *twin, ap_last_write *w)
{
    uint32_t kept = 0;
    *twin = NO_INDEX;
    for (uint32_t i = 0; i < n; i++) {
        ap_cell c = in[i];
        const rp_cellctx *x = cellctx_get(&p->contexts, cell_context(c));
        uint8_t cmask = cell_mask(c);
        uint8_t both = cmask & mask;
        if (w != NULL && both != 0 && x->is_write && !key->is_write)
            note_write_met(p, w, c, x);
        if (both == 0) {
            /* untouched */
        } else if (x->clock > vc_get(a->order, x->tid) && !read_orders(p, a, c, x)) {
            unordered_cell(p, a, event, granule, c, x, both);
        } else if ((key->is_write || !x->is_write) && may_evict(p, x->tag, a->tag)) {
            if (p->env.all_pairs)
                add_edge(p, (uint32_t)cell_ref(&p->contexts, c), event);
            cmask &= (uint8_t)~mask;
            if (cmask == 0) {
                if (owned)
                    cellctx_release(&p->contexts, cell_context(c));
                continue;
            }
            c = cell_with_mask(c, cmask);
        }
        out[kept] = c;
        if (is_twin(x, key, cmask, mask))
            *twin = kept;
        kept++;
    }
    return kept;
}

/* A granule that shares a set (sites_suffice): scan_cells on a copy of
 * its cells, the access's cell added or merged, and the new list stored
 * unless it is the old one (most repeated accesses change nothing).  A
 * twin that took new bytes (a byte-wise loop, eight times a granule) moves
 * the granule to a private array, which the next bytes change in place
 * instead of paying a hash and a probe each. */
static void access_set_granule(rp_allpairs *p, const rp_allpairs_access *a, ap_slot *s,
                               uint64_t granule, uint8_t mask)
{
    const rp_cellset *set = slot_set(s->word);
    rp_cellctx_key key = access_key(a, mask);
    ap_cell cells[CELLSET_MAX + 1];
    uint32_t twin;
    ap_last_write last, *w = last_write_wanted(p, &last);
    uint32_t n = scan_cells(p, a, ALLPAIRS_NO_EVENT, granule, &key, mask, set->cells, set->n,
                            cells, false, &twin, w);
    if (w != NULL)
        read_from(p, a, w);
    uint64_t ref = a->e->id;
    if (twin != NO_INDEX)
        cells[twin] = twin_joined(p, cells[twin], &key, ref, mask);
    else
        cells[n++] = cell_for(p, cellctx_intern(&p->contexts, &key, ref), ref, mask);
    if (!same_cells(cells, n, set))
        slot_store(p, s, cells, n, twin == NO_INDEX);
}

/* A private array whose twin has just covered the whole granule (the
 * end of a byte-wise loop, which access_set_granule moved off its set):
 * the list will not change again until another access, so it goes back
 * to a set when its hash has been met before (a block read byte by byte
 * after one write leaves the same two cells in every granule).  One
 * lookup per completed granule, none per byte. */
static void share_completed(rp_allpairs *p, ap_slot *s, const ap_cell *cells, uint32_t n)
{
    if (n > CELLSET_MAX || !cellsets_met_before(&p->sets, cellsets_hash(cells, n)))
        return;
    ap_cell copy[CELLSET_MAX];
    rp_memcpy(copy, cells, n * sizeof *copy);
    slot_store(p, s, copy, n, true);
}

/* Whether appending a cell to a slot of `kept` cells needs a new array. */
static bool append_grows(const ap_slot *s, uint32_t kept)
{
    return slot_holds_cell(s->word)
           || (s->word != 0 && kept == (uint32_t)1 << slot_cap_log(s->word));
}

/* One granule of an access: scan_cells on the granule's own cells, which
 * are compacted in place, then the access's own cell merged into its
 * twin's or appended.  When granules share sets, a list that outgrows its
 * slot or array is stored anew (slot_store): as a set if it is one.  A
 * list that changes in place (byte-wise loops merging twins) pays no hash. */
static void access_slot(rp_allpairs *p, const rp_allpairs_access *a, ap_slot *s,
                        uint32_t event, uint64_t granule, uint8_t mask)
{
    if (slot_holds_set(s->word)) {
        access_set_granule(p, a, s, granule, mask);
        return;
    }
    rp_cellctx_key key = access_key(a, mask);
    ap_cell_run r = slot_cells(s);
    uint32_t twin;
    ap_last_write last, *w = last_write_wanted(p, &last);
    uint32_t kept = scan_cells(p, a, event, granule, &key, mask, r.cell, r.n, r.cell, true, &twin,
                               w);
    if (w != NULL)
        read_from(p, a, w);
    slot_keep(s, &r, kept);
    uint64_t ref = p->env.all_pairs ? event : a->e->id;
    if (twin != NO_INDEX && !p->env.all_pairs) {
        merge_twin(p, &r.cell[twin], &key, ref, mask);
        if (p->shares && r.in_array && cell_mask(r.cell[twin]) == 0xFF)
            share_completed(p, s, r.cell, kept);
        return;
    }
    ap_cell c = cell_for(p, cellctx_intern(&p->contexts, &key, ref), ref, mask);
    if (p->shares && kept < CELLSET_MAX && append_grows(s, kept)) {
        ap_cell cells[CELLSET_MAX];
        rp_memcpy(cells, r.cell, kept * sizeof *cells);
        cells[kept] = c;
        slot_store(p, s, cells, kept + 1, true);
        return;
    }
    cellctx_hold(&p->contexts, cell_context(c));
    slot_append(&p->pool, s, c);
}

/* access_slot on an empty slot, the first access of fresh memory in
 * location mode: nothing to race with or evict, the access's cell is the
 * slot.  False when the slot holds something, or a compact slot cannot
 * hold the context's number (access_slot takes over). */
static inline bool fill_empty(rp_allpairs *p, const rp_allpairs_access *a, void *slot,
                              uint8_t mask)
{
    if (p->shares ? *(ap_compact *)slot != 0 : ((ap_slot *)slot)->word != 0)
        return false;
    rp_cellctx_key key = access_key(a, mask);
    uint64_t ref = a->e->id;
    uint32_t number = cellctx_intern(&p->contexts, &key, ref);
    ap_cell c = cell_for(p, number, ref, mask);
    ap_compact compact;
    if (!p->shares)
        ((ap_slot *)slot)->word = c;
    else if (compact_of(c, &compact))
        *(ap_compact *)slot = compact;
    else
        return false;
    cellctx_hold(&p->contexts, number);
    return true;
}

static void access_granule(rp_allpairs *p, const rp_allpairs_access *a, uint32_t event,
                           uint64_t granule, uint8_t mask)
{
    ap_view v;
    void *slot = shadow_slot(&p->shadow, granule);
    /* Fresh memory (git pack-objects: a third of hb's granule visits). */
    if (!p->env.all_pairs && fill_empty(p, a, slot, mask))
        return;
    access_slot(p, a, view_open(p, &v, slot, granule), event, granule, mask);
    view_close(p, &v, granule);
}

uint32_t allpairs_access(rp_allpairs *p, const rp_allpairs_access *a)
{
    uint64_t addr = a->e->obj, size = a->e->size;
    uint32_t event = ALLPAIRS_NO_EVENT;
    if (size == 0)
        return event;
    if (p->env.all_pairs)
        event = record_event(p, a);
    uint64_t granule = addr >> RP_SHADOW_GRANULE_BITS;
    uint64_t last = (addr + (size - 1)) >> RP_SHADOW_GRANULE_BITS;
    if (addr + (size - 1) < addr)
        last = UINT64_MAX >> RP_SHADOW_GRANULE_BITS;
    for (;; granule++) {
        access_granule(p, a, event, granule, shadow_granule_mask(granule, addr, size));
        if (granule == last)
            break;
    }
    if (p->n_pending != 0)
        flush_pending(p, a->e);
    return event;
}

void allpairs_add_pair(rp_allpairs *p, const rp_access *first, uint32_t first_event,
                       const rp_access *second, uint32_t second_event,
                       uint64_t addr, uint64_t size)
{
    if (!p->env.all_pairs) {
        report_race(p, first, second, addr, size, p->config.observed_without_hb);
        return;
    }
    p->extra = rp_array_reserve("rp.allpairs.array", p->extra, p->n_extra,
                                &p->cap_extra, sizeof(uint64_t));
    p->extra[p->n_extra++] = (uint64_t)first_event << 32 | second_event;
}

void allpairs_forget(rp_allpairs *p, const rp_event *e)
{
    shadow_clear_range(&p->shadow, e->obj, e->size,
                       e->size < FORGET_FREES_BYTES ? forget_cb : forget_and_free_cb, p);
    /* Only a forget of a whole chunk or more frees wide chunks. */
    if (p->wide.chunks.count != 0 && e->size >= RP_SHADOW_CHUNK_BYTES)
        shadow_clear_range(&p->wide, e->obj, e->size, wide_kept, p);
    if (p->env.all_pairs && e->size != 0) {
        p->forgets = rp_array_reserve("rp.allpairs.array", p->forgets, p->n_forgets,
                                      &p->cap_forgets, sizeof(ap_forget));
        p->forgets[p->n_forgets].id = e->id;
        p->forgets[p->n_forgets].addr = e->obj;
        p->forgets[p->n_forgets].size = e->size;
        p->n_forgets++;
    }
}

/* ---- all-pairs post-processing (finish) ----------------------------------- */

static bool byte_forgotten_between(const rp_allpairs *p, uint64_t byte, uint64_t after_id,
                                   uint64_t before_id)
{
    for (uint32_t i = 0; i < p->n_forgets; i++) {
        const ap_forget *f = &p->forgets[i];
        if (f->id > after_id && f->id < before_id && byte - f->addr < f->size)
            return true;
    }
    return false;
}

/* Bytes [lo, hi) both events touch; false if none, or if forgets in between
 * cleared every one of them. */
static bool shared_bytes(const rp_allpairs *p, const ap_event *a, const ap_event *b,
                         uint64_t *lo, uint64_t *hi)
{
    uint64_t a_end = a->addr + a->size, b_end = b->addr + b->size;
    *lo = a->addr > b->addr ? a->addr : b->addr;
    *hi = a_end < b_end ? a_end : b_end;
    if (*lo >= *hi)
        return false;
    if (p->n_forgets == 0)
        return true;
    for (uint64_t byte = *lo; byte < *hi; byte++)
        if (!byte_forgotten_between(p, byte, a->id, b->id))
            return true;
    return false;
}

static bool conflicting(const ap_event *a, const ap_event *b)
{
    return a->tid != b->tid && (a->is_write || b->is_write);
}

typedef struct pair_walk {
    uint32_t *stack;
    uint32_t n_stack, cap_stack;
    uint64_t *pairs;       /* first << 32 | second, event indices */
    uint32_t n_pairs, cap_pairs;
} pair_walk;

static void walk_push(pair_walk *w, uint32_t ev)
{
    w->stack = rp_array_reserve("rp.allpairs.array", w->stack, w->n_stack,
                                &w->cap_stack, sizeof(uint32_t));
    w->stack[w->n_stack++] = ev;
}

static void walk_add_pair(pair_walk *w, uint32_t first, uint32_t second)
{
    w->pairs = rp_array_reserve("rp.allpairs.array", w->pairs, w->n_pairs,
                                &w->cap_pairs, sizeof(uint64_t));
    w->pairs[w->n_pairs++] = (uint64_t)first << 32 | second;
}

/* Walks the predecessors of g (unordered with beta) for candidates (p, beta). */
static void walk_predecessors(rp_allpairs *p, pair_walk *w, uint32_t g, uint32_t beta)
{
    const ap_event *b = &p->events[beta];
    const rp_vc *v = &p->snapshots[b->snapshot].order;
    for (uint32_t ei = p->events[g].first_pred; ei != NO_INDEX; ei = p->edges[ei].next) {
        uint32_t pred = p->edges[ei].pred;
        ap_event *pe = &p->events[pred];
        uint64_t lo, hi;
        if (pe->visited_by == beta + 1)
            continue;
        pe->visited_by = beta + 1;
        if (pe->clock <= vc_get(v, pe->tid) || !shared_bytes(p, pe, b, &lo, &hi))
            continue;
        walk_add_pair(w, pred, beta);
        walk_push(w, pred);
    }
}

/* conc[from .. to) all have the same second event β. */
static void walk_from_conc_pairs(rp_allpairs *p, pair_walk *w, uint32_t from, uint32_t to)
{
    uint32_t beta = (uint32_t)(p->conc[from] >> 32);
    for (uint32_t i = from; i < to; i++) {
        uint32_t alpha = (uint32_t)p->conc[i];
        if (p->events[alpha].visited_by == beta + 1)
            continue;
        p->events[alpha].visited_by = beta + 1;
        walk_add_pair(w, alpha, beta);
        walk_push(w, alpha);
    }
    while (w->n_stack != 0)
        walk_predecessors(p, w, w->stack[--w->n_stack], beta);
}

static rp_access access_of_event(const ap_event *ev)
{
    rp_access a = { ev->id, ev->addr, ev->site, ev->tid, ev->size, ev->is_write };
    return a;
}

static bool observed_pair(const rp_allpairs *p, const ap_event *first, const ap_event *second)
{
    if (second->snapshot == NO_INDEX || !p->snapshots[second->snapshot].has_hb)
        return p->config.observed_without_hb;
    return first->hb_clock > vc_get(&p->snapshots[second->snapshot].hb, first->tid);
}

static void report_pair(rp_allpairs *p, uint64_t key)
{
    const ap_event *first = &p->events[key >> 32];
    const ap_event *second = &p->events[(uint32_t)key];
    uint64_t lo, hi;
    if (!conflicting(first, second) || !shared_bytes(p, first, second, &lo, &hi)
        || !may_pair(p, first->tag, second->tag))
        return;
    rp_access a = access_of_event(first), b = access_of_event(second);
    report_race(p, &a, &b, lo, hi - lo, observed_pair(p, first, second));
}

void allpairs_finish(rp_allpairs *p)
{
    if (!p->env.all_pairs)
        return;
    pair_walk w = { NULL, 0, 0, NULL, 0, 0 };
    for (uint32_t from = 0; from < p->n_conc;) {
        uint32_t to = from + 1;
        while (to < p->n_conc && p->conc[to] >> 32 == p->conc[from] >> 32)
            to++;
        walk_from_conc_pairs(p, &w, from, to);
        from = to;
    }
    for (uint32_t i = 0; i < p->n_extra; i++)
        walk_add_pair(&w, (uint32_t)(p->extra[i] >> 32), (uint32_t)p->extra[i]);
    uint32_t n = (uint32_t)sort_unique_u64(w.pairs, w.n_pairs);
    for (uint32_t i = 0; i < n; i++)
        report_pair(p, w.pairs[i]);
    rp_free(w.stack);
    rp_free(w.pairs);
}

/* ---- life cycle --------------------------------------------------------------- */

rp_allpairs *allpairs_create(const rp_detector_env *env, const rp_allpairs_config *config)
{
    rp_allpairs *p = rp_calloc("rp.allpairs", 1, sizeof *p);
    p->env = *env;
    p->config = *config;
    p->shares = env->sites_suffice && !env->all_pairs;
    p->n_words = COMPACT_FIRST_WORD;
    cellsets_init(&p->sets, drop_set, p);
    shadow_init(&p->shadow, p->shares ? sizeof(ap_compact) : sizeof(ap_slot));
    shadow_set_release(&p->shadow, release_cb, p);
    shadow_init(&p->wide, sizeof(ap_slot));
    shadow_set_release(&p->wide, wide_forgotten, p);
    cellctx_init(&p->contexts);
    p->reads_order = config->read_from != NULL && !env->all_pairs;
    if (p->reads_order)
        cellctx_keep_firsts(&p->contexts);
    u64map_init(&p->read_bounds);
    return p;
}

void allpairs_destroy(rp_allpairs *p)
{
    if (p == NULL)
        return;
    shadow_for_each(&p->shadow, release_cb, p);
    shadow_fini(&p->shadow);
    shadow_fini(&p->wide);
    rp_free(p->words);
    cellsets_fini(&p->sets);
    pool_fini(&p->pool);
    cellctx_fini(&p->contexts);
    u64map_free(&p->read_bounds);
    for (uint32_t i = 0; i < p->n_snapshots; i++) {
        vc_free(&p->snapshots[i].order);
        vc_free(&p->snapshots[i].hb);
    }
    rp_free(p->snapshots);
    rp_free(p->events);
    rp_free(p->edges);
    rp_free(p->conc);
    rp_free(p->forgets);
    rp_free(p->extra);
    rp_free(p);
}

rp_tid_t allpairs_last_writer(rp_allpairs *p, uint64_t addr)
{
    uint64_t granule = addr >> RP_SHADOW_GRANULE_BITS;
    void *slot = shadow_find(&p->shadow, granule);
    if (slot == NULL)
        return RP_NO_WRITER;
    ap_view v;
    /* Only read: the view needs no closing. */
    ap_cell_run r = slot_cells(view_open(p, &v, slot, granule));
    uint8_t byte = (uint8_t)(1u << (addr & (RP_SHADOW_GRANULE_SIZE - 1)));
    rp_tid_t writer = RP_NO_WRITER;
    uint64_t latest = 0;
    for (uint32_t i = 0; i < r.n; i++) {
        const rp_cellctx *x = cellctx_get(&p->contexts, cell_context(r.cell[i]));
        uint64_t ref = cell_ref(&p->contexts, r.cell[i]);
        if (x->is_write && (cell_mask(r.cell[i]) & byte) && (writer == RP_NO_WRITER || ref > latest)) {
            writer = x->tid;
            latest = ref;
        }
    }
    return writer;
}

rp_tid_t allpairs_detector_last_writer(void *self, uint64_t addr)
{
    return allpairs_last_writer(*(rp_allpairs **)self, addr);
}
