/* det_hb.c — the happens-before detector ("hb").
 *
 * What it reports: pairs of conflicting accesses (same bytes, different
 * threads, at least one write) unordered by Lamport happens-before: program
 * order, release → every later acquire of the lock, fork/join, send → later
 * receive on a sync object (seed 002 §HB; seed 000 §2).
 *
 * Clocks (FastTrack/DJIT+ discipline, rp_vc.h): Th(t)[t] = 1 initially;
 * exporting a clock (release, release_shared, fork, sync_send) increments
 * the exporter's own entry afterwards; importing (acquire, join, recv) only
 * joins.  An access is stamped with its thread's epoch t#Th(t)[t] and does
 * not increment, so an earlier access with epoch t#k is ordered before the
 * current access of thread u iff k <= Th(u)[t].
 *
 * Shadow state, per 8-byte granule: the set of recent, mutually concurrent
 * access cells {tid, clock, byte mask, is_write, site, id}.  An access with
 * byte mask M races with every cell that overlaps M, belongs to another
 * thread, is concurrent, and is or meets a write.  It then removes the bytes
 * M from the cells ordered before it — all of them for a write, only reads
 * for a read (reads never evict writes: seed 000 Alg 3) — and adds itself.
 * Hence a racy access finds at least one earlier partner: if e || f and
 * e's byte b was evicted, the chain of evictions of b ends in a cell that is
 * still present at f, happens after e, and therefore is concurrent with f
 * and conflicts with it.  Different bytes of one granule never race.
 *
 * Layout: a slot (8 bytes) points to its cells (24 bytes each) in an array
 * from a pool of power-of-two size classes.  There is no fast path here:
 * in the tool, the engine drops the accesses that repeat what the thread
 * did since its last synchronisation before they arrive (rp_repeats.h;
 * 96 % of them on pigz), which is what a same-epoch check here would skip.
 *
 * All-pairs mode (env->all_pairs) applies seed 000's technique (§5–6, Alg 3
 * with errata E1/E2 of the digest) to HB: each eviction adds an edge
 * evicted ≺ evicting (an ordered cell is one with clock <= Th[tid], E1); the
 * races found online are kept as conc pairs (α, β) together with a copy of
 * V_β = Th(tid(β)); finish() walks edge predecessors from every α and
 * reports (g, β) iff g overlaps β, clock(g) > V_β[tid(g)] (E2) and they
 * conflict, recursing only through such concurrent g, one visited mark per
 * β.  Completeness is the chain argument above: every e || f sharing a byte
 * b with f reaches, through evictions of b, a cell h with (h, f) conc, and
 * every cell of that chain is concurrent with f (else e <HB f) and overlaps
 * f in b.  Edges are global rather than per granule: a predecessor found
 * through another granule is accepted only if it overlaps β itself, so no
 * pair is reported on bytes the two accesses do not share.  Bytes cleared
 * by RP_EV_FORGET between g and β do not count as shared.  Online reports
 * are suppressed in this mode; finish() emits the deduplicated set sorted
 * by (first.id, second.id).
 */
#include "rp_detector.h"
#include "rp_shadow.h"
#include "rp_shim.h"
#include "rp_sort.h"
#include "rp_u64map.h"
#include "rp_vc.h"

#define NO_INDEX UINT32_MAX
#define PENDING_MAX 8

/* One access as a granule remembers it, 24 bytes.  `bits` packs the
 * reference (the event id in location mode, the index into
 * hb_detector.events in all-pairs mode, where events[] keeps id and site),
 * the write bit and the byte mask. */
typedef struct hb_cell {
    uint64_t bits;         /* ref (bits 0-54) | is_write << 55 | mask << 56 */
    uint64_t site;         /* location mode only */
    rp_tid_t tid;
    uint32_t clock;
} hb_cell;

#define CELL_REF_BITS 55
#define CELL_REF_MAX (((uint64_t)1 << CELL_REF_BITS) - 1)
#define CELL_WRITE ((uint64_t)1 << CELL_REF_BITS)
#define CELL_MASK_SHIFT 56

static inline uint64_t cell_ref(const hb_cell *c)
{
    return c->bits & CELL_REF_MAX;
}

static inline uint8_t cell_mask(const hb_cell *c)
{
    return (uint8_t)(c->bits >> CELL_MASK_SHIFT);
}

static inline bool cell_is_write(const hb_cell *c)
{
    return (c->bits & CELL_WRITE) != 0;
}

static inline void cell_set_mask(hb_cell *c, uint8_t mask)
{
    c->bits = (c->bits & ~((uint64_t)0xFF << CELL_MASK_SHIFT))
              | (uint64_t)mask << CELL_MASK_SHIFT;
}

/* The cells of a granule (each with a non-zero mask): n of room for 2^cap_log. */
typedef struct hb_cells {
    uint32_t n;
    uint32_t cap_log;
    hb_cell cell[];
} hb_cells;

/* A granule: its cells, NULL if none.  A zero-filled slot is empty. */
typedef struct hb_slot {
    hb_cells *cells;
} hb_slot;

/* Cell arrays of 2^k cells, k < POOL_CLASSES, come from free lists refilled
 * from big blocks (no per-array header, no calls in the common case);
 * larger ones from rp_malloc. */
#define POOL_CLASSES 5
/* Forgets of at least this many bytes free emptied cell arrays. */
#define FORGET_FREES_BYTES 4096
#define POOL_BLOCK_BYTES ((size_t)256 << 10)

typedef struct hb_pool {
    void *free[POOL_CLASSES];
    uint8_t *bump;
    size_t bump_left;
    void **blocks;
    uint32_t n_blocks, cap_blocks;
} hb_pool;

typedef struct hb_lock {
    rp_vc released;        /* L(l): clock of the last exclusive release */
    rp_vc read_released;   /* R(l): join of all read-side releases */
} hb_lock;

/* All-pairs mode: one per access, in stream order. */
typedef struct hb_event {
    uint64_t id;
    uint64_t site;
    uint64_t addr;
    rp_tid_t tid;
    uint32_t size;
    uint32_t clock;
    uint32_t first_pred;   /* index into edges, or NO_INDEX */
    uint32_t snapshot;     /* index into snapshots (V_β), or NO_INDEX */
    uint32_t visited_by;   /* 1 + index of the β whose walk reached it */
    uint8_t is_write;
} hb_event;

typedef struct hb_edge {
    uint32_t pred;
    uint32_t next;
} hb_edge;

typedef struct hb_conc_pair {
    uint32_t first;
    uint32_t second;
} hb_conc_pair;

typedef struct hb_forget {
    uint64_t id;
    uint64_t addr;
    uint64_t size;
} hb_forget;

/* A race of the current access, merged over the granules it spans. */
typedef struct hb_pending_race {
    uint64_t partner_id;
    uint64_t partner_site;
    rp_tid_t partner_tid;
    bool partner_is_write;
    uint64_t partner_lo, partner_hi;   /* partner's bytes seen, inclusive */
    uint64_t both_lo, both_hi;         /* shared bytes seen, inclusive */
} hb_pending_race;

typedef struct hb_detector {
    rp_detector_env env;
    hb_pool pool;
    rp_shadow shadow;
    rp_vc *threads;
    uint32_t n_threads;
    rp_u64map locks;
    rp_u64map sync_objects;

    hb_pending_race pending[PENDING_MAX];
    uint32_t n_pending;

    hb_event *events;
    uint32_t n_events, cap_events;
    hb_edge *edges;
    uint32_t n_edges, cap_edges;
    hb_conc_pair *conc;
    uint32_t n_conc, cap_conc;
    rp_vc *snapshots;
    uint32_t n_snapshots, cap_snapshots;
    hb_forget *forgets;
    uint32_t n_forgets, cap_forgets;
} hb_detector;

/* Grows a (pointer, count, capacity) array so that one more element fits. */
static void *grow_for_one(void *array, uint32_t count, uint32_t *cap, size_t elem_size)
{
    if (count < *cap)
        return array;
    rp_assert(*cap < UINT32_MAX / 2);
    *cap = *cap == 0 ? 16 : *cap * 2;
    return rp_realloc("rp.hb.array", array, (size_t)*cap * elem_size);
}

/* ---- threads, locks, sync objects ---------------------------------------- */

static void threads_grow(hb_detector *h, rp_tid_t tid)
{
    uint32_t n = tid + 1;
    h->threads = rp_realloc("rp.hb.threads", h->threads, n * sizeof(rp_vc));
    for (uint32_t t = h->n_threads; t < n; t++) {
        vc_init(&h->threads[t]);
        vc_set(&h->threads[t], t, 1);
    }
    h->n_threads = n;
}

/* Makes threads 0 .. tid exist; earlier thread_clock pointers may move. */
static inline void ensure_threads(hb_detector *h, rp_tid_t tid)
{
    if (tid >= h->n_threads)
        threads_grow(h, tid);
}

static inline rp_vc *thread_clock(hb_detector *h, rp_tid_t tid)
{
    ensure_threads(h, tid);
    return &h->threads[tid];
}

static hb_lock *lock_of(hb_detector *h, uint64_t obj)
{
    hb_lock *lock = u64map_get(&h->locks, obj);
    if (lock == NULL) {
        lock = rp_malloc("rp.hb.lock", sizeof *lock);
        vc_init(&lock->released);
        vc_init(&lock->read_released);
        u64map_put(&h->locks, obj, lock);
    }
    return lock;
}

static rp_vc *sync_clock_of(hb_detector *h, uint64_t obj)
{
    rp_vc *vc = u64map_get(&h->sync_objects, obj);
    if (vc == NULL) {
        vc = rp_malloc("rp.hb.sync", sizeof *vc);
        vc_init(vc);
        u64map_put(&h->sync_objects, obj, vc);
    }
    return vc;
}

static void hb_acquire(void *self, const rp_event *e)
{
    hb_detector *h = self;
    hb_lock *lock = lock_of(h, e->obj);
    rp_vc *th = thread_clock(h, e->tid);
    vc_join(th, &lock->released);
    vc_join(th, &lock->read_released);
}

static void hb_release(void *self, const rp_event *e)
{
    hb_detector *h = self;
    rp_vc *th = thread_clock(h, e->tid);
    vc_copy(&lock_of(h, e->obj)->released, th);
    vc_inc(th, e->tid);
}

static void hb_acquire_shared(void *self, const rp_event *e)
{
    hb_detector *h = self;
    vc_join(thread_clock(h, e->tid), &lock_of(h, e->obj)->released);
}

static void hb_release_shared(void *self, const rp_event *e)
{
    hb_detector *h = self;
    rp_vc *th = thread_clock(h, e->tid);
    vc_join(&lock_of(h, e->obj)->read_released, th);
    vc_inc(th, e->tid);
}

static void hb_fork(void *self, const rp_event *e)
{
    hb_detector *h = self;
    rp_tid_t child = (rp_tid_t)e->obj;
    ensure_threads(h, child > e->tid ? child : e->tid);
    rp_vc *child_vc = &h->threads[child];
    rp_vc *parent_vc = &h->threads[e->tid];
    vc_join(child_vc, parent_vc);
    if (vc_get(child_vc, child) == 0)
        vc_set(child_vc, child, 1);
    vc_inc(parent_vc, e->tid);
}

static void hb_join(void *self, const rp_event *e)
{
    hb_detector *h = self;
    rp_tid_t joined = (rp_tid_t)e->obj;
    ensure_threads(h, joined > e->tid ? joined : e->tid);
    vc_join(&h->threads[e->tid], &h->threads[joined]);
}

static void hb_sync_send(void *self, const rp_event *e)
{
    hb_detector *h = self;
    rp_vc *th = thread_clock(h, e->tid);
    vc_join(sync_clock_of(h, e->obj), th);
    vc_inc(th, e->tid);
}

static void hb_sync_recv(void *self, const rp_event *e)
{
    hb_detector *h = self;
    vc_join(thread_clock(h, e->tid), sync_clock_of(h, e->obj));
}

/* ---- slots and cells ------------------------------------------------------ */

static size_t cells_bytes(uint32_t cap_log)
{
    return sizeof(hb_cells) + (sizeof(hb_cell) << cap_log);
}

static hb_cells *pool_alloc(hb_pool *p, uint32_t cap_log)
{
    hb_cells *cells;
    if (cap_log >= POOL_CLASSES) {
        cells = rp_malloc("rp.hb.cells", cells_bytes(cap_log));
    } else if (p->free[cap_log] != NULL) {
        cells = p->free[cap_log];
        p->free[cap_log] = *(void **)cells;
    } else {
        size_t bytes = cells_bytes(cap_log);
        if (p->bump_left < bytes) {
            p->blocks = grow_for_one(p->blocks, p->n_blocks, &p->cap_blocks, sizeof(void *));
            p->bump = rp_malloc("rp.hb.cells", POOL_BLOCK_BYTES);
            p->blocks[p->n_blocks++] = p->bump;
            p->bump_left = POOL_BLOCK_BYTES;
        }
        cells = (hb_cells *)p->bump;
        p->bump += bytes;
        p->bump_left -= bytes;
    }
    cells->cap_log = cap_log;
    return cells;
}

static void pool_free(hb_pool *p, hb_cells *cells)
{
    uint32_t cap_log = cells->cap_log;
    if (cap_log >= POOL_CLASSES) {
        rp_free(cells);
        return;
    }
    *(void **)cells = p->free[cap_log];
    p->free[cap_log] = cells;
}

static void pool_fini(hb_pool *p)
{
    for (uint32_t i = 0; i < p->n_blocks; i++)
        rp_free(p->blocks[i]);
    rp_free(p->blocks);
}

/* The cells of a slot, with room for one more. */
static hb_cells *slot_reserve_one(hb_pool *p, hb_slot *s)
{
    hb_cells *cells = s->cells;
    if (cells == NULL) {
        cells = s->cells = pool_alloc(p, 0);
        cells->n = 0;
    } else if (cells->n == (uint32_t)1 << cells->cap_log) {
        rp_assert(cells->cap_log < 27);
        hb_cells *bigger = pool_alloc(p, cells->cap_log + 1u);
        bigger->n = cells->n;
        rp_memcpy(bigger->cell, cells->cell, sizeof(hb_cell) * cells->n);
        pool_free(p, cells);
        cells = s->cells = bigger;
    }
    return cells;
}

/* Removes the bytes `mask` from every cell (RP_EV_FORGET). */
static void slot_forget(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    hb_slot *s = slot;
    hb_cells *cells = s->cells;
    (void)ctx;
    (void)granule;
    if (cells == NULL)
        return;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < cells->n; i++) {
        hb_cell c = cells->cell[i];
        cell_set_mask(&c, cell_mask(&c) & (uint8_t)~mask);
        if (cell_mask(&c) != 0)
            cells->cell[kept++] = c;
    }
    cells->n = kept;
}

/* The same for a large forget (a freed heap block, an unmapping): an
 * emptied array goes back to the pool, or memory the program never uses
 * again would keep it.  A small forget (a stack frame) keeps it with its
 * granule, which is about to be used again. */
static void slot_forget_and_free(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    hb_detector *h = ctx;
    hb_slot *s = slot;
    slot_forget(ctx, granule, slot, mask);
    if (s->cells != NULL && s->cells->n == 0) {
        pool_free(&h->pool, s->cells);
        s->cells = NULL;
    }
}

/* Releases a slot's cells (destroy, and chunks a forget covers whole). */
static void slot_release(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    hb_detector *h = ctx;
    hb_slot *s = slot;
    (void)granule;
    (void)mask;
    if (s->cells != NULL)
        pool_free(&h->pool, s->cells);
    s->cells = NULL;
}

/* ---- races ------------------------------------------------------------------ */

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

static void report_race(hb_detector *h, const rp_access *first, const rp_access *second,
                        uint64_t addr, uint64_t size)
{
    rp_race race;
    race.detector = "hb";
    race.first = *first;
    race.second = *second;
    race.addr = addr;
    race.size = size > UINT32_MAX ? UINT32_MAX : (uint32_t)size;
    race.observed = true;
    race.confirmed = false;
    race.witness = NULL;
    h->env.report(h->env.report_ctx, &race);
}

static void flush_pending(hb_detector *h, const rp_event *e)
{
    rp_access second = { e->id, e->obj, e->site, e->tid, e->size, e->kind == RP_EV_WRITE };
    for (uint32_t i = 0; i < h->n_pending; i++) {
        const hb_pending_race *p = &h->pending[i];
        rp_access first = { p->partner_id, p->partner_lo, p->partner_site, p->partner_tid,
                            (uint32_t)(p->partner_hi - p->partner_lo + 1),
                            p->partner_is_write };
        report_race(h, &first, &second, p->both_lo, p->both_hi - p->both_lo + 1);
    }
    h->n_pending = 0;
}

/* Location mode: remember the race until the access is complete, merging
 * the granules of one partner into one report. */
static void note_race(hb_detector *h, const rp_event *e, uint64_t granule,
                      const hb_cell *c, uint8_t both)
{
    uint64_t base = granule << RP_SHADOW_GRANULE_BITS;
    hb_pending_race *p = NULL;
    for (uint32_t i = 0; i < h->n_pending && p == NULL; i++)
        if (h->pending[i].partner_id == cell_ref(c) && h->pending[i].partner_tid == c->tid)
            p = &h->pending[i];
    if (p == NULL) {
        if (h->n_pending == PENDING_MAX)
            flush_pending(h, e);
        p = &h->pending[h->n_pending++];
        p->partner_id = cell_ref(c);
        p->partner_site = c->site;
        p->partner_tid = c->tid;
        p->partner_is_write = cell_is_write(c);
        p->partner_lo = p->both_lo = UINT64_MAX;
        p->partner_hi = p->both_hi = 0;
    }
    uint64_t lo = base + lowest_byte(cell_mask(c)), hi = base + highest_byte(cell_mask(c));
    p->partner_lo = lo < p->partner_lo ? lo : p->partner_lo;
    p->partner_hi = hi > p->partner_hi ? hi : p->partner_hi;
    lo = base + lowest_byte(both);
    hi = base + highest_byte(both);
    p->both_lo = lo < p->both_lo ? lo : p->both_lo;
    p->both_hi = hi > p->both_hi ? hi : p->both_hi;
}

/* ---- all-pairs bookkeeping ------------------------------------------------ */

static uint32_t record_event(hb_detector *h, const rp_event *e, uint32_t clock)
{
    h->events = grow_for_one(h->events, h->n_events, &h->cap_events, sizeof(hb_event));
    hb_event *ev = &h->events[h->n_events];
    ev->id = e->id;
    ev->site = e->site;
    ev->addr = e->obj;
    ev->tid = e->tid;
    ev->size = e->size;
    ev->clock = clock;
    ev->first_pred = NO_INDEX;
    ev->snapshot = NO_INDEX;
    ev->visited_by = 0;
    ev->is_write = e->kind == RP_EV_WRITE;
    return h->n_events++;
}

static void add_edge(hb_detector *h, uint32_t pred, uint32_t succ)
{
    hb_event *ev = &h->events[succ];
    if (ev->first_pred != NO_INDEX && h->edges[ev->first_pred].pred == pred)
        return;
    h->edges = grow_for_one(h->edges, h->n_edges, &h->cap_edges, sizeof(hb_edge));
    h->edges[h->n_edges].pred = pred;
    h->edges[h->n_edges].next = ev->first_pred;
    ev->first_pred = h->n_edges++;
}

static void add_conc_pair(hb_detector *h, uint32_t first, uint32_t second, const rp_vc *th)
{
    hb_event *ev = &h->events[second];
    if (ev->snapshot == NO_INDEX) {
        h->snapshots = grow_for_one(h->snapshots, h->n_snapshots, &h->cap_snapshots,
                                    sizeof(rp_vc));
        vc_init(&h->snapshots[h->n_snapshots]);
        vc_copy(&h->snapshots[h->n_snapshots], th);
        ev->snapshot = h->n_snapshots++;
    }
    h->conc = grow_for_one(h->conc, h->n_conc, &h->cap_conc, sizeof(hb_conc_pair));
    h->conc[h->n_conc].first = first;
    h->conc[h->n_conc].second = second;
    h->n_conc++;
}

/* ---- accesses --------------------------------------------------------------- */

typedef struct hb_access {
    const rp_event *e;
    const rp_vc *th;
    uint32_t clock;
    uint32_t event;        /* all-pairs index, else 0 */
    bool is_write;
} hb_access;

/* One granule of an access: races with the concurrent conflicting cells,
 * eviction of the bytes `mask` from the ordered cells (all of them for a
 * write, reads only for a read), the access's own cell appended; the kept
 * cells are compacted in order. */
static void access_granule(hb_detector *h, const hb_access *a, uint64_t granule, uint8_t mask)
{
    hb_slot *s = shadow_slot(&h->shadow, granule);
    rp_tid_t tid = a->e->tid;
    uint32_t kept = 0;
    hb_cells *cells = s->cells;
    uint32_t n = cells == NULL ? 0 : cells->n;
    for (uint32_t i = 0; i < n; i++) {
        hb_cell *c = &cells->cell[i];
        uint8_t cmask = cell_mask(c);
        uint8_t both = cmask & mask;
        if (both == 0) {
            /* untouched */
        } else if (c->clock > vc_get(a->th, c->tid)) {
            if (c->tid != tid && (a->is_write || cell_is_write(c))) {
                if (h->env.all_pairs)
                    add_conc_pair(h, (uint32_t)cell_ref(c), a->event, a->th);
                else
                    note_race(h, a->e, granule, c, both);
            }
        } else if (a->is_write || !cell_is_write(c)) {
            if (h->env.all_pairs)
                add_edge(h, (uint32_t)cell_ref(c), a->event);
            cmask &= (uint8_t)~mask;
            if (cmask == 0)
                continue;
            cell_set_mask(c, cmask);
        }
        if (kept != i)
            cells->cell[kept] = *c;
        kept++;
    }
    if (cells != NULL)
        cells->n = kept;
    cells = slot_reserve_one(&h->pool, s);
    hb_cell *cell = &cells->cell[cells->n++];
    uint64_t ref = h->env.all_pairs ? a->event : a->e->id;
    rp_assert(ref <= CELL_REF_MAX);
    cell->bits = ref | (a->is_write ? CELL_WRITE : 0) | (uint64_t)mask << CELL_MASK_SHIFT;
    cell->site = a->e->site;
    cell->tid = tid;
    cell->clock = a->clock;
}

static void access_granules(hb_detector *h, const hb_access *a)
{
    uint64_t addr = a->e->obj, size = a->e->size;
    uint64_t granule = addr >> RP_SHADOW_GRANULE_BITS;
    uint64_t last = (addr + (size - 1)) >> RP_SHADOW_GRANULE_BITS;
    if (addr + (size - 1) < addr)
        last = UINT64_MAX >> RP_SHADOW_GRANULE_BITS;
    for (;; granule++) {
        access_granule(h, a, granule, shadow_granule_mask(granule, addr, size));
        if (granule == last)
            return;
    }
}

/* An access: races, evictions and the new cell in every granule it spans,
 * all-pairs bookkeeping. */
static void access_event(hb_detector *h, const rp_event *e, bool is_write)
{
    rp_vc *th = thread_clock(h, e->tid);
    hb_access a = { e, th, th->clock[e->tid], 0, is_write };
    if (e->size == 0)
        return;
    if (h->env.all_pairs)
        a.event = record_event(h, e, a.clock);
    access_granules(h, &a);
    if (h->n_pending != 0)
        flush_pending(h, e);
}

static void hb_read(void *self, const rp_event *e)
{
    access_event(self, e, false);
}

static void hb_write(void *self, const rp_event *e)
{
    access_event(self, e, true);
}

static void hb_forget_event(void *self, const rp_event *e)
{
    hb_detector *h = self;
    shadow_clear_range(&h->shadow, e->obj, e->size,
                       e->size < FORGET_FREES_BYTES ? slot_forget : slot_forget_and_free, h);
    if (h->env.all_pairs && e->size != 0) {
        h->forgets = grow_for_one(h->forgets, h->n_forgets, &h->cap_forgets, sizeof(hb_forget));
        h->forgets[h->n_forgets].id = e->id;
        h->forgets[h->n_forgets].addr = e->obj;
        h->forgets[h->n_forgets].size = e->size;
        h->n_forgets++;
    }
}

/* ---- all-pairs post-processing (finish) ----------------------------------- */

static bool byte_forgotten_between(const hb_detector *h, uint64_t byte, uint64_t after_id,
                                   uint64_t before_id)
{
    for (uint32_t i = 0; i < h->n_forgets; i++) {
        const hb_forget *f = &h->forgets[i];
        if (f->id > after_id && f->id < before_id && byte - f->addr < f->size)
            return true;
    }
    return false;
}

/* First byte both events touch that no forget in between cleared; false if none. */
static bool shared_byte(const hb_detector *h, const hb_event *a, const hb_event *b,
                        uint64_t *lo, uint64_t *hi)
{
    uint64_t a_end = a->addr + a->size, b_end = b->addr + b->size;
    *lo = a->addr > b->addr ? a->addr : b->addr;
    *hi = a_end < b_end ? a_end : b_end;
    if (*lo >= *hi)
        return false;
    if (h->n_forgets == 0)
        return true;
    for (uint64_t byte = *lo; byte < *hi; byte++)
        if (!byte_forgotten_between(h, byte, a->id, b->id))
            return true;
    return false;
}

typedef struct pair_walk {
    uint32_t *stack;
    uint32_t n_stack, cap_stack;
    uint64_t *pairs;       /* first << 32 | second, event indices */
    uint32_t n_pairs, cap_pairs;
} pair_walk;

static void walk_push(pair_walk *w, uint32_t ev)
{
    w->stack = grow_for_one(w->stack, w->n_stack, &w->cap_stack, sizeof(uint32_t));
    w->stack[w->n_stack++] = ev;
}

static void walk_add_pair(pair_walk *w, uint32_t first, uint32_t second)
{
    w->pairs = grow_for_one(w->pairs, w->n_pairs, &w->cap_pairs, sizeof(uint64_t));
    w->pairs[w->n_pairs++] = (uint64_t)first << 32 | second;
}

/* Walks the predecessors of g (concurrent with beta) for candidates (p, beta). */
static void walk_predecessors(hb_detector *h, pair_walk *w, uint32_t g, uint32_t beta)
{
    const hb_event *b = &h->events[beta];
    const rp_vc *v = &h->snapshots[b->snapshot];
    for (uint32_t ei = h->events[g].first_pred; ei != NO_INDEX; ei = h->edges[ei].next) {
        uint32_t p = h->edges[ei].pred;
        hb_event *pe = &h->events[p];
        uint64_t lo, hi;
        if (pe->visited_by == beta + 1)
            continue;
        pe->visited_by = beta + 1;
        if (pe->clock <= vc_get(v, pe->tid) || !shared_byte(h, pe, b, &lo, &hi))
            continue;
        if (pe->tid != b->tid && (pe->is_write || b->is_write))
            walk_add_pair(w, p, beta);
        walk_push(w, p);
    }
}

static void walk_from_conc_pairs(hb_detector *h, pair_walk *w, uint32_t from, uint32_t to)
{
    uint32_t beta = h->conc[from].second;
    for (uint32_t i = from; i < to; i++) {
        uint32_t alpha = h->conc[i].first;
        if (h->events[alpha].visited_by == beta + 1)
            continue;
        h->events[alpha].visited_by = beta + 1;
        walk_add_pair(w, alpha, beta);
        walk_push(w, alpha);
    }
    while (w->n_stack != 0)
        walk_predecessors(h, w, w->stack[--w->n_stack], beta);
}

static rp_access access_of_event(const hb_event *ev)
{
    rp_access a = { ev->id, ev->addr, ev->site, ev->tid, ev->size, ev->is_write };
    return a;
}

static void report_all_pairs(hb_detector *h)
{
    pair_walk w = { NULL, 0, 0, NULL, 0, 0 };
    for (uint32_t from = 0; from < h->n_conc;) {
        uint32_t to = from + 1;
        while (to < h->n_conc && h->conc[to].second == h->conc[from].second)
            to++;
        walk_from_conc_pairs(h, &w, from, to);
        from = to;
    }
    uint32_t n = (uint32_t)sort_unique_u64(w.pairs, w.n_pairs);
    for (uint32_t i = 0; i < n; i++) {
        const hb_event *first = &h->events[w.pairs[i] >> 32];
        const hb_event *second = &h->events[(uint32_t)w.pairs[i]];
        rp_access a = access_of_event(first), b = access_of_event(second);
        uint64_t lo, hi;
        shared_byte(h, first, second, &lo, &hi);
        report_race(h, &a, &b, lo, hi - lo);
    }
    rp_free(w.stack);
    rp_free(w.pairs);
}

static void hb_finish(void *self)
{
    hb_detector *h = self;
    if (h->env.all_pairs)
        report_all_pairs(h);
}

/* ---- life cycle --------------------------------------------------------------- */

static void *hb_create(const rp_detector_env *env)
{
    hb_detector *h = rp_calloc("rp.hb", 1, sizeof *h);
    h->env = *env;
    shadow_init(&h->shadow, sizeof(hb_slot));
    shadow_set_release(&h->shadow, slot_release, h);
    u64map_init(&h->locks);
    u64map_init(&h->sync_objects);
    return h;
}

static void free_lock(void *ctx, uint64_t key, void *value)
{
    hb_lock *lock = value;
    (void)ctx;
    (void)key;
    vc_free(&lock->released);
    vc_free(&lock->read_released);
    rp_free(lock);
}

static void free_sync_clock(void *ctx, uint64_t key, void *value)
{
    (void)ctx;
    (void)key;
    vc_free(value);
    rp_free(value);
}

static void hb_destroy(void *self)
{
    hb_detector *h = self;
    if (h == NULL)
        return;
    shadow_for_each(&h->shadow, slot_release, h);
    shadow_fini(&h->shadow);
    pool_fini(&h->pool);
    for (uint32_t t = 0; t < h->n_threads; t++)
        vc_free(&h->threads[t]);
    rp_free(h->threads);
    u64map_for_each(&h->locks, free_lock, NULL);
    u64map_free(&h->locks);
    u64map_for_each(&h->sync_objects, free_sync_clock, NULL);
    u64map_free(&h->sync_objects);
    for (uint32_t i = 0; i < h->n_snapshots; i++)
        vc_free(&h->snapshots[i]);
    rp_free(h->snapshots);
    rp_free(h->events);
    rp_free(h->edges);
    rp_free(h->conc);
    rp_free(h->forgets);
    rp_free(h);
}

const rp_detector_ops rp_det_hb = {
    .name = "hb",
    .summary = "happens-before (FastTrack clocks): conflicting accesses unordered by HB",
    .needs_branches = false,
    .repeat_safe = true,
    .create = hb_create,
    .destroy = hb_destroy,
    .read = hb_read,
    .write = hb_write,
    .acquire = hb_acquire,
    .release = hb_release,
    .acquire_shared = hb_acquire_shared,
    .release_shared = hb_release_shared,
    .fork = hb_fork,
    .join = hb_join,
    .branch = NULL,
    .sync_send = hb_sync_send,
    .sync_recv = hb_sync_recv,
    .forget = hb_forget_event,
    .finish = hb_finish,
};
