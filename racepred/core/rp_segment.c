/* rp_segment.c — the offline log (rp_offline.h) in bounded memory: its
 * analysis in segments, the choice of cuts, pinned locks, the spill of the
 * events that leave memory and the count of unchecked pairs (rp_segment.h
 * says why each is sound).
 */
#include "rp_segment.h"

#include "rp_array.h"
#include "rp_offline.h"
#include "rp_shim.h"

static uint32_t max_events = RP_OFFLINE_MAX_EVENTS;
static uint64_t unchecked_total;
static rp_offline_observer observer;
static void *observer_ctx;

void offline_set_max_events(uint32_t max)
{
    if (max > RP_OFFLINE_MAX_EVENTS_LIMIT)
        max = RP_OFFLINE_MAX_EVENTS_LIMIT;
    max_events = max < RP_OFFLINE_MIN_EVENTS ? RP_OFFLINE_MIN_EVENTS : max;
}

uint32_t offline_max_events(void)
{
    return max_events;
}

/* ---- lock holders ------------------------------------------------------------- */

typedef struct tid_set {
    rp_tid_t *tid;
    uint32_t n, cap;
    bool shared;            /* holders: read side held */
} tid_set;

static bool tid_set_has(const tid_set *s, rp_tid_t t)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->tid[i] == t)
            return true;
    return false;
}

static void tid_set_add(tid_set *s, rp_tid_t t)
{
    s->tid = rp_array_reserve_from("rp.segment.tids", s->tid, s->n, &s->cap, sizeof *s->tid, 2);
    s->tid[s->n++] = t;
}

static bool tid_set_remove(tid_set *s, rp_tid_t t)
{
    for (uint32_t i = 0; i < s->n; i++)
        if (s->tid[i] == t) {
            s->tid[i] = s->tid[--s->n];
            return true;
        }
    return false;
}

static void free_tid_set(void *ctx, uint64_t key, void *value)
{
    tid_set *s = value;
    (void)ctx;
    (void)key;
    rp_free(s->tid);
    rp_free(s);
}

static tid_set *holders_of(rp_u64map *locks, uint64_t lock)
{
    tid_set *h = u64map_get(locks, lock);
    if (h == NULL) {
        h = rp_calloc("rp.segment.holders", 1, sizeof *h);
        u64map_put(locks, lock, h);
    }
    return h;
}

/* Replays one event on the lock state (lock -> holders); returns how the
 * number of held locks changed.  An exclusive acquire takes the lock from
 * any holder, as the trace readers allow (a missed unlock). */
static int lock_step(rp_u64map *locks, const rp_event *e)
{
    tid_set *h;
    bool was_held;
    switch (e->kind) {
    case RP_EV_ACQUIRE:
    case RP_EV_ACQUIRE_SHARED:
        h = holders_of(locks, e->obj);
        was_held = h->n > 0;
        if (e->kind == RP_EV_ACQUIRE || !h->shared)
            h->n = 0;
        h->shared = e->kind == RP_EV_ACQUIRE_SHARED;
        if (!tid_set_has(h, e->tid))
            tid_set_add(h, e->tid);
        return was_held ? 0 : 1;
    case RP_EV_RELEASE:
    case RP_EV_RELEASE_SHARED:
        h = u64map_get(locks, e->obj);
        if (h == NULL || !tid_set_remove(h, e->tid))
            return 0;
        return h->n == 0 ? -1 : 0;
    default:
        return 0;
    }
}

static void locks_clear(rp_u64map *locks)
{
    u64map_for_each(locks, free_tid_set, NULL);
    u64map_free(locks);
    u64map_init(locks);
}

/* ---- pins ---------------------------------------------------------------------- */

typedef struct pin {
    tid_set holders;        /* synthetic acquires at the segment's start */
    tid_set receivers;      /* threads given the synthetic recv */
} pin;

static void free_pin(void *ctx, uint64_t key, void *value)
{
    pin *p = value;
    (void)ctx;
    (void)key;
    rp_free(p->holders.tid);
    rp_free(p->receivers.tid);
    rp_free(p);
}

static void pins_clear(rp_segments *s)
{
    u64map_for_each(&s->pins, free_pin, NULL);
    u64map_free(&s->pins);
    u64map_init(&s->pins);
}

static rp_event synthetic(rp_event_kind kind, rp_tid_t tid, uint64_t obj)
{
    rp_event e;
    rp_memset(&e, 0, sizeof e);
    e.kind = (uint8_t)kind;
    e.tid = tid;
    e.obj = obj;
    return e;
}

/* Whether e, an acquire of a pinned lock by a thread other than its sole
 * holder, needs the pin's recv first (once per thread): sets *recv.  A
 * shared holder needs it too: its exclusive acquire must wait for the
 * other holders' releases. */
static bool needs_pin_recv(rp_segments *s, const rp_event *e, rp_event *recv)
{
    if (s->pins.count == 0 || (e->kind != RP_EV_ACQUIRE && e->kind != RP_EV_ACQUIRE_SHARED))
        return false;
    pin *p = u64map_get(&s->pins, e->obj);
    if (p == NULL || (p->holders.n == 1 && p->holders.tid[0] == e->tid) ||
        tid_set_has(&p->receivers, e->tid))
        return false;
    tid_set_add(&p->receivers, e->tid);
    *recv = synthetic(RP_EV_SYNC_RECV, e->tid, RP_PIN_OBJ(e->obj));
    return true;
}

/* ---- the log array ----------------------------------------------------------- */

static void push(rp_offline_log *log, const rp_event *e)
{
    if (log->n == log->cap) {
        log->cap = log->cap == 0 ? 1024 : 2 * log->cap;
        if (log->cap > log->max && log->n < log->max)
            log->cap = log->max;
        log->ev = rp_realloc("rp.offline.log", log->ev, (size_t)log->cap * sizeof *log->ev);
    }
    log->ev[log->n++] = *e;
}

/* The new segment: a synthetic acquire and send per (held lock, holder),
 * then the events from the cut without the old synthetic ones, with the
 * recvs of the new pins. */
typedef struct pin_ctx {
    rp_offline_log *log;
    rp_segments *seg;
} pin_ctx;

static void start_pin(void *ctx, uint64_t lock, void *value)
{
    pin_ctx *pc = ctx;
    tid_set *h = value;
    if (h->n == 0)
        return;
    pin *p = rp_calloc("rp.segment.pin", 1, sizeof *p);
    for (uint32_t i = 0; i < h->n; i++) {
        rp_event acq = synthetic(h->shared ? RP_EV_ACQUIRE_SHARED : RP_EV_ACQUIRE, h->tid[i], lock);
        rp_event send = synthetic(RP_EV_SYNC_SEND, h->tid[i], RP_PIN_OBJ(lock));
        push(pc->log, &acq);
        push(pc->log, &send);
        tid_set_add(&p->holders, h->tid[i]);
    }
    u64map_put(&pc->seg->pins, lock, p);
}

static void rebuild(rp_offline_log *log, uint32_t cut, rp_u64map *held)
{
    rp_event *old = log->ev;
    uint32_t n = log->n;
    pin_ctx pc = { log, log->seg };
    log->ev = NULL;
    log->n = log->cap = log->real = 0;
    pins_clear(log->seg);
    u64map_for_each(held, start_pin, &pc);
    for (uint32_t i = cut; i < n; i++) {
        rp_event recv;
        if (old[i].id == 0)
            continue;
        if (needs_pin_recv(log->seg, &old[i], &recv))
            push(log, &recv);
        push(log, &old[i]);
        log->real++;
    }
    rp_free(old);
}

/* ---- unchecked pairs ------------------------------------------------------------ */

#define GRANULE_SHIFT 3

/* The bytes of [lo, hi) inside granule g, as a mask. */
static uint8_t granule_mask(uint64_t g, uint64_t lo, uint64_t hi)
{
    uint64_t first = g << GRANULE_SHIFT, last = first + (1u << GRANULE_SHIFT);
    uint64_t from = lo > first ? lo : first, to = hi < last ? hi : last;
    if (from >= to)
        return 0;
    return (uint8_t)(((1u << (to - from)) - 1) << (from - first));
}

static uint32_t new_use(rp_segments *s)
{
    uint32_t k;
    if (s->free_use != 0) {
        k = s->free_use - 1;
        s->free_use = s->uses[k].next;
    } else {
        s->uses = rp_array_reserve_from("rp.segment.uses", s->uses, s->n_uses, &s->cap_uses,
                                        sizeof *s->uses, 256);
        k = s->n_uses++;
    }
    rp_memset(&s->uses[k], 0, sizeof s->uses[k]);
    return k;
}

static void release_use(rp_segments *s, uint32_t k)
{
    s->uses[k].next = s->free_use;
    s->free_use = k + 1;
}

/* A discarded access: its thread's record of each granule it touches. */
static void add_discarded(rp_segments *s, const rp_event *e)
{
    uint64_t hi = e->obj + e->size;
    for (uint64_t g = e->obj >> GRANULE_SHIFT; g <= (hi - 1) >> GRANULE_SHIFT; g++) {
        uint32_t head = (uint32_t)(uintptr_t)u64map_get(&s->granules, g), k = head;
        while (k != 0 && s->uses[k - 1].tid != e->tid)
            k = s->uses[k - 1].next;
        if (k == 0) {
            k = new_use(s) + 1;
            s->uses[k - 1].tid = e->tid;
            s->uses[k - 1].next = head;
            u64map_put(&s->granules, g, (void *)(uintptr_t)k);
        }
        rp_granule_use *u = &s->uses[k - 1];
        uint8_t mask = granule_mask(g, e->obj, hi);
        if (e->kind == RP_EV_WRITE) {
            u->writes++;
            u->written_bytes |= mask;
        } else {
            u->reads++;
            u->read_bytes |= mask;
        }
    }
}

/* Discarded accesses of other threads conflicting with e on a byte of a
 * shared granule. */
static uint64_t count_conflicts(const rp_segments *s, const rp_event *e)
{
    uint64_t hi = e->obj + e->size, count = 0;
    for (uint64_t g = e->obj >> GRANULE_SHIFT; g <= (hi - 1) >> GRANULE_SHIFT; g++) {
        uint8_t mask = granule_mask(g, e->obj, hi);
        for (uint32_t k = (uint32_t)(uintptr_t)u64map_get(&s->granules, g); k != 0;
             k = s->uses[k - 1].next) {
            const rp_granule_use *u = &s->uses[k - 1];
            if (u->tid == e->tid)
                continue;
            if (u->written_bytes & mask)
                count += u->writes;
            if (e->kind == RP_EV_WRITE && (u->read_bytes & mask))
                count += u->reads;
        }
    }
    return count;
}

static void free_chain(void *ctx, uint64_t key, void *value)
{
    rp_segments *s = ctx;
    (void)key;
    for (uint32_t k = (uint32_t)(uintptr_t)value; k != 0;) {
        uint32_t next = s->uses[k - 1].next;
        release_use(s, k - 1);
        k = next;
    }
}

/* Clears the bytes of mask in granule g; drops records left empty. */
static void forget_bytes(rp_segments *s, uint64_t g, uint8_t mask)
{
    uint32_t head = (uint32_t)(uintptr_t)u64map_get(&s->granules, g);
    uint32_t *link = &head;
    while (*link != 0) {
        uint32_t k = *link;
        rp_granule_use *u = &s->uses[k - 1];
        u->read_bytes &= (uint8_t)~mask;
        u->written_bytes &= (uint8_t)~mask;
        if (u->read_bytes == 0 && u->written_bytes == 0) {
            *link = u->next;
            release_use(s, k - 1);
        } else {
            link = &u->next;
        }
    }
    if (head == 0)
        u64map_remove(&s->granules, g);
    else
        u64map_put(&s->granules, g, (void *)(uintptr_t)head);
}

/* A forget refreshes its bytes: no discarded access before it pairs with
 * a later one there.  Whole granules go through the map's range removal,
 * so a forget of gigabytes costs what the map holds. */
static void forget_range(rp_segments *s, uint64_t lo, uint64_t size)
{
    if (size == 0 || s->granules.count == 0)
        return;
    uint64_t hi = lo + size, g_lo = lo >> GRANULE_SHIFT, g_hi = (hi - 1) >> GRANULE_SHIFT;
    uint64_t full_lo = (lo + (1u << GRANULE_SHIFT) - 1) >> GRANULE_SHIFT;
    uint64_t full_hi = hi >> GRANULE_SHIFT;          /* exclusive */
    if (g_lo < full_lo || g_lo >= full_hi)
        forget_bytes(s, g_lo, granule_mask(g_lo, lo, hi));
    if (g_hi != g_lo && g_hi >= full_hi)
        forget_bytes(s, g_hi, granule_mask(g_hi, lo, hi));
    if (full_lo < full_hi)
        u64map_remove_range(&s->granules, full_lo, full_hi - full_lo, free_chain, s);
}

/* Counts the unchecked pairs of the new events ev[from .. n): the forgets
 * of the segment before them refresh first. */
static void count_unchecked(rp_segments *s, const rp_event *ev, uint32_t n, uint32_t from)
{
    for (uint32_t i = 0; i < n && s->granules.count != 0; i++) {
        if (ev[i].kind == RP_EV_FORGET)
            forget_range(s, ev[i].obj, ev[i].size);
        else if (i >= from && rp_event_is_access(&ev[i]) && ev[i].size != 0)
            s->unchecked += count_conflicts(s, &ev[i]);
    }
}

/* ev[0 .. cut) leave memory: counted, and spilled. */
static void discard(rp_segments *s, const rp_event *ev, uint32_t cut)
{
    for (uint32_t i = 0; i < cut; i++) {
        if (ev[i].kind == RP_EV_FORGET)
            forget_range(s, ev[i].obj, ev[i].size);
        else if (rp_event_is_access(&ev[i]) && ev[i].size != 0)
            add_discarded(s, &ev[i]);
    }
    spill_events(&s->spill, ev, cut);
}

/* ---- cuts ---------------------------------------------------------------------- */

/* The latest position in [lo, hi] where no lock is held (locks left
 * empty), else hi with the locks held there in *locks. */
static uint32_t choose_cut(const rp_event *ev, uint32_t lo, uint32_t hi, rp_u64map *locks)
{
    int held = 0;
    uint32_t free_at = UINT32_MAX;
    for (uint32_t i = 0; i < hi; i++) {
        if (i >= lo && held == 0)
            free_at = i;
        held += lock_step(locks, &ev[i]);
    }
    if (held == 0)
        return hi;
    if (free_at != UINT32_MAX) {
        locks_clear(locks);
        return free_at;
    }
    return hi;
}

/* The position before which the last `keep` real events start. */
static uint32_t keep_from(const rp_offline_log *log, uint32_t keep)
{
    uint32_t i = log->n;
    while (i > 0 && keep > 0)
        keep -= log->ev[--i].id != 0;
    return i;
}

void offline_set_observer(rp_offline_observer fn, void *ctx)
{
    observer = fn;
    observer_ctx = ctx;
}

static void analyse_new(rp_offline_log *log)
{
    if (observer != NULL)
        observer(observer_ctx, log->ev, log->n, log->from);
    log->analyse(log->ctx, log->ev, log->n, log->from);
    for (uint32_t i = log->from; i < log->n; i++)
        log->analysed += log->ev[i].id != 0;
    if (log->seg != NULL)
        count_unchecked(log->seg, log->ev, log->n, log->from);
    log->from = log->n;
}

static void cut(rp_offline_log *log)
{
    if (log->seg == NULL) {
        log->seg = rp_calloc("rp.segment", 1, sizeof *log->seg);
        u64map_init(&log->seg->pins);
        u64map_init(&log->seg->granules);
        spill_init(&log->seg->spill);
    }
    analyse_new(log);
    rp_segments *s = log->seg;
    uint32_t hi = keep_from(log, log->max / 2), lo = hi / RP_CUT_MIN_SHARE;
    rp_u64map locks;
    u64map_init(&locks);
    uint32_t c = choose_cut(log->ev, lo, hi, &locks);
    discard(s, log->ev, c);
    rebuild(log, c, &locks);
    s->cuts++;
    s->pinned_cuts += s->pins.count != 0;
    log->from = log->n;
    locks_clear(&locks);
    u64map_free(&locks);
}

/* ---- the log's interface ------------------------------------------------------- */

void offline_log_init(rp_offline_log *log, rp_offline_analyse_fn analyse, void *ctx)
{
    rp_memset(log, 0, sizeof *log);
    log->analyse = analyse;
    log->ctx = ctx;
}

void offline_log_append(rp_offline_log *log, const rp_event *e)
{
    rp_event recv;
    if (log->max == 0)
        log->max = max_events;
    if (log->real == log->max)
        cut(log);
    if (log->seg != NULL && needs_pin_recv(log->seg, e, &recv))
        push(log, &recv);
    push(log, e);
    log->real++;
}

static void print_summary(const rp_offline_log *log, const char *name)
{
    const rp_segments *s = log->seg;
    const rp_spill *sp = &s->spill;
    rp_message("%s: the event log held at most %u events (--offline-events): %llu events "
               "analysed in %llu segments; %llu candidate pairs unchecked (accesses farther "
               "apart than the %u-event overlap)\n",
               name, (unsigned)log->max, (unsigned long long)log->analysed,
               (unsigned long long)s->cuts + 1, (unsigned long long)s->unchecked,
               (unsigned)(log->max / 2));
    if (s->pinned_cuts != 0)
        rp_message("%s: %llu of the cuts were inside critical sections held across them: "
                   "a pair whose witness must drop such a section is not found\n",
                   name, (unsigned long long)s->pinned_cuts);
    if (sp->stopped)
        rp_message("%s: %llu of the %llu events that left memory were spilled before the "
                   "spill file reached its bound or failed (--offline-spill)\n",
                   name, (unsigned long long)sp->written, (unsigned long long)sp->events);
}

void offline_log_finish(rp_offline_log *log, const char *name)
{
    if (log->seg == NULL || log->from < log->n)
        analyse_new(log);
    if (log->seg == NULL)
        return;
    print_summary(log, name);
    unchecked_total += log->seg->unchecked;
}

uint64_t offline_unchecked_total(void)
{
    return unchecked_total;
}

void offline_log_free(rp_offline_log *log)
{
    rp_free(log->ev);
    log->ev = NULL;
    log->n = log->cap = log->real = 0;
    if (log->seg == NULL)
        return;
    pins_clear(log->seg);
    u64map_free(&log->seg->pins);
    u64map_for_each(&log->seg->granules, free_chain, log->seg);
    u64map_free(&log->seg->granules);
    rp_free(log->seg->uses);
    spill_free(&log->seg->spill);
    rp_free(log->seg);
    log->seg = NULL;
}
