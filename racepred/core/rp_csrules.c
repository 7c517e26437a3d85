/* rp_csrules.c — critical-section rules of WCP/DC/WDC (rp_csrules.h). */
#include "rp_csrules.h"

#include "rp_array.h"
#include "rp_shadow.h"
#include "rp_shim.h"
#include "rp_slab.h"
#include "rp_sort.h"
#include "rp_u64map.h"

/* A part's clock (below), shared by the parts whose clock is the same: a
 * release publishes one clock to every granule its section accessed (a
 * section of 262,144 accesses made as many copies of it), and a part is
 * copied only when a join would change a clock other parts share. */
typedef struct cs_clock {
    uint32_t refs;
    rp_vc vc;
} cs_clock;

/* Rule (a)'s clocks of one lock l for one 8-byte granule: L^r_{l,x} and
 * L^w_{l,x} for each byte x of it that sections on l accessed, as parts
 * (a kind, a byte mask, a clock): bytes whose clock of a kind is the same
 * share one part, so that an access under a lock costs a lookup and a join
 * per granule, not per byte.  Parts of one kind have disjoint masks (at
 * most 8 of each kind); publishing to some bytes of a part splits it. */
typedef struct cs_part {
    cs_clock *clock;
    uint8_t mask;
    bool is_write;
} cs_part;

typedef struct cs_granule {
    uint8_t n, cap;
    uint8_t bytes;         /* the union of the parts' masks */
    cs_part parts[];
} cs_granule;

/* One critical section in a lock's history (rule b). */
typedef struct cs_entry {
    uint32_t acq_epoch;
    bool released;
    rp_vc rel;
} cs_entry;

/* A thread's sections on one lock, oldest first: entries[i] is its section
 * number base + i.  When base > 0, the sections before were dropped and
 * summary is the last of them (section base - 1).  For sdp
 * (csrules_create_histories) spans[i] holds the ids of entries[i]'s
 * acquire (lo) and release (hi), summary_span the summary's. */
typedef struct cs_history {
    cs_entry *entries;
    rp_cs_span *spans;
    rp_cs_span summary_span;
    uint32_t n, cap;
    uint32_t base;
    uint32_t trim_at;      /* n at which to try dropping a prefix again */
    uint32_t consumed;     /* sections consumers passed since the last try */
    cs_entry summary;
} cs_history;

/* How far a thread consumed another's history: next is the number of the
 * first section not consumed.  When the bound dropped that section,
 * lag_acq is its acquire epoch (the thread needs a dropped section once
 * that is ordered before it), else NO_LAG. */
typedef struct cs_progress {
    uint32_t next;
    uint32_t lag_acq;
} cs_progress;

#define NO_LAG UINT32_MAX

/* A thread's history on one lock, and its progress in the others'. */
typedef struct cs_track {
    rp_tid_t tid;
    cs_history history;
    cs_progress *progress; /* index = producer thread */
    uint32_t n_progress, cap_progress;
    bool listed;           /* on its thread's list of locks */
    bool consumer;         /* on its thread's list of locks it consumes in */
} cs_track;

/* A set of locks, in no order (a chunk's, a thread's). */
typedef struct cs_lock_list {
    struct cs_lock **locks;
    uint32_t n, cap;
} cs_lock_list;

typedef struct cs_lock {
    rp_u64map granules;    /* granule number → cs_granule */
    /* Chunk of granules (RP_SHADOW_CHUNK_BITS) → how many of them are in
     * `granules` (as a pointer, never 0): a forget, which every free of
     * the program makes and which usually covers none of a lock's bytes,
     * looks for granules only in the chunks that hold some. */
    rp_u64map chunks;
    uint64_t n_bytes;      /* bytes with a clock in granules */
    /* The threads' tracks, in the order made: a lock a few threads took
     * has a few, whatever their numbers.  Past TRACK_SCAN of them,
     * track_index finds one (thread → index + 1). */
    cs_track *tracks;
    uint32_t n_tracks, cap_tracks;
    rp_u64map track_index;
} cs_lock;

typedef struct cs_open {
    uint64_t lock;
    rp_cs_log log;
} cs_open;

/* The critical sections a thread has open, innermost last; and the
 * entries of the largest log it closed, for the next section it opens. */
typedef struct cs_thread {
    cs_open *open;
    uint32_t n, cap;
    bool ended;
    rp_cs_log spare;
    /* The locks where the thread has a track, and those where it consumes
     * others' sections (thread_track): what its end, and a fork or join
     * that passes its progress on, visit instead of every lock. */
    cs_lock_list locks, consumes;
} cs_thread;

#define CS_GRANULE_CLASSES 6
#define CS_KEPT_EXITED 64

struct rp_csrules {
    rp_slab granule_slabs[CS_GRANULE_CLASSES];   /* 2^k parts (granule_class) */
    bool rule_b;
    bool own_sections;     /* a thread consumes its own history too (sdp) */
    rp_cs_limits *limits;  /* NULL: unbounded */
    rp_u64map locks;       /* lock → cs_lock */
    cs_thread *threads;
    uint32_t n_threads, cap_threads;
    uint64_t n_bytes;      /* (lock, byte) pairs in all the locks' maps */
    uint64_t n_sections;   /* sections in all the histories */
    uint64_t peak_sections;
    /* The last threads that exited unjoined keep their progress for the
     * join that may follow (csrules_join); a ring, oldest overwritten. */
    rp_tid_t exited[CS_KEPT_EXITED];
    uint32_t n_exited;
    /* Chunk of granules → the locks with granules in it (cs_lock_list): a
     * forget visits only those, not every lock. */
    rp_u64map chunk_locks;
    /* Ended threads whose sections may still be kept (retire_ended). */
    rp_tid_t *ended;
    uint32_t n_ended, cap_ended, retry_at;
    /* The clocks a thread consumes into (csrules_set_clocks), or NULL. */
    rp_cs_clocks_fn clocks_of;
    void *clocks_ctx;
};

static rp_cs_limits *configured_limits;

void csrules_set_limits(rp_cs_limits *limits)
{
    configured_limits = limits;
}

void csrules_set_clocks(rp_csrules *cs, rp_cs_clocks_fn clocks_of, void *ctx)
{
    cs->clocks_of = clocks_of;
    cs->clocks_ctx = ctx;
}

static void lock_list_add(cs_lock_list *list, cs_lock *l)
{
    list->locks = rp_array_reserve("rp.csrules.lock_lists", list->locks, list->n, &list->cap,
                                   sizeof(cs_lock *));
    list->locks[list->n++] = l;
}

/* Puts l on the list of the locks with granules in chunk. */
static void list_lock(rp_csrules *cs, uint64_t chunk, cs_lock *l)
{
    cs_lock_list *list = u64map_get(&cs->chunk_locks, chunk);
    if (list == NULL) {
        list = rp_calloc("rp.csrules.chunk_locks", 1, sizeof *list);
        u64map_put(&cs->chunk_locks, chunk, list);
    }
    lock_list_add(list, l);
}

/* An empty list stays (until csrules_destroy): a forget may be walking it. */
static void unlist_lock(rp_csrules *cs, uint64_t chunk, const cs_lock *l)
{
    cs_lock_list *list = u64map_get(&cs->chunk_locks, chunk);
    for (uint32_t i = 0; i < list->n; i++) {
        if (list->locks[i] == l) {
            list->locks[i] = list->locks[--list->n];
            return;
        }
    }
    rp_assert(!"lock missing from its chunk's list");
}

static cs_lock *lock_of(rp_csrules *cs, uint64_t obj)
{
    cs_lock *l = u64map_get(&cs->locks, obj);
    if (l == NULL) {
        l = rp_calloc("rp.csrules.lock", 1, sizeof *l);
        u64map_init(&l->granules);
        u64map_init(&l->chunks);
        u64map_put(&cs->locks, obj, l);
    }
    return l;
}

#define TRACK_SCAN 8

/* tid's track in l, or NULL. */
static cs_track *find_track(const cs_lock *l, rp_tid_t tid)
{
    if (l->n_tracks <= TRACK_SCAN) {
        for (uint32_t i = 0; i < l->n_tracks; i++)
            if (l->tracks[i].tid == tid)
                return &l->tracks[i];
        return NULL;
    }
    uintptr_t i = (uintptr_t)u64map_get(&l->track_index, tid);
    return i == 0 ? NULL : &l->tracks[i - 1];
}

static const cs_history *history_in(const cs_lock *l, rp_tid_t tid)
{
    const cs_track *tr = find_track(l, tid);
    return tr == NULL ? NULL : &tr->history;
}

/* tid's track in l, made (empty) if it has none: earlier pointers into
 * the tracks may move. */
static cs_track *track_of(cs_lock *l, rp_tid_t tid)
{
    cs_track *tr = find_track(l, tid);
    if (tr != NULL)
        return tr;
    /* From one track up: most locks of a program with many have the
     * thread that made them and a few more. */
    l->tracks = rp_array_reserve_from("rp.csrules.tracks", l->tracks, l->n_tracks,
                                      &l->cap_tracks, sizeof(cs_track), 1);
    tr = &l->tracks[l->n_tracks++];
    rp_memset(tr, 0, sizeof *tr);
    tr->tid = tid;
    if (l->n_tracks == TRACK_SCAN + 1)
        for (uint32_t i = 0; i < l->n_tracks; i++)
            u64map_put(&l->track_index, l->tracks[i].tid, (void *)(uintptr_t)(i + 1));
    else if (l->n_tracks > TRACK_SCAN + 1)
        u64map_put(&l->track_index, tid, (void *)(uintptr_t)l->n_tracks);
    return tr;
}

static cs_thread *thread_of(rp_csrules *cs, rp_tid_t tid)
{
    cs->threads = rp_array_extend("rp.csrules.threads", cs->threads, tid, &cs->n_threads,
                                  &cs->cap_threads, sizeof(cs_thread));
    return &cs->threads[tid];
}

/* tid's track in l, the lock put on the thread's lists the first time:
 * `consumes` when the track is for consuming others' sections. */
static cs_track *thread_track(rp_csrules *cs, cs_lock *l, rp_tid_t tid, bool consumes)
{
    cs_track *tr = track_of(l, tid);
    if (!tr->listed) {
        lock_list_add(&thread_of(cs, tid)->locks, l);
        tr->listed = true;
    }
    if (consumes && !tr->consumer) {
        lock_list_add(&thread_of(cs, tid)->consumes, l);
        tr->consumer = true;
    }
    return tr;
}

static const cs_lock_list *list_of(rp_csrules *cs, rp_tid_t tid, bool consumes)
{
    cs_thread *th = thread_of(cs, tid);
    return consumes ? &th->consumes : &th->locks;
}

/* Calls fn(ctx, 0, lock) for each lock where tid has a track, or where it
 * consumes; fn may make tracks of other threads (and move the threads). */
static void for_each_lock_of(rp_csrules *cs, rp_tid_t tid, bool consumes,
                             void (*fn)(void *, uint64_t, void *), void *ctx)
{
    for (uint32_t i = 0; i < list_of(cs, tid, consumes)->n; i++)
        fn(ctx, 0, list_of(cs, tid, consumes)->locks[i]);
}

static cs_progress *progress_of(cs_track *tr, rp_tid_t producer)
{
    if (producer >= tr->n_progress) {
        tr->progress = rp_array_reserve("rp.csrules.progress", tr->progress, producer,
                                        &tr->cap_progress, sizeof(cs_progress));
        for (rp_tid_t u = tr->n_progress; u <= producer; u++) {
            tr->progress[u].next = 0;
            tr->progress[u].lag_acq = NO_LAG;
        }
        tr->n_progress = producer + 1;
    }
    return &tr->progress[producer];
}

static uint32_t consumed_of(const cs_lock *l, rp_tid_t tid, rp_tid_t producer)
{
    const cs_track *tr = find_track(l, tid);
    if (tr == NULL || producer >= tr->n_progress)
        return 0;
    return tr->progress[producer].next;
}

/* ---- dropping rule-(b) history ------------------------------------------------- */

/* Whether thread t may still consume producer's sections. */
static bool consumer_of(const rp_csrules *cs, rp_tid_t t, rp_tid_t producer)
{
    return !cs->threads[t].ended && (t != producer || cs->own_sections);
}

/* Whether order (and also) already hold the release clock of en, a
 * section of producer: the detectors' clocks are joins of clocks taken
 * at sends, after each of which the sender's own entry grows, so a clock
 * whose producer entry reaches the release's holds all of the release's
 * clock.  Then joining it changes nothing (a consumer that learned of
 * the producer otherwise, as a thread started by one that waited for
 * the producer to finish). */
static bool knows_release(const cs_entry *en, rp_tid_t producer, const rp_vc *order,
                          const rp_vc *also)
{
    uint32_t released = vc_get(&en->rel, producer);
    return vc_get(order, producer) >= released
        && (also == NULL || vc_get(also, producer) >= released);
}

/* Whether live thread t's clocks hold the release of en, producer's last
 * section (csrules_set_clocks). */
static bool thread_knows(const rp_csrules *cs, rp_tid_t t, const cs_entry *en,
                         rp_tid_t producer)
{
    const rp_vc *order = NULL, *also = NULL;
    cs->clocks_of(cs->clocks_ctx, t, &order, &also);
    return order != NULL && knows_release(en, producer, order, also);
}

/* The first section of producer's history some live thread may still
 * consume.  Threads past n_threads have not appeared yet: they will be
 * forked, and inherit their parent's consumption.  A thread whose clocks
 * hold the release of producer's last released section counts as past it
 * (csrules_set_clocks): at its next release of the lock each section up to
 * it would be ordered before and joined to no effect, and once they are
 * dropped it, or a thread it starts, joins the summary (or nothing, once
 * retired) to no effect either.  So a thread that never takes the lock
 * again (the main thread that waited on a condition for its detached
 * workers, or joined them) does not keep their sections for ever. */
static uint32_t min_consumed(const rp_csrules *cs, const cs_lock *l, rp_tid_t producer)
{
    /* Below this nothing can be dropped or retired, whatever the minimum
     * (drop_prefix, retire_consumed): the scan may stop, which it does at
     * the first live thread that has consumed and knows none of it. */
    const cs_history *h = history_in(l, producer);
    uint32_t useless = h == NULL ? 0 : h->base + (h->n > 0);
    /* The last released section (only the last may be open), or the
     * summary of the dropped ones. */
    uint32_t released = h == NULL ? 0 : h->n;
    if (released > 0 && !h->entries[released - 1].released)
        released--;
    const cs_entry *last = released > 0 ? &h->entries[released - 1]
                         : h != NULL && h->base > 0 ? &h->summary : NULL;
    if (cs->clocks_of == NULL || (last != NULL && last->rel.len == 0))
        last = NULL;
    uint32_t min = UINT32_MAX;
    for (rp_tid_t t = 0; t < cs->n_threads && min >= useless; t++) {
        if (!consumer_of(cs, t, producer))
            continue;
        uint32_t c = consumed_of(l, t, producer);
        if (last != NULL && c < h->base + released && thread_knows(cs, t, last, producer))
            c = h->base + released;
        if (c < min)
            min = c;
    }
    return min;
}

/* Drops sections [base, upto) (released ones only), keeping the last as
 * the summary; returns how many were dropped. */
static void drop_spans(cs_history *h, uint32_t k)
{
    if (h->spans == NULL)
        return;
    h->summary_span = h->spans[k - 1];
    for (uint32_t i = k; i < h->n; i++)
        h->spans[i - k] = h->spans[i];
}

static uint32_t drop_prefix(rp_csrules *cs, cs_history *h, uint32_t upto)
{
    uint32_t k = 0;
    while (h->base + k < upto && k < h->n && h->entries[k].released)
        k++;
    if (k == 0)
        return 0;
    if (h->base == 0)
        vc_init(&h->summary.rel);
    drop_spans(h, k);
    h->summary.acq_epoch = h->entries[k - 1].acq_epoch;
    h->summary.released = true;
    vc_copy(&h->summary.rel, &h->entries[k - 1].rel);
    for (uint32_t i = 0; i < k; i++)
        vc_free(&h->entries[i].rel);
    for (uint32_t i = k; i < h->n; i++)
        h->entries[i - k] = h->entries[i];
    h->n -= k;
    h->base += k;
    cs->n_sections -= k;
    return k;
}

/* Before the bound drops producer's sections up to upto: every live
 * thread that had not consumed them remembers the acquire epoch of the
 * first one it had not. */
static void note_lagging(rp_csrules *cs, cs_lock *l, rp_tid_t producer, uint32_t upto)
{
    for (rp_tid_t t = 0; t < cs->n_threads; t++) {
        if (!consumer_of(cs, t, producer))
            continue;
        cs_progress *p = progress_of(thread_track(cs, l, t, true), producer);
        const cs_history *h = history_in(l, producer);
        if (p->next >= h->base && p->next < upto)
            p->lag_acq = h->entries[p->next - h->base].acq_epoch;
    }
}

/* Called as producer's history grows: drops what every live thread has
 * consumed, then, over the bound, the oldest half.  Tried again only once
 * the history has doubled, so that the O(threads) scan is amortised.
 * Without limits (racepred-analyze), nothing is dropped: trace files may
 * start threads without a fork, which the consumption argument needs. */
static void trim_history(rp_csrules *cs, cs_lock *l, rp_tid_t producer)
{
    if (cs->limits == NULL)
        return;
    cs_history *h = &find_track(l, producer)->history;
    uint32_t max = cs->limits->max_sections;
    if (h->n < h->trim_at && (max == 0 || h->n <= max))
        return;
    drop_prefix(cs, h, min_consumed(cs, l, producer));
    if (max != 0 && h->n > max) {
        uint32_t upto = h->base + h->n - max / 2;
        note_lagging(cs, l, producer, upto);
        h = &find_track(l, producer)->history;
        cs->limits->dropped_sections += drop_prefix(cs, h, upto);
    }
    h->trim_at = 2 * h->n + 2;
}

/* Called as a consumer passes k more of producer's sections: a history
 * whose thread adds nothing more (it ended, or stopped taking the lock)
 * shrinks only so.  Tried once consumers have passed half of it since the
 * last try, so that the O(threads) scan is amortised. */
static void note_consumed(rp_csrules *cs, cs_lock *l, rp_tid_t producer, uint32_t k)
{
    cs_history *h = &find_track(l, producer)->history;
    if (cs->limits == NULL)
        return;
    h->consumed += k;
    if (h->consumed <= h->n / 2 + 8)
        return;
    h->consumed = 0;
    drop_prefix(cs, h, min_consumed(cs, l, producer));
}

/* ---- acquire ---------------------------------------------------------------- */

void csrules_acquire_id(rp_csrules *cs, rp_tid_t tid, uint64_t lock, uint32_t acq_epoch,
                        uint64_t acq_id)
{
    cs_thread *th = thread_of(cs, tid);
    th->open = rp_array_reserve("rp.csrules.open", th->open, th->n, &th->cap, sizeof(cs_open));
    cs_open *o = &th->open[th->n++];
    o->lock = lock;
    o->log = th->spare;
    rp_memset(&th->spare, 0, sizeof th->spare);
    if (!cs->rule_b)
        return;
    cs_lock *l = lock_of(cs, lock);
    cs_history *h = &thread_track(cs, l, tid, false)->history;
    uint32_t cap = h->cap;
    /* From one section up, as the tracks (track_of). */
    h->entries = rp_array_reserve_from("rp.csrules.history", h->entries, h->n, &h->cap,
                                       sizeof(cs_entry), 1);
    if (cs->own_sections && h->cap != cap)
        h->spans = rp_realloc("rp.csrules.spans", h->spans, h->cap * sizeof(rp_cs_span));
    if (h->spans != NULL)
        h->spans[h->n].lo = acq_id;
    cs_entry *en = &h->entries[h->n++];
    en->acq_epoch = acq_epoch;
    en->released = false;
    vc_init(&en->rel);
    if (++cs->n_sections > cs->peak_sections)
        cs->peak_sections = cs->n_sections;
    trim_history(cs, l, tid);
}

void csrules_acquire(rp_csrules *cs, rp_tid_t tid, uint64_t lock, uint32_t acq_epoch)
{
    csrules_acquire_id(cs, tid, lock, acq_epoch, 0);
}

/* ---- the log of an open section ----------------------------------------------- */

/* Logs shorter than this grow without merging repeats first. */
#define LOG_MERGE_MIN 16

static bool same_access(const rp_cs_logged *a, const rp_cs_logged *b)
{
    return a->addr == b->addr && a->size == b->size && a->is_write == b->is_write;
}

/* Tells entries apart for merging: distinct for the user-space addresses
 * (below 2^48) of accesses of up to 2^15 bytes; a rare clash of two
 * different accesses only keeps both. */
static uint64_t access_key(const rp_cs_logged *a)
{
    return a->addr ^ ((uint64_t)a->size << 48) ^ ((uint64_t)a->is_write << 63);
}

/* Merges every repeat into the first entry of its access (its last_id
 * the repeat's, the later), keeping the order of first occurrences. */
static void merge_repeats(rp_cs_log *log)
{
    rp_u64map first;               /* key → 1 + index of the kept entry */
    uint32_t kept = 0;
    u64map_init(&first);
    for (uint32_t i = 0; i < log->n; i++) {
        const rp_cs_logged *a = &log->entries[i];
        uintptr_t at = (uintptr_t)u64map_get(&first, access_key(a));
        if (at != 0 && same_access(&log->entries[at - 1], a)) {
            log->entries[at - 1].last_id = a->last_id;
            continue;
        }
        if (at == 0)
            u64map_put(&first, access_key(a), (void *)(uintptr_t)(kept + 1));
        log->entries[kept++] = *a;
    }
    u64map_free(&first);
    log->n = kept;
}

/* Room for one more entry in a log at its capacity: repeats merged, at
 * least half of it free again, else a larger capacity up to the bound.
 * False (and the log full, counted) when neither helps. */
static bool make_room(rp_cs_log *log, rp_cs_limits *limits)
{
    uint64_t max = limits != NULL && limits->max_bytes != 0 ? limits->max_bytes : UINT32_MAX;
    if (log->full)
        return false;
    if (log->cap >= LOG_MERGE_MIN) {
        merge_repeats(log);
        if (log->n <= log->cap / 2)
            return true;
    }
    if (log->cap >= max) {
        log->full = true;
        if (limits != NULL)
            limits->full_logs++;
        return false;
    }
    uint64_t cap = log->cap == 0 ? 4 : 2 * (uint64_t)log->cap;
    log->cap = (uint32_t)(cap < max ? cap : max);
    log->entries = rp_realloc("rp.csrules.log", log->entries, log->cap * sizeof(rp_cs_logged));
    return true;
}

void cslog_record(rp_cs_log *log, const rp_event *e, rp_cs_limits *limits)
{
    rp_cs_logged a = { e->obj, e->id, e->id, e->size, e->kind == RP_EV_WRITE };
    if (log->n != 0 && same_access(&log->entries[log->n - 1], &a)) {
        log->entries[log->n - 1].last_id = e->id;
        return;
    }
    if (log->n == log->cap && !make_room(log, limits))
        return;
    log->entries[log->n++] = a;
}

void cslog_free(rp_cs_log *log)
{
    rp_free(log->entries);
    log->entries = NULL;
    log->n = log->cap = 0;
}

/* ---- rule (a) ------------------------------------------------------------------ */

/* Joins the clocks of gr's parts that conflict with an access of the
 * bytes in mask: the write parts, and for a write the read parts too. */
static void join_granule(const cs_granule *gr, uint8_t mask, bool is_write, rp_vc *dst,
                         rp_vc *also)
{
    for (uint32_t i = 0; i < gr->n; i++) {
        const cs_part *p = &gr->parts[i];
        if ((p->mask & mask) == 0 || !(p->is_write || is_write))
            continue;
        vc_join(dst, &p->clock->vc);
        if (also != NULL)
            vc_join(also, &p->clock->vc);
    }
}

static void join_conflicting(cs_lock *l, const rp_event *e, rp_vc *dst, rp_vc *also)
{
    if (l->n_bytes == 0 || e->size == 0)
        return;
    uint64_t first = e->obj >> RP_SHADOW_GRANULE_BITS;
    uint64_t last = (e->obj + (e->size - 1)) >> RP_SHADOW_GRANULE_BITS;
    for (uint64_t g = first;; g++) {
        const cs_granule *gr = u64map_get(&l->granules, g);
        uint8_t mask = shadow_granule_mask(g, e->obj, e->size);
        if (gr != NULL && (gr->bytes & mask) != 0)
            join_granule(gr, mask, e->kind == RP_EV_WRITE, dst, also);
        if (g == last)
            return;
    }
}

void csrules_access(rp_csrules *cs, const rp_event *e, rp_vc *dst, rp_vc *also)
{
    cs_thread *th = thread_of(cs, e->tid);
    for (uint32_t i = 0; i < th->n; i++) {
        cs_lock *l = u64map_get(&cs->locks, th->open[i].lock);
        if (l != NULL)
            join_conflicting(l, e, dst, also);
        cslog_record(&th->open[i].log, e, cs->limits);
    }
}

/* ---- rule (b) ------------------------------------------------------------------ */

static void join_entry(const cs_entry *en, rp_vc *order, rp_vc *also)
{
    vc_join(order, &en->rel);
    if (also != NULL)
        vc_join(also, &en->rel);
}

/* Behind the dropped sections of a history: the thread's release clocks
 * only grow, so joining a prefix of its sections is joining the last one's
 * release — the summary, once it is ordered before.  Until then, if the
 * first dropped section this thread needs is ordered before, the ordering
 * it brought is lost: counted once.  True if the summary was consumed. */
static bool consume_dropped(rp_csrules *cs, const cs_history *from, cs_progress *p,
                            rp_tid_t producer, rp_vc *order, rp_vc *also)
{
    if (from->summary.acq_epoch <= vc_get(order, producer)) {
        join_entry(&from->summary, order, also);
        p->next = from->base;
        p->lag_acq = NO_LAG;
        return true;
    }
    if (p->lag_acq <= vc_get(order, producer)) {
        cs->limits->missed_sections++;
        p->lag_acq = NO_LAG;
    }
    return false;
}

/* Consumes producer's sections whose acquire is ordered before; true if that
 * joined a clock (others' sections may be ordered before now). */
static bool consume_ordered(rp_csrules *cs, cs_lock *l, uint32_t consumer, uint32_t at,
                            rp_vc *order, rp_vc *also)
{
    rp_tid_t producer = l->tracks[at].tid;
    const cs_history *from = &l->tracks[at].history;
    cs_progress *p = progress_of(&l->tracks[consumer], producer);
    uint32_t before = p->next;
    bool any = false;
    if (p->next < from->base) {
        any = consume_dropped(cs, from, p, producer, order, also);
        if (!any)
            return false;
    }
    const cs_entry *last = NULL;
    while (p->next - from->base < from->n) {
        const cs_entry *en = &from->entries[p->next - from->base];
        if (!en->released || en->acq_epoch > vc_get(order, producer))
            break;
        last = en;
        p->next++;
    }
    /* One producer's release clocks only grow: the last is all of them. */
    if (last != NULL && !knows_release(last, producer, order, also)) {
        join_entry(last, order, also);
        any = true;
    }
    if (p->next != before)
        note_consumed(cs, l, producer, p->next - before);
    return any;
}

void csrules_rule_b(rp_csrules *cs, rp_tid_t tid, uint64_t lock, rp_vc *order, rp_vc *also)
{
    cs_lock *l = u64map_get(&cs->locks, lock);
    if (!cs->rule_b || l == NULL)
        return;
    /* A consumer where some other thread has a track (a producer). */
    bool others = l->n_tracks > (find_track(l, tid) != NULL);
    uint32_t me = (uint32_t)(thread_track(cs, l, tid, others) - l->tracks);
    for (bool changed = true; changed;) {
        changed = false;
        for (uint32_t at = 0; at < l->n_tracks; at++)
            if (at != me && consume_ordered(cs, l, me, at, order, also))
                changed = true;
    }
}

/* ---- sdp: the last section acquired before a bound ------------------------------ */

/* Where a bound lands in a history (csrules_join_last). */
typedef enum landing {
    LANDS_NOWHERE,         /* no section */
    LANDS_ON_ENTRY,        /* a kept section, or the summary: *entry */
    LANDS_BEFORE,          /* a dropped section, number *at */
    LANDS_BEFORE_LAG       /* a dropped section before the summary */
} landing;

/* Number of the kept sections of h acquired at or before bound, at most
 * the released ones. */
static uint32_t kept_upto(const cs_history *h, uint32_t bound)
{
    uint32_t lo = 0, hi = h->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (h->entries[mid].acq_epoch <= bound)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo > 0 && !h->entries[lo - 1].released)
        lo--;
    return lo;
}

/* Whether section number at of h holds span. */
static bool holds(const cs_history *h, uint32_t at, const rp_cs_span *span)
{
    const rp_cs_span *section;
    if (span == NULL || h->spans == NULL)
        return false;
    section = at + 1 == h->base ? &h->summary_span : &h->spans[at - h->base];
    return section->lo < span->lo && span->hi < section->hi;
}

/* The section at number `at` (>= base - 1) of h. */
static const cs_entry *entry_at(const cs_history *h, uint32_t at)
{
    return at + 1 == h->base ? &h->summary : &h->entries[at - h->base];
}

/* The last section of h acquired at or before bound, or the one before
 * when that holds skip. */
static landing land(const cs_history *h, uint32_t bound, const rp_cs_span *skip,
                    const cs_entry **entry, uint32_t *at)
{
    uint32_t k = kept_upto(h, bound);
    if (k > 0)
        *at = h->base + k - 1;
    else if (h->base > 0 && h->summary.acq_epoch <= bound)
        *at = h->base - 1;
    else
        return h->base > 0 ? LANDS_BEFORE_LAG : LANDS_NOWHERE;
    if (holds(h, *at, skip)) {
        if (*at == 0)
            return LANDS_NOWHERE;
        --*at;
    }
    if (*at + 1 < h->base)
        return LANDS_BEFORE;
    *entry = entry_at(h, *at);
    return LANDS_ON_ENTRY;
}

/* A bound landed on a dropped section that the thread had not consumed
 * (counted once per drop that left it behind). */
static void note_missed(rp_csrules *cs, cs_progress *p)
{
    if (p->lag_acq != NO_LAG)
        cs->limits->missed_sections++;
    p->lag_acq = NO_LAG;
}

bool csrules_join_last(rp_csrules *cs, rp_tid_t tid, uint64_t lock, rp_tid_t producer,
                       uint32_t bound, const rp_cs_span *skip, rp_vc *order, rp_vc *also)
{
    cs_lock *l = u64map_get(&cs->locks, lock);
    if (l == NULL || find_track(l, producer) == NULL)
        return false;
    cs_progress *p = progress_of(thread_track(cs, l, tid, true), producer);
    const cs_history *h = history_in(l, producer);
    const cs_entry *en = NULL;
    uint32_t at = 0;
    switch (land(h, bound, skip, &en, &at)) {
    case LANDS_NOWHERE:
        return false;
    case LANDS_BEFORE:
        if (at >= p->next)
            note_missed(cs, p);
        return false;
    case LANDS_BEFORE_LAG:
        if (p->lag_acq <= bound)
            note_missed(cs, p);
        return false;
    case LANDS_ON_ENTRY:
        break;
    }
    if (at < p->next)
        return false;
    uint32_t passed = at + 1 - p->next;
    p->next = at + 1;
    p->lag_acq = NO_LAG;
    bool joined = !vc_leq(&en->rel, order);
    if (joined)
        join_entry(en, order, also);
    note_consumed(cs, l, producer, passed);
    return joined;
}

/* ---- rule-(a) granules: parts, bound and forget ------------------------------- */

/* Granules of 1 to 32 parts (at most 8 of each kind; a publication may
 * split some before parts merge again) come from the rules' own slabs, one
 * per power of two (rp_slab.h): a lock whose bytes reach --cs-bytes frees
 * all its granules at once and the next sections make them again, tens of
 * thousands per section on 7-Zip. */
static rp_slab *granule_class(rp_csrules *cs, uint32_t cap)
{
    uint32_t k = 0;
    while ((1u << k) < cap)
        k++;
    rp_assert(k < CS_GRANULE_CLASSES);
    return &cs->granule_slabs[k];
}

static cs_clock *clock_new(const rp_vc *vc)
{
    cs_clock *c = rp_malloc("rp.csrules.clock", sizeof *c);
    c->refs = 1;
    vc_init(&c->vc);
    vc_copy(&c->vc, vc);
    return c;
}

static cs_clock *clock_hold(cs_clock *c)
{
    c->refs++;
    return c;
}

static void clock_drop(cs_clock *c)
{
    if (--c->refs != 0)
        return;
    vc_free(&c->vc);
    rp_free(c);
}

static void free_granule(rp_csrules *cs, cs_granule *gr)
{
    for (uint32_t i = 0; i < gr->n; i++)
        clock_drop(gr->parts[i].clock);
    slab_put(granule_class(cs, gr->cap), gr);
}

/* Removes gr's parts of no byte, keeping the order of the others. */
static void drop_empty_parts(cs_granule *gr)
{
    uint32_t kept = 0;
    for (uint32_t i = 0; i < gr->n; i++) {
        if (gr->parts[i].mask == 0)
            clock_drop(gr->parts[i].clock);
        else if (kept++ != i)
            gr->parts[kept - 1] = gr->parts[i];
    }
    gr->n = (uint8_t)kept;
}

/* l's count of granules in g's chunk changes by delta. */
static void count_in_chunk(rp_csrules *cs, cs_lock *l, uint64_t g, int64_t delta)
{
    uint64_t chunk = g >> RP_SHADOW_CHUNK_BITS;
    uint64_t before = (uintptr_t)u64map_get(&l->chunks, chunk);
    uint64_t n = before + (uint64_t)delta;
    if (n == 0) {
        u64map_remove(&l->chunks, chunk);
        unlist_lock(cs, chunk, l);
        return;
    }
    u64map_put(&l->chunks, chunk, (void *)(uintptr_t)n);
    if (before == 0)
        list_lock(cs, chunk, l);
}

/* Takes the bytes of mask out of granule g of l (and out of the count). */
static void clear_granule_bytes(rp_csrules *cs, cs_lock *l, uint64_t g, uint8_t mask)
{
    cs_granule *gr = u64map_get(&l->granules, g);
    if (gr == NULL || (gr->bytes & mask) == 0)
        return;
    uint32_t n = shadow_mask_bytes(gr->bytes & mask);
    l->n_bytes -= n;
    cs->n_bytes -= n;
    gr->bytes &= (uint8_t)~mask;
    for (uint32_t i = 0; i < gr->n; i++)
        gr->parts[i].mask &= (uint8_t)~mask;
    drop_empty_parts(gr);
    if (gr->bytes == 0) {
        u64map_remove(&l->granules, g);
        count_in_chunk(cs, l, g, -1);
        free_granule(cs, gr);
    }
}

/* Granules removed from a lock's map, and their bytes. */
typedef struct granule_sink {
    rp_csrules *cs;
    uint64_t bytes;
} granule_sink;

/* u64map visitor: frees a removed granule, counting its bytes. */
static void free_counted_granule(void *ctx, uint64_t key, void *value)
{
    granule_sink *sink = ctx;
    cs_granule *gr = value;
    (void)key;
    sink->bytes += shadow_mask_bytes(gr->bytes);
    free_granule(sink->cs, gr);
}

typedef struct unlist_ctx {
    rp_csrules *cs;
    const cs_lock *l;
} unlist_ctx;

static void unlist_from_chunk(void *ctx, uint64_t chunk, void *value)
{
    const unlist_ctx *u = ctx;
    (void)value;
    unlist_lock(u->cs, chunk, u->l);
}

/* Frees all of l's granules (their bytes uncounted). */
static void free_granules(rp_csrules *cs, cs_lock *l)
{
    unlist_ctx u = { cs, l };
    u64map_for_each(&l->chunks, unlist_from_chunk, &u);
    granule_sink sink = { cs, 0 };
    u64map_for_each(&l->granules, free_counted_granule, &sink);
    u64map_free(&l->granules);
    u64map_free(&l->chunks);
}

static void clear_bytes(rp_csrules *cs, cs_lock *l)
{
    cs->n_bytes -= l->n_bytes;
    l->n_bytes = 0;
    free_granules(cs, l);
}

/* The locks that hold bytes, and a sort key each: bytes (capped) above
 * the lock's index in `locks`. */
typedef struct lock_sizes {
    cs_lock **locks;
    uint64_t *keys;
    uint32_t n;
} lock_sizes;

static void collect_size(void *ctx, uint64_t key, void *value)
{
    lock_sizes *ls = ctx;
    cs_lock *l = value;
    (void)key;
    if (l->n_bytes == 0)
        return;
    uint64_t bytes = l->n_bytes < UINT32_MAX ? l->n_bytes : UINT32_MAX;
    ls->locks[ls->n] = l;
    ls->keys[ls->n] = bytes << 32 | ls->n;
    ls->n++;
}

/* Over the bound: the locks with the most bytes lose them, down to half the
 * bound, so that this runs once per max/2 new bytes at most.  One pass
 * sorts the locks by size: a program with a hundred thousand small locks
 * drops thousands of them each time (one scan per lock took 75 % of a run). */
static void enforce_byte_bound(rp_csrules *cs)
{
    uint64_t max = cs->limits != NULL ? cs->limits->max_bytes : 0;
    if (max == 0 || cs->n_bytes <= max)
        return;
    size_t n = cs->locks.count;
    lock_sizes ls = { rp_malloc("rp.csrules.bound", n * sizeof *ls.locks),
                      rp_malloc("rp.csrules.bound", n * sizeof *ls.keys), 0 };
    u64map_for_each(&cs->locks, collect_size, &ls);
    sort_u64(ls.keys, ls.n);
    for (uint32_t i = ls.n; i > 0 && cs->n_bytes > max / 2; i--) {
        cs_lock *largest = ls.locks[(uint32_t)ls.keys[i - 1]];
        cs->limits->dropped_bytes += largest->n_bytes;
        clear_bytes(cs, largest);
    }
    rp_free(ls.locks);
    rp_free(ls.keys);
}

/* Granule g of l (gr, NULL if l has none yet), made if new, with room for
 * `more` parts. */
static cs_granule *granule_with_room(rp_csrules *cs, cs_lock *l, uint64_t g, cs_granule *gr,
                                     uint32_t more)
{
    uint32_t n = gr == NULL ? 0 : gr->n;
    uint32_t cap = gr == NULL ? 1 : gr->cap;
    if (gr != NULL && n + more <= cap)
        return gr;
    while (cap < n + more)
        cap *= 2;
    cs_granule *grown = slab_get(granule_class(cs, cap));
    if (gr == NULL) {
        grown->n = 0;
        grown->bytes = 0;
        count_in_chunk(cs, l, g, 1);
    } else {
        rp_memcpy(grown, gr, sizeof *gr + n * sizeof(cs_part));
        slab_put(granule_class(cs, gr->cap), gr);
    }
    grown->cap = (uint8_t)cap;
    u64map_put(&l->granules, g, grown);
    return grown;
}

/* How many parts a publication of mask's bytes of one kind may add to gr:
 * one per part it splits, and one for bytes no part of the kind has. */
static uint32_t parts_needed(const cs_granule *gr, uint8_t mask, bool is_write)
{
    uint32_t more = 1;
    for (uint32_t i = 0; gr != NULL && i < gr->n; i++) {
        const cs_part *p = &gr->parts[i];
        more += p->is_write == is_write && (p->mask & mask) != 0 && (p->mask & ~mask) != 0;
    }
    return more;
}

static void add_part(cs_granule *gr, uint8_t mask, bool is_write, cs_clock *clock)
{
    cs_part *p = &gr->parts[gr->n++];
    p->clock = clock_hold(clock);
    p->mask = mask;
    p->is_write = is_write;
}

static bool same_clock(const cs_clock *a, const cs_clock *b)
{
    return a == b || (vc_leq(&a->vc, &b->vc) && vc_leq(&b->vc, &a->vc));
}

/* p's clock ⊔= released: the release's own clock when that holds p's
 * (the common case: an earlier section of the lock), else p's joined, in
 * place unless other parts share it. */
static void part_join(cs_part *p, cs_clock *released)
{
    if (p->clock == released)
        return;
    if (vc_leq(&p->clock->vc, &released->vc)) {
        clock_drop(p->clock);
        p->clock = clock_hold(released);
        return;
    }
    if (p->clock->refs > 1) {
        cs_clock *own = clock_new(&p->clock->vc);
        clock_drop(p->clock);
        p->clock = own;
    }
    vc_join(&p->clock->vc, &released->vc);
}

/* After a publication to the bytes of mask: parts of that kind inside the
 * mask whose clocks became equal are one part again. */
static void merge_parts(cs_granule *gr, uint8_t mask, bool is_write)
{
    for (uint32_t i = 0; i < gr->n; i++) {
        cs_part *p = &gr->parts[i];
        if (p->is_write != is_write || p->mask == 0 || (p->mask & ~mask) != 0)
            continue;
        for (uint32_t j = i + 1; j < gr->n; j++) {
            cs_part *q = &gr->parts[j];
            if (q->is_write == is_write && q->mask != 0 && (q->mask & ~mask) == 0
                && same_clock(p->clock, q->clock)) {
                p->mask |= q->mask;
                q->mask = 0;
            }
        }
    }
    drop_empty_parts(gr);
}

/* L^k_{l,x} ⊔= released for the bytes x of mask in granule g. */
static void publish_granule(rp_csrules *cs, cs_lock *l, uint64_t g, uint8_t mask,
                            bool is_write, cs_clock *released)
{
    cs_granule *gr = u64map_get(&l->granules, g);
    gr = granule_with_room(cs, l, g, gr, parts_needed(gr, mask, is_write));
    uint8_t rest = mask;
    for (uint32_t i = 0, n = gr->n; i < n; i++) {
        cs_part *p = &gr->parts[i];
        if (p->is_write != is_write || (p->mask & mask) == 0)
            continue;
        if ((p->mask & ~mask) != 0) {
            add_part(gr, p->mask & (uint8_t)~mask, is_write, p->clock);
            p->mask &= mask;
        }
        part_join(p, released);
        rest &= (uint8_t)~p->mask;
    }
    if (rest != 0)
        add_part(gr, rest, is_write, released);
    merge_parts(gr, mask, is_write);
    uint32_t added = shadow_mask_bytes(mask & (uint8_t)~gr->bytes);
    gr->bytes |= mask;
    l->n_bytes += added;
    cs->n_bytes += added;
}

typedef struct forget_range {
    rp_csrules *cs;
    uint64_t addr;
    uint32_t size;
} forget_range;

/* Removes l's granules [lo, lo + count) into sink, chunk by chunk, only
 * in the chunks that hold some. */
static void remove_granules(cs_lock *l, uint64_t lo, uint64_t count, granule_sink *sink)
{
    uint64_t end = lo + count;
    for (uint64_t g = lo; g < end;) {
        uint64_t chunk = g >> RP_SHADOW_CHUNK_BITS;
        uint64_t next = (chunk + 1) << RP_SHADOW_CHUNK_BITS;
        if (next > end || next == 0)
            next = end;
        if (u64map_get(&l->chunks, chunk) != NULL) {
            size_t n = u64map_remove_range(&l->granules, g, next - g, free_counted_granule,
                                           sink);
            count_in_chunk(sink->cs, l, g, -(int64_t)n);
        }
        g = next;
    }
}

/* Clears [addr, addr + size) in one lock: the granules it covers whole go
 * from the map, the ones at its ends lose the bytes inside it. */
static void forget_in_lock(forget_range *r, cs_lock *l)
{
    if (l->n_bytes == 0)
        return;
    uint64_t first = r->addr >> RP_SHADOW_GRANULE_BITS;
    uint64_t last = (r->addr + (r->size - 1)) >> RP_SHADOW_GRANULE_BITS;
    clear_granule_bytes(r->cs, l, first, shadow_granule_mask(first, r->addr, r->size));
    if (last == first)
        return;
    clear_granule_bytes(r->cs, l, last, shadow_granule_mask(last, r->addr, r->size));
    granule_sink removed = { r->cs, 0 };
    remove_granules(l, first + 1, last - first - 1, &removed);
    l->n_bytes -= removed.bytes;
    r->cs->n_bytes -= removed.bytes;
}

#define CHUNK_BYTES_BITS (RP_SHADOW_CHUNK_BITS + RP_SHADOW_GRANULE_BITS)

/* Clears [addr, end] (inclusive) in the locks listed for chunk c, which
 * the range overlaps.  From the end of the list: a lock the forget leaves
 * without granules here is replaced by the last one, already visited. */
static void forget_in_chunk(rp_csrules *cs, uint64_t c, cs_lock_list *list, uint64_t addr,
                            uint64_t end)
{
    uint64_t lo = c << CHUNK_BYTES_BITS, hi = ((c + 1) << CHUNK_BYTES_BITS) - 1;
    if (lo < addr)
        lo = addr;
    if (hi > end)
        hi = end;
    forget_range r = { cs, lo, (uint32_t)(hi - lo + 1) };
    for (uint32_t i = list->n; i-- > 0;)
        if (i < list->n)
            forget_in_lock(&r, list->locks[i]);
}

typedef struct forget_span {
    rp_csrules *cs;
    uint64_t addr, end;
} forget_span;

static void forget_in_listed_chunk(void *ctx, uint64_t c, void *value)
{
    const forget_span *f = ctx;
    if (c >= f->addr >> CHUNK_BYTES_BITS && c <= f->end >> CHUNK_BYTES_BITS)
        forget_in_chunk(f->cs, c, value, f->addr, f->end);
}

/* Every free of the program forgets its block: only the locks listed in
 * the chunks it covers can hold its bytes (a program with a hundred
 * thousand locks spent a quarter of its run walking them all).  A range
 * over more chunks than are listed walks the listed ones instead. */
void csrules_forget(rp_csrules *cs, uint64_t addr, uint32_t size)
{
    if (cs->n_bytes == 0 || size == 0)
        return;
    uint64_t end = addr + (size - 1);
    uint64_t c0 = addr >> CHUNK_BYTES_BITS, c1 = end >> CHUNK_BYTES_BITS;
    if (c1 - c0 >= cs->chunk_locks.count) {
        forget_span f = { cs, addr, end };
        u64map_for_each(&cs->chunk_locks, forget_in_listed_chunk, &f);
        return;
    }
    for (uint64_t c = c0; c <= c1; c++) {
        cs_lock_list *list = u64map_get(&cs->chunk_locks, c);
        if (list != NULL)
            forget_in_chunk(cs, c, list, addr, end);
    }
}

/* ---- release -------------------------------------------------------------------- */

static void publish_accesses(rp_csrules *cs, cs_lock *l, const cs_open *o,
                             const rp_vc *released)
{
    if (o->log.n == 0)
        return;
    cs_clock *shared = clock_new(released);
    for (uint32_t i = 0; i < o->log.n; i++) {
        const rp_cs_logged *a = &o->log.entries[i];
        if (a->size == 0)
            continue;
        uint64_t first = a->addr >> RP_SHADOW_GRANULE_BITS;
        uint64_t last = (a->addr + (a->size - 1)) >> RP_SHADOW_GRANULE_BITS;
        for (uint64_t g = first;; g++) {
            publish_granule(cs, l, g, shadow_granule_mask(g, a->addr, a->size), a->is_write,
                            shared);
            if (g == last)
                break;
        }
    }
    clock_drop(shared);
}

static void close_history_entry(cs_lock *l, rp_tid_t tid, const rp_vc *released,
                                uint64_t rel_id)
{
    cs_history *h = &track_of(l, tid)->history;
    for (uint32_t i = h->n; i-- > 0;) {
        if (!h->entries[i].released) {
            vc_copy(&h->entries[i].rel, released);
            h->entries[i].released = true;
            if (h->spans != NULL)
                h->spans[i].hi = rel_id;
            return;
        }
    }
}

/* A closed section's log becomes the thread's spare if it is larger:
 * sections that access much (7-Zip's match finder holds its lock over
 * whole blocks) would otherwise grow a log to the bound and free it
 * again every time, most of the run spent in the allocator and in page
 * faults. */
static void keep_spare(cs_thread *th, rp_cs_log *log)
{
    if (log->cap <= th->spare.cap) {
        cslog_free(log);
        return;
    }
    cslog_free(&th->spare);
    th->spare.entries = log->entries;
    th->spare.cap = log->cap;
    th->spare.n = 0;
    th->spare.full = false;
}

static void close_open(cs_thread *th, uint32_t i)
{
    keep_spare(th, &th->open[i].log);
    for (uint32_t j = i + 1; j < th->n; j++)
        th->open[j - 1] = th->open[j];
    th->n--;
}

void csrules_release(rp_csrules *cs, rp_tid_t tid, uint64_t lock, const rp_vc *released)
{
    csrules_release_id(cs, tid, lock, released, 0);
}

void csrules_release_id(rp_csrules *cs, rp_tid_t tid, uint64_t lock, const rp_vc *released,
                        uint64_t rel_id)
{
    cs_thread *th = thread_of(cs, tid);
    uint32_t i = th->n;
    while (i > 0 && th->open[i - 1].lock != lock)
        i--;
    if (i == 0)
        return;
    cs_lock *l = lock_of(cs, lock);
    publish_accesses(cs, l, &th->open[i - 1], released);
    if (cs->rule_b)
        close_history_entry(l, tid, released, rel_id);
    close_open(th, i - 1);
    enforce_byte_bound(cs);
}

/* ---- threads -------------------------------------------------------------------- */

/* A thread `to` whose clocks now hold `from`'s (a fork, a join) has
 * consumed what `from` consumed: the sections it passed are already in
 * `from`'s order clocks, so `to` would join them to no effect.  Its own
 * history it consumes only with own_sections (sdp). */
typedef struct inherit_ctx {
    rp_csrules *cs;
    rp_tid_t from, to;
    bool own_sections;
} inherit_ctx;

static void inherit_consumption(void *ctx, uint64_t key, void *value)
{
    const inherit_ctx *f = ctx;
    cs_lock *l = value;
    (void)key;
    /* Where `from` consumed nothing (a lock the program's main thread
     * took once, at start, among thousands), `to` gets no track: making
     * one per lock at every fork cost O(locks) per thread. */
    const cs_track *from = find_track(l, f->from);
    if (from == NULL || from->n_progress == 0)
        return;
    cs_track *to = thread_track(f->cs, l, f->to, true);
    from = find_track(l, f->from);
    for (rp_tid_t u = 0; u < from->n_progress; u++) {
        if (u == f->to || (u == f->from && !f->own_sections)
            || (from->progress[u].next == 0 && from->progress[u].lag_acq == NO_LAG))
            continue;
        cs_progress *mine = progress_of(to, u);
        if (mine->next <= from->progress[u].next)
            *mine = from->progress[u];
    }
}

static void inherit(rp_csrules *cs, rp_tid_t from, rp_tid_t to)
{
    thread_of(cs, from > to ? from : to);
    if (cs->rule_b) {
        inherit_ctx f = { cs, from, to, cs->own_sections };
        for_each_lock_of(cs, from, true, inherit_consumption, &f);
    }
}

void csrules_fork(rp_csrules *cs, rp_tid_t parent, rp_tid_t child)
{
    inherit(cs, parent, child);
}

typedef struct end_ctx {
    rp_csrules *cs;
    rp_tid_t tid;
} end_ctx;

/* The ended thread consumes nothing more, and its own history, which it
 * may have held back itself (sdp), grows no more: what the others have
 * consumed of it goes now.  The other histories it held back are tried
 * again at their next section. */
static void drop_ended_history(void *ctx, uint64_t key, void *value)
{
    const end_ctx *end = ctx;
    cs_lock *l = value;
    (void)key;
    cs_track *tr = find_track(l, end->tid);
    if (tr == NULL)
        return;
    for (uint32_t at = 0; at < l->n_tracks; at++)
        l->tracks[at].history.trim_at = 0;
    cs_history *h = &tr->history;
    if (end->cs->limits != NULL && h->n > 0)
        drop_prefix(end->cs, h, min_consumed(end->cs, l, end->tid));
}

static void free_progress(void *ctx, uint64_t key, void *value)
{
    const end_ctx *end = ctx;
    cs_lock *l = value;
    (void)key;
    cs_track *tr = find_track(l, end->tid);
    if (tr == NULL)
        return;
    rp_free(tr->progress);
    tr->progress = NULL;
    tr->n_progress = tr->cap_progress = 0;
}

static void forget_progress(rp_csrules *cs, rp_tid_t tid)
{
    end_ctx end = { cs, tid };
    for_each_lock_of(cs, tid, true, free_progress, &end);
}

/* An exited thread's progress stays for a join, for the last
 * CS_KEPT_EXITED such threads: a detached one is never joined. */
static void keep_for_join(rp_csrules *cs, rp_tid_t tid)
{
    rp_tid_t *slot = &cs->exited[cs->n_exited++ % CS_KEPT_EXITED];
    if (cs->n_exited > CS_KEPT_EXITED)
        forget_progress(cs, *slot);
    *slot = tid;
}

/* What every live thread has consumed of an ended producer's sections
 * goes, and once that is all of them, the summary's clock too: no live
 * thread lags behind it, and the threads started later inherit a live
 * one's consumption.  (Without limits nothing is dropped, rp_csrules.h.)
 * True if nothing of it is left. */
static bool retire_consumed(rp_csrules *cs, cs_lock *l, rp_tid_t producer)
{
    cs_track *tr = find_track(l, producer);
    if (tr == NULL)
        return true;
    cs_history *h = &tr->history;
    uint32_t upto = min_consumed(cs, l, producer);
    drop_prefix(cs, h, upto);
    if (h->n > 0 || upto < h->base)
        return false;
    vc_free(&h->summary.rel);
    return true;
}

/* retire_consumed in every lock where the producer has a track; true if
 * nothing of it is left anywhere. */
static bool retire_thread(rp_csrules *cs, rp_tid_t producer)
{
    const cs_lock_list *locks = &thread_of(cs, producer)->locks;
    bool retired = true;
    for (uint32_t i = 0; i < locks->n; i++)
        retired &= retire_consumed(cs, locks->locks[i], producer);
    return retired;
}

/* A thread that ended adds no section, so only the consumers can free its
 * history: every live thread consuming it (rule b), or the last laggard
 * ending or being joined (its joiner takes over its consumption).  The
 * ended threads with sections left are tried again once as many more
 * threads have ended (amortised: O(threads) per ended thread and lock). */
static void retire_ended(rp_csrules *cs, rp_tid_t tid)
{
    if (cs->limits == NULL || !cs->rule_b)
        return;
    cs->ended = rp_array_reserve("rp.csrules.ended", cs->ended, cs->n_ended, &cs->cap_ended,
                                 sizeof(rp_tid_t));
    cs->ended[cs->n_ended++] = tid;
    if (cs->n_ended < cs->retry_at)
        return;
    uint32_t n = 0;
    for (uint32_t i = 0; i < cs->n_ended; i++)
        if (!retire_thread(cs, cs->ended[i]))
            cs->ended[n++] = cs->ended[i];
    cs->n_ended = n;
    cs->retry_at = 2 * n + 8;
}

void csrules_thread_end(rp_csrules *cs, rp_tid_t tid)
{
    cs_thread *th = thread_of(cs, tid);
    if (th->ended)
        return;
    while (th->n > 0)
        close_open(th, th->n - 1);
    rp_free(th->open);
    th->open = NULL;
    th->cap = 0;
    cslog_free(&th->spare);
    th->ended = true;
    keep_for_join(cs, tid);
    end_ctx end = { cs, tid };
    for_each_lock_of(cs, tid, false, drop_ended_history, &end);
    retire_ended(cs, tid);
}

void csrules_join(rp_csrules *cs, rp_tid_t joiner, rp_tid_t joined)
{
    if (cs->clocks_of == NULL)
        inherit(cs, joined, joiner);
}

void csrules_thread_gone(rp_csrules *cs, rp_tid_t tid)
{
    csrules_thread_end(cs, tid);
    forget_progress(cs, tid);
}

/* ---- life cycle --------------------------------------------------------------- */

rp_csrules *csrules_create(bool rule_b)
{
    rp_csrules *cs = rp_calloc("rp.csrules", 1, sizeof *cs);
    cs->rule_b = rule_b;
    cs->limits = configured_limits;
    u64map_init(&cs->locks);
    u64map_init(&cs->chunk_locks);
    for (uint32_t k = 0; k < CS_GRANULE_CLASSES; k++) {
        cs->granule_slabs[k].size = sizeof(cs_granule) + ((size_t)1 << k) * sizeof(cs_part);
        cs->granule_slabs[k].cost_centre = "rp.csrules.granule";
    }
    return cs;
}

rp_csrules *csrules_create_histories(void)
{
    rp_csrules *cs = csrules_create(true);
    cs->own_sections = true;
    return cs;
}

rp_cs_limits *csrules_limits(const rp_csrules *cs)
{
    return cs->limits;
}

static void count_sections(void *ctx, uint64_t key, void *value)
{
    uint64_t *n = ctx;
    const cs_lock *l = value;
    (void)key;
    for (uint32_t t = 0; t < l->n_tracks; t++)
        *n += l->tracks[t].history.n + (l->tracks[t].history.summary.rel.len > 0);
}

uint64_t csrules_kept_sections(const rp_csrules *cs)
{
    uint64_t n = 0;
    u64map_for_each(&cs->locks, count_sections, &n);
    return n;
}

uint64_t csrules_kept_bytes(const rp_csrules *cs)
{
    return cs->n_bytes;
}

void csrules_kept(const rp_csrules *cs, rp_history_stats *stats)
{
    stats->sections += csrules_kept_sections(cs);
    stats->peak_sections += cs->peak_sections;
    stats->bytes += cs->n_bytes;
}

static void free_history(cs_history *h)
{
    for (uint32_t i = 0; i < h->n; i++)
        vc_free(&h->entries[i].rel);
    rp_free(h->entries);
    rp_free(h->spans);
    if (h->base > 0)
        vc_free(&h->summary.rel);
}

static void free_lock(void *ctx, uint64_t key, void *value)
{
    cs_lock *l = value;
    (void)key;
    free_granules(ctx, l);
    for (uint32_t t = 0; t < l->n_tracks; t++) {
        free_history(&l->tracks[t].history);
        rp_free(l->tracks[t].progress);
    }
    rp_free(l->tracks);
    u64map_free(&l->track_index);
    rp_free(l);
}

static void free_lock_list(void *ctx, uint64_t key, void *value)
{
    cs_lock_list *list = value;
    (void)ctx;
    (void)key;
    rp_free(list->locks);
    rp_free(list);
}

void csrules_destroy(rp_csrules *cs)
{
    if (cs == NULL)
        return;
    u64map_for_each(&cs->locks, free_lock, cs);
    u64map_free(&cs->locks);
    u64map_for_each(&cs->chunk_locks, free_lock_list, NULL);
    u64map_free(&cs->chunk_locks);
    for (uint32_t t = 0; t < cs->n_threads; t++) {
        for (uint32_t i = 0; i < cs->threads[t].n; i++)
            cslog_free(&cs->threads[t].open[i].log);
        cslog_free(&cs->threads[t].spare);
        rp_free(cs->threads[t].open);
        rp_free(cs->threads[t].locks.locks);
        rp_free(cs->threads[t].consumes.locks);
    }
    rp_free(cs->threads);
    rp_free(cs->ended);
    for (uint32_t k = 0; k < CS_GRANULE_CLASSES; k++)
        slab_fini(&cs->granule_slabs[k]);
    rp_free(cs);
}
