/* rp_repeats.c — the engine's filter of repeated accesses (rp_repeats.h). */
#include "rp_repeats.h"

#include "rp_array.h"
#include "rp_shim.h"

rp_repeats *repeats_create(void)
{
    rp_repeats *r = rp_calloc("rp.repeats", 1, sizeof *r);
    shadow_init(&r->shadow, sizeof(rp_repeat_slot));
    shadow_set_release(&r->shadow, NULL, NULL);
    u64map_init(&r->sends);
    u64map_init(&r->seen_before_wrap);
    r->current = RP_REPEATS_NO_THREAD;
    return r;
}

void repeats_destroy(rp_repeats *r)
{
    if (r == NULL)
        return;
    shadow_fini(&r->shadow);
    rp_free(r->stamp);
    rp_free(r->seen);
    u64map_free(&r->sends);
    u64map_free(&r->seen_before_wrap);
    rp_free(r->rewritten);
    rp_free(r);
}

static void clear_slot(void *ctx, uint64_t granule, void *slot, uint8_t mask)
{
    rp_repeat_slot *s = slot;
    (void)ctx;
    (void)granule;
    s->any &= (uint8_t)~mask;
    s->written &= (uint8_t)~mask;
}

static void keep_seen_chunk(void *ctx, uint64_t chunk, void *slots)
{
    (void)slots;
    u64map_put(ctx, chunk, (void *)1);
}

/* A fresh stamp (never 0).  When the counter wraps, every stamp in the
 * shadow could alias a new one: the shadow goes (its chunks stay listed
 * as seen), and every thread takes a fresh stamp at its next access. */
static uint16_t next_stamp(rp_repeats *r)
{
    if (r->last_stamp == RP_REPEATS_REWRITTEN - 1) {
        u64map_for_each(&r->shadow.chunks, keep_seen_chunk, &r->seen_before_wrap);
        shadow_fini(&r->shadow);
        shadow_init(&r->shadow, sizeof(rp_repeat_slot));
        shadow_set_release(&r->shadow, NULL, NULL);
        rp_memset(r->stamp, 0, r->n_threads * sizeof *r->stamp);
        r->current_stamp = 0;
        r->last_stamp = 0;
    }
    return ++r->last_stamp;
}

/* Every change of a thread's stamp goes through here (see current_stamp). */
static void set_stamp(rp_repeats *r, rp_tid_t tid, uint16_t stamp)
{
    r->stamp[tid] = stamp;
    if (tid == r->current)
        r->current_stamp = stamp;
}

void repeats_set_current(rp_repeats *r, rp_tid_t tid)
{
    r->current = tid;
    r->current_stamp = tid < r->n_threads ? r->stamp[tid] : 0;
}

/* Makes room for thread tid's stamp and receives. */
static void add_thread(rp_repeats *r, rp_tid_t tid)
{
    uint32_t n = r->n_threads;
    r->stamp = rp_array_extend("rp.repeats.stamps", r->stamp, tid, &n, &r->cap_stamps,
                               sizeof *r->stamp);
    r->seen = rp_array_extend("rp.repeats.seen", r->seen, tid, &r->n_threads, &r->cap_seen,
                              RP_REPEATS_RECV_WAYS * sizeof *r->seen);
}

/* Thread tid's current stamp, taken when its span first records an
 * access (0 in the table: none yet). */
static uint16_t thread_stamp(rp_repeats *r, rp_tid_t tid)
{
    if (tid >= r->n_threads)
        add_thread(r, tid);
    if (r->stamp[tid] == 0)
        set_stamp(r, tid, next_stamp(r));
    return r->stamp[tid];
}

/* No slot holds stamp 0 with any bytes, so a thread without a stamp has
 * no repeats until its next access is recorded. */
static void new_span(rp_repeats *r, rp_tid_t tid)
{
    if (tid < r->n_threads)
        set_stamp(r, tid, 0);
}

/* Records the bytes of access e under its thread's stamp, granule by
 * granule: a granule whose stamp is another replaces it. */
static void note_access(rp_repeats *r, const rp_event *e)
{
    uint64_t addr = e->obj, size = e->size;
    if (size == 0)
        return;
    uint16_t stamp = thread_stamp(r, e->tid);
    uint64_t granule = addr >> RP_SHADOW_GRANULE_BITS;
    uint64_t last = (addr + (size - 1)) >> RP_SHADOW_GRANULE_BITS;
    if (addr + (size - 1) < addr)
        last = UINT64_MAX >> RP_SHADOW_GRANULE_BITS;
    for (;; granule++) {
        rp_repeat_slot *s = shadow_slot(&r->shadow, granule);
        uint8_t mask = shadow_granule_mask(granule, addr, size);
        if ((s->stamp & ~RP_REPEATS_REWRITTEN) != stamp) {
            s->stamp = stamp;
            s->any = s->written = 0;
        }
        s->any |= mask;
        if (e->kind == RP_EV_WRITE)
            s->written |= mask;
        if (granule == last)
            return;
    }
}

bool repeats_granules_repeat(rp_repeats *r, rp_tid_t tid, uint64_t addr, uint32_t size,
                             bool is_write)
{
    uint64_t end = addr + size;
    if (size == 0 || end < addr || (addr & (RP_SHADOW_GRANULE_SIZE - 1)) + size
                                        <= RP_SHADOW_GRANULE_SIZE)
        return false;
    for (uint64_t a = addr; a < end;) {
        uint64_t next = (a | (RP_SHADOW_GRANULE_SIZE - 1)) + 1;
        uint32_t piece = (uint32_t)((next < end ? next : end) - a);
        if (repeats_slot_of(r, tid, a, piece, is_write) == NULL)
            return false;
        a += piece;
    }
    r->dropped++;
    return true;
}

bool repeats_list_rewrite(rp_repeats *r, rp_tid_t tid, rp_repeat_slot *s, uint64_t addr)
{
    rp_assert(r->n_rewritten == 0 || r->rewriter == tid);
    s->stamp |= RP_REPEATS_REWRITTEN;
    r->rewritten = rp_array_reserve_from("rp.repeats.rewritten", r->rewritten, r->n_rewritten,
                                         &r->cap_rewritten, sizeof *r->rewritten, 256);
    r->rewriter = tid;
    r->rewritten[r->n_rewritten++] = addr >> RP_SHADOW_GRANULE_BITS;
    return r->n_rewritten >= RP_REPEATS_MAX_REWRITTEN;
}

/* One record per run of set bits in `bytes`. */
static void flush_granule(rp_repeats *r, uint64_t granule, uint8_t bytes, rp_rewrite_fn fn,
                          void *ctx)
{
    uint32_t b = 0;
    while (b < RP_SHADOW_GRANULE_SIZE) {
        if ((bytes >> b & 1) == 0) {
            b++;
            continue;
        }
        uint32_t first = b;
        while (b < RP_SHADOW_GRANULE_SIZE && (bytes >> b & 1) != 0)
            b++;
        fn(ctx, r->rewriter, (granule << RP_SHADOW_GRANULE_BITS) + first, b - first);
    }
}

/* Listed granules whose slots a flush finds and fetches together. */
#define FLUSH_BATCH 16u

void repeats_flush_rewrites(rp_repeats *r, rp_rewrite_fn fn, void *ctx)
{
    uint16_t marked = (uint16_t)(r->stamp[r->rewriter] | RP_REPEATS_REWRITTEN);
    rp_repeat_slot *slot[FLUSH_BATCH];
    for (uint32_t first = 0; first < r->n_rewritten; first += FLUSH_BATCH) {
        uint32_t n = r->n_rewritten - first < FLUSH_BATCH ? r->n_rewritten - first : FLUSH_BATCH;
        /* The slots lie in the order the program wrote them, often far
         * apart: fetched one after another, their misses were most of a
         * flush (pbzip2). */
        for (uint32_t i = 0; i < n; i++) {
            slot[i] = shadow_find(&r->shadow, r->rewritten[first + i]);
            if (slot[i] != NULL)
                __builtin_prefetch(slot[i], 1);
        }
        for (uint32_t i = 0; i < n; i++) {
            rp_repeat_slot *s = slot[i];
            /* Cleared since (a wrap of the stamps empties the filter): the
             * bytes are no repeats any more, nothing stands for them. */
            if (s == NULL || s->stamp != marked)
                continue;
            s->stamp &= (uint16_t)~RP_REPEATS_REWRITTEN;
            flush_granule(r, r->rewritten[first + i], s->written, fn, ctx);
        }
    }
    r->n_rewritten = 0;
}

void repeats_forget(rp_repeats *r, uint64_t addr, uint64_t size)
{
    shadow_clear_range(&r->shadow, addr, size, clear_slot, NULL);
}

/* Fresh memory: the chunks it covers whole are no longer seen. */
static void forget_seen_chunks(rp_repeats *r, uint64_t addr, uint64_t size)
{
    uint64_t first = (addr + RP_SHADOW_CHUNK_BYTES - 1) / RP_SHADOW_CHUNK_BYTES;
    uint64_t end = addr + size < addr ? UINT64_MAX / RP_SHADOW_CHUNK_BYTES
                                      : (addr + size) / RP_SHADOW_CHUNK_BYTES;
    if (end > first)
        u64map_remove_range(&r->seen_before_wrap, first, end - first, NULL, NULL);
}

/* The runs of seen bytes, as repeats_seen_parts finds them in order. */
typedef struct seen_runs {
    rp_range_fn fn;
    void *ctx;
    uint64_t start;
    bool in_run;
} seen_runs;

/* The bytes from lo on are seen or not; a run that ends goes to fn. */
static void runs_mark(seen_runs *runs, uint64_t lo, bool seen)
{
    if (seen && !runs->in_run)
        runs->start = lo;
    else if (!seen && runs->in_run)
        runs->fn(runs->ctx, runs->start, lo - runs->start);
    runs->in_run = seen;
}

/* Bytes lo..last of one chunk whose slots the filter has: a granule is
 * seen where some of its bytes in the range were passed on since they
 * were last forgotten (a forget clears them from `any`). */
static void mark_granules(seen_runs *runs, const rp_repeat_slot *slots, uint64_t lo,
                          uint64_t last)
{
    for (uint64_t g = lo >> RP_SHADOW_GRANULE_BITS;; g++) {
        uint64_t from = g << RP_SHADOW_GRANULE_BITS > lo ? g << RP_SHADOW_GRANULE_BITS : lo;
        uint8_t mask = shadow_granule_mask(g, lo, last - lo + 1);
        runs_mark(runs, from, (slots[g & (RP_SHADOW_CHUNK_GRANULES - 1)].any & mask) != 0);
        if (g == last >> RP_SHADOW_GRANULE_BITS)
            return;
    }
}

void repeats_seen_parts(const rp_repeats *r, uint64_t addr, uint64_t size, rp_range_fn fn,
                        void *ctx)
{
    if (size == 0)
        return;
    uint64_t last = addr + (size - 1) < addr ? UINT64_MAX : addr + (size - 1);
    seen_runs runs = { fn, ctx, 0, false };
    for (uint64_t a = addr;;) {
        uint64_t chunk = a / RP_SHADOW_CHUNK_BYTES;
        uint64_t chunk_last = chunk * RP_SHADOW_CHUNK_BYTES + (RP_SHADOW_CHUNK_BYTES - 1);
        if (chunk_last > last)
            chunk_last = last;
        const rp_repeat_slot *slots = u64map_get(&r->shadow.chunks, chunk);
        if (u64map_get(&r->seen_before_wrap, chunk) != NULL)
            runs_mark(&runs, a, true);
        else if (slots == NULL)
            runs_mark(&runs, a, false);
        else
            mark_granules(&runs, slots, a, chunk_last);
        if (chunk_last == last)
            break;
        a = chunk_last + 1;
    }
    if (runs.in_run)
        fn(ctx, runs.start, last - runs.start + 1);
}

/* Object obj's sends + 1. */
static uint64_t sends_of(const rp_repeats *r, uint64_t obj)
{
    void *v = u64map_get(&r->sends, obj);
    return v == NULL ? 1 : (uint64_t)(uintptr_t)v;
}

static rp_recv_seen *seen_slot(rp_repeats *r, rp_tid_t tid, uint64_t obj)
{
    uint64_t way = (obj >> 3 ^ obj >> 11) & (RP_REPEATS_RECV_WAYS - 1);
    return &r->seen[(size_t)tid * RP_REPEATS_RECV_WAYS + way];
}

bool repeats_recv_is_repeat(rp_repeats *r, const rp_event *e)
{
    if (e->tid >= r->n_threads)
        return false;
    const rp_recv_seen *s = seen_slot(r, e->tid, e->obj);
    if (s->sends == 0 || s->obj != e->obj || s->sends != sends_of(r, e->obj))
        return false;
    r->recvs_dropped++;
    return true;
}

static void note_recv(rp_repeats *r, const rp_event *e)
{
    if (e->tid >= r->n_threads)
        add_thread(r, e->tid);
    rp_recv_seen *s = seen_slot(r, e->tid, e->obj);
    s->obj = e->obj;
    s->sends = sends_of(r, e->obj);
}

static void note_send(rp_repeats *r, const rp_event *e)
{
    r->n_sends++;
    u64map_put(&r->sends, e->obj, (void *)(uintptr_t)(sends_of(r, e->obj) + 1));
}

void repeats_note(rp_repeats *r, const rp_event *e)
{
    switch (e->kind) {
    case RP_EV_READ:
    case RP_EV_WRITE:
        note_access(r, e);
        break;
    case RP_EV_FORGET:
        /* Fresh memory: the detectors drop what they knew of it, so an
         * access of it is new whatever the stamp says. */
        repeats_forget(r, e->obj, e->size);
        forget_seen_chunks(r, e->obj, e->size);
        break;
    case RP_EV_FORK:
    case RP_EV_JOIN:
        new_span(r, (rp_tid_t)e->obj);
        new_span(r, e->tid);
        break;
    case RP_EV_SYNC_RECV:
        note_recv(r, e);
        new_span(r, e->tid);
        break;
    case RP_EV_SYNC_SEND:
        note_send(r, e);
        new_span(r, e->tid);
        break;
    default:
        new_span(r, e->tid);
        break;
    }
}
