/* rp_witness.c — the witness validator and the compact witness format
 * (rp_witness.h).
 *
 * The checker replays the witness event by event against a small model of
 * the program state: per thread the number of its events executed so far,
 * per lock its exclusive holder and its shared holders, per byte the last
 * write executed.  Everything the model compares against (thread positions,
 * forks, the observed last writer of every read byte, the sends before each
 * recv) is computed once from the log in wcheck_create, independently of
 * any witness construction.  After a check, only the state the witness
 * touched is reset, so a check costs O(|witness| * access size).
 */
#include "rp_witness.h"

#include "rp_array.h"
#include "rp_shim.h"
#include "rp_sort.h"
#include "rp_u64map.h"

#define NONE RP_WITNESS_NONE

/* ---- witness sequences ---------------------------------------------------- */

void witness_init(rp_witness *w)
{
    w->e1 = w->e2 = NONE;
    w->events = NULL;
    w->n = w->cap = 0;
}

void witness_free(rp_witness *w)
{
    rp_free(w->events);
    witness_init(w);
}

void witness_clear(rp_witness *w)
{
    w->n = 0;
}

void witness_push(rp_witness *w, uint32_t event)
{
    w->events = rp_array_reserve_from("rp.witness", w->events, w->n, &w->cap,
                                      sizeof *w->events, 64);
    w->events[w->n++] = event;
}

static const char *const status_names[RP_WITNESS_STATUS_COUNT] = {
    [RP_WITNESS_OK] = "ok",
    [RP_WITNESS_BAD_PAIR] = "bad pair",
    [RP_WITNESS_BAD_INDEX] = "bad index",
    [RP_WITNESS_CONTAINS_PAIR] = "contains the pair",
    [RP_WITNESS_NOT_PREFIX] = "not a prefix",
    [RP_WITNESS_NOT_NEXT] = "access not next",
    [RP_WITNESS_BEFORE_FORK] = "before fork",
    [RP_WITNESS_EARLY_JOIN] = "early join",
    [RP_WITNESS_LOCK_HELD] = "lock held",
    [RP_WITNESS_LOCK_NOT_HELD] = "lock not held",
    [RP_WITNESS_SEND_MISSING] = "send missing",
    [RP_WITNESS_LAST_WRITER] = "last writer changed",
    [RP_WITNESS_NOT_FIXED] = "fixed start moved",
};

const char *rp_witness_status_name(rp_witness_status status)
{
    return (unsigned)status < RP_WITNESS_STATUS_COUNT ? status_names[status] : "unknown";
}

/* ---- a tiny string builder (no libc in the core) -------------------------- */

typedef struct sbuf {
    char *buf;
    size_t cap, len;    /* len counts what the full text needs */
} sbuf;

static void sb_char(sbuf *s, char c)
{
    if (s->len + 1 < s->cap) {
        s->buf[s->len] = c;
        s->buf[s->len + 1] = '\0';
    }
    s->len++;
}

static void sb_str(sbuf *s, const char *str)
{
    while (*str != '\0')
        sb_char(s, *str++);
}

static void sb_u64(sbuf *s, uint64_t v)
{
    char digits[24];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    while (n > 0)
        sb_char(s, digits[--n]);
}

static void sb_hex(sbuf *s, uint64_t v)
{
    char digits[20];
    int n = 0;
    do {
        digits[n++] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v != 0);
    sb_str(s, "0x");
    while (n > 0)
        sb_char(s, digits[--n]);
}

static void sb_init(sbuf *s, char *buf, size_t cap)
{
    s->buf = buf;
    s->cap = cap;
    s->len = 0;
    if (cap != 0)
        buf[0] = '\0';
}

/* ---- the checker's precomputed facts -------------------------------------- */

struct rp_wcheck {
    const rp_event *log;
    uint32_t n;
    uint32_t n_threads;
    uint32_t n_locks;
    uint32_t *tpos;         /* per event: position in its thread */
    uint32_t *tcount;       /* per thread: number of events */
    uint32_t *thread_off;   /* per thread + 1: start in thread_ev */
    uint32_t *thread_ev;    /* events grouped by thread, program order */
    uint32_t *fork_at;      /* per thread: its fork event or NONE */
    uint32_t *lock_id;      /* per event: dense lock id (acq/rel kinds) */
    uint32_t *dep_off;      /* per event + 1: start of its facts in deps */
    uint32_t *deps;         /* reads: observed writer of each byte (or
                               NONE); recvs: the last send on obj of each
                               thread before it */
    uint64_t *touched;      /* bytes reads and writes touch, sorted: a
                               forget is applied to these only */
    size_t n_touched;
    uint32_t n_fixed;       /* log[0 .. n_fixed) first, in log order */
    /* replay state, reset after every check */
    uint32_t *next;         /* per thread */
    uint8_t *in_w;          /* per event */
    uint32_t *holder;       /* per lock: exclusive holder tid or NONE */
    uint32_t *holder_acq;   /* per lock: the holder's acquire */
    uint32_t *shared_total; /* per lock: shared holds */
    uint32_t *shared_depth; /* per lock * n_threads (allocated on demand) */
    rp_u64map writers;      /* byte -> last writer + 1 in the witness */
    const uint32_t *base;   /* witness_check_after: the base cone, or NULL */
};

static bool is_lock_kind(uint8_t kind)
{
    return kind == RP_EV_ACQUIRE || kind == RP_EV_RELEASE || kind == RP_EV_ACQUIRE_SHARED ||
           kind == RP_EV_RELEASE_SHARED;
}

static uint32_t max_tid(const rp_event *log, uint32_t n)
{
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (log[i].tid > m)
            m = log[i].tid;
        if ((log[i].kind == RP_EV_FORK || log[i].kind == RP_EV_JOIN) && log[i].obj > m)
            m = (uint32_t)log[i].obj;
    }
    return m;
}

static void *dense_id(rp_u64map *m, uint64_t key, uint32_t *count)
{
    void *v = u64map_get(m, key);
    if (v == NULL) {
        v = (void *)(uintptr_t)(++*count);
        u64map_put(m, key, v);
    }
    return v;
}

typedef struct dep_builder {
    uint32_t *deps;
    uint32_t n, cap;
} dep_builder;

static void dep_push(dep_builder *b, uint32_t v)
{
    b->deps = rp_array_reserve_from("rp.wcheck.deps", b->deps, b->n, &b->cap, sizeof *b->deps, 256);
    b->deps[b->n++] = v;
}

/* Observed last writers of read bytes, sends before recvs. */
static void compute_deps(rp_wcheck *c)
{
    rp_u64map sends;
    rp_lastw writers;
    dep_builder b = { NULL, 0, 0 };
    c->touched = touched_bytes(c->log, c->n, &c->n_touched);
    lastw_init(&writers, c->touched, c->n_touched);
    u64map_init(&sends);
    c->dep_off = rp_malloc("rp.wcheck", ((size_t)c->n + 1) * sizeof *c->dep_off);
    for (uint32_t i = 0; i < c->n; i++) {
        const rp_event *e = &c->log[i];
        c->dep_off[i] = b.n;
        if (e->kind == RP_EV_READ) {
            const uint32_t *w = lastw_of(&writers, e->obj);
            for (uint32_t k = 0; k < e->size; k++)
                dep_push(&b, w[k] == 0 ? NONE : w[k] - 1);
        } else if (e->kind == RP_EV_WRITE || e->kind == RP_EV_FORGET) {
            lastw_write(&writers, e->obj, e->size, i);
        } else if (e->kind == RP_EV_SYNC_SEND || e->kind == RP_EV_SYNC_RECV) {
            uint32_t *last = u64map_get(&sends, e->obj);
            if (last == NULL) {
                last = rp_malloc("rp.wcheck.sends", c->n_threads * sizeof *last);
                for (uint32_t t = 0; t < c->n_threads; t++)
                    last[t] = NONE;
                u64map_put(&sends, e->obj, last);
            }
            if (e->kind == RP_EV_SYNC_SEND)
                last[e->tid] = i;
            else
                for (uint32_t t = 0; t < c->n_threads; t++)
                    if (last[t] != NONE)
                        dep_push(&b, last[t]);
        }
    }
    c->dep_off[c->n] = b.n;
    c->deps = b.deps;
    lastw_free(&writers);
    u64map_free_with_values(&sends);
}

rp_wcheck *wcheck_create(const rp_event *log, uint32_t n)
{
    rp_wcheck *c = rp_calloc("rp.wcheck", 1, sizeof *c);
    rp_u64map locks;
    c->log = log;
    c->n = n;
    c->n_threads = n == 0 ? 1 : max_tid(log, n) + 1;
    c->tpos = rp_malloc("rp.wcheck", (n + 1) * sizeof *c->tpos);
    c->lock_id = rp_malloc("rp.wcheck", (n + 1) * sizeof *c->lock_id);
    c->tcount = rp_calloc("rp.wcheck", c->n_threads, sizeof *c->tcount);
    c->fork_at = rp_malloc("rp.wcheck", c->n_threads * sizeof *c->fork_at);
    c->next = rp_calloc("rp.wcheck", c->n_threads, sizeof *c->next);
    c->in_w = rp_calloc("rp.wcheck", n + 1, 1);
    for (uint32_t t = 0; t < c->n_threads; t++)
        c->fork_at[t] = NONE;
    u64map_init(&locks);
    for (uint32_t i = 0; i < n; i++) {
        const rp_event *e = &log[i];
        c->tpos[i] = c->tcount[e->tid]++;
        c->lock_id[i] = NONE;
        if (is_lock_kind(e->kind))
            c->lock_id[i] = (uint32_t)(uintptr_t)dense_id(&locks, e->obj, &c->n_locks) - 1;
        if (e->kind == RP_EV_FORK && c->fork_at[e->obj] == NONE)
            c->fork_at[e->obj] = i;
    }
    u64map_free(&locks);
    c->thread_off = rp_calloc("rp.wcheck", (size_t)c->n_threads + 1, sizeof *c->thread_off);
    c->thread_ev = rp_malloc("rp.wcheck", ((size_t)n + 1) * sizeof *c->thread_ev);
    for (uint32_t t = 0; t < c->n_threads; t++)
        c->thread_off[t + 1] = c->thread_off[t] + c->tcount[t];
    for (uint32_t i = 0; i < n; i++)
        c->thread_ev[c->thread_off[log[i].tid] + c->tpos[i]] = i;
    c->holder = rp_malloc("rp.wcheck", (c->n_locks + 1) * sizeof *c->holder);
    c->holder_acq = rp_malloc("rp.wcheck", (c->n_locks + 1) * sizeof *c->holder_acq);
    c->shared_total = rp_calloc("rp.wcheck", c->n_locks + 1, sizeof *c->shared_total);
    for (uint32_t l = 0; l < c->n_locks; l++)
        c->holder[l] = c->holder_acq[l] = NONE;
    compute_deps(c);
    u64map_init(&c->writers);
    return c;
}

void wcheck_set_fixed(rp_wcheck *c, uint32_t n_fixed)
{
    c->n_fixed = n_fixed < c->n ? n_fixed : c->n;
}

void wcheck_destroy(rp_wcheck *c)
{
    if (c == NULL)
        return;
    rp_free(c->tpos);
    rp_free(c->thread_off);
    rp_free(c->thread_ev);
    rp_free(c->lock_id);
    rp_free(c->tcount);
    rp_free(c->fork_at);
    rp_free(c->next);
    rp_free(c->in_w);
    rp_free(c->holder);
    rp_free(c->holder_acq);
    rp_free(c->shared_total);
    rp_free(c->shared_depth);
    rp_free(c->dep_off);
    rp_free(c->deps);
    rp_free(c->touched);
    u64map_free(&c->writers);
    rp_free(c);
}

/* ---- error messages ------------------------------------------------------- */

static void describe(sbuf *s, const rp_wcheck *c, uint32_t i)
{
    const rp_event *e = &c->log[i];
    sb_str(s, "event ");
    sb_u64(s, e->id);
    sb_str(s, " (thread ");
    sb_u64(s, e->tid);
    sb_str(s, " ");
    sb_str(s, rp_event_kind_name((rp_event_kind)e->kind));
    if (e->kind != RP_EV_BRANCH) {
        sb_str(s, " ");
        sb_hex(s, e->obj);
    }
    sb_str(s, ")");
}

static bool fail(rp_witness_error *err, const rp_wcheck *c, rp_witness_status status,
                 uint32_t at, uint32_t event, uint32_t other, const char *what)
{
    if (err == NULL)
        return false;
    sbuf s;
    err->status = status;
    err->at = at;
    err->event = event;
    err->other = other;
    sb_init(&s, err->message, sizeof err->message);
    sb_str(&s, rp_witness_status_name(status));
    sb_str(&s, ": ");
    if (event != NONE) {
        describe(&s, c, event);
        if (at != NONE) {
            sb_str(&s, " at witness position ");
            sb_u64(&s, at);
        }
        sb_str(&s, ": ");
    }
    sb_str(&s, what);
    if (other != NONE && other < c->n) {
        sb_str(&s, " ");
        describe(&s, c, other);
    }
    return false;
}

/* ---- the check ------------------------------------------------------------ */

static bool overlap(const rp_event *a, const rp_event *b)
{
    return a->obj < b->obj + b->size && b->obj < a->obj + a->size;
}

/* Executed: in the base cone or earlier in the witness. */
static bool done(const rp_wcheck *c, uint32_t i)
{
    return c->in_w[i] || (c->base != NULL && c->tpos[i] < c->base[c->log[i].tid]);
}

static bool check_pair(const rp_wcheck *c, const rp_witness *w, rp_witness_error *err)
{
    if (w->e1 >= c->n || w->e2 >= c->n || w->e1 >= w->e2)
        return fail(err, c, RP_WITNESS_BAD_PAIR, NONE, NONE, NONE,
                    "e1 < e2 must be indices of the log");
    const rp_event *a = &c->log[w->e1], *b = &c->log[w->e2];
    if (!rp_event_is_access(a) || !rp_event_is_access(b) || a->tid == b->tid ||
        (a->kind != RP_EV_WRITE && b->kind != RP_EV_WRITE) || !overlap(a, b))
        return fail(err, c, RP_WITNESS_BAD_PAIR, NONE, w->e1, w->e2,
                    "does not conflict with");
    return true;
}

static uint32_t *shared_depth(rp_wcheck *c, uint32_t lock, rp_tid_t tid)
{
    if (c->shared_depth == NULL)
        c->shared_depth = rp_calloc("rp.wcheck.shared", (size_t)(c->n_locks + 1) * c->n_threads,
                                    sizeof *c->shared_depth);
    return &c->shared_depth[(size_t)lock * c->n_threads + tid];
}

static bool step_lock(rp_wcheck *c, uint32_t at, uint32_t i, rp_witness_error *err)
{
    const rp_event *e = &c->log[i];
    uint32_t l = c->lock_id[i];
    switch (e->kind) {
    case RP_EV_ACQUIRE:
        if (c->holder[l] != NONE)
            return fail(err, c, RP_WITNESS_LOCK_HELD, at, i, c->holder_acq[l],
                        "lock still held since");
        if (c->shared_total[l] != 0)
            return fail(err, c, RP_WITNESS_LOCK_HELD, at, i, NONE, "lock held in shared mode");
        c->holder[l] = e->tid;
        c->holder_acq[l] = i;
        return true;
    case RP_EV_RELEASE:
        if (c->holder[l] != e->tid)
            return fail(err, c, RP_WITNESS_LOCK_NOT_HELD, at, i, c->holder_acq[l],
                        "released by a thread that does not hold it; holder's acquire:");
        c->holder[l] = c->holder_acq[l] = NONE;
        return true;
    case RP_EV_ACQUIRE_SHARED:
        if (c->holder[l] != NONE)
            return fail(err, c, RP_WITNESS_LOCK_HELD, at, i, c->holder_acq[l],
                        "lock held exclusively since");
        ++*shared_depth(c, l, e->tid);
        c->shared_total[l]++;
        return true;
    case RP_EV_RELEASE_SHARED: {
        uint32_t *d = shared_depth(c, l, e->tid);
        if (*d == 0)
            return fail(err, c, RP_WITNESS_LOCK_NOT_HELD, at, i, NONE,
                        "shared release by a thread that holds no shared lock");
        --*d;
        c->shared_total[l]--;
        return true;
    }
    default:
        return true;
    }
}

static bool step_read(rp_wcheck *c, uint32_t at, uint32_t i, rp_witness_error *err)
{
    const rp_event *e = &c->log[i];
    const uint32_t *want = &c->deps[c->dep_off[i]];
    for (uint32_t k = 0; k < e->size; k++) {
        uintptr_t got = (uintptr_t)u64map_get(&c->writers, e->obj + k);
        uint32_t have = got == 0 ? NONE : (uint32_t)(got - 1);
        /* a base precedes the read in the log: its last write to the byte
         * is the observed writer if that is in it (none comes between) */
        if (got == 0 && want[k] != NONE && done(c, want[k]))
            have = want[k];
        if (have != want[k]) {
            if (want[k] == NONE)
                return fail(err, c, RP_WITNESS_LAST_WRITER, at, i, have,
                            "reads the initial value in the run, but in the witness the last write is");
            return fail(err, c, RP_WITNESS_LAST_WRITER, at, i, want[k],
                        have == NONE ? "reads no write in the witness; in the run its last writer is"
                                     : "reads another write in the witness; in the run its last writer is");
        }
    }
    return true;
}

/* A fixed event only after the fixed ones before it, any other event only
 * after all of them (by induction, one predecessor suffices). */
static bool fixed_first(const rp_wcheck *c, uint32_t at, uint32_t i, rp_witness_error *err)
{
    uint32_t before = i < c->n_fixed ? i : c->n_fixed;
    if (before == 0 || done(c, before - 1))
        return true;
    return fail(err, c, RP_WITNESS_NOT_FIXED, at, i, before - 1,
                "runs before the fixed start's");
}

static bool step_event(rp_wcheck *c, const rp_witness *w, uint32_t at, rp_witness_error *err)
{
    uint32_t i = w->events[at];
    if (i >= c->n)
        return fail(err, c, RP_WITNESS_BAD_INDEX, at, NONE, NONE, "index out of range");
    if (done(c, i))
        return fail(err, c, RP_WITNESS_BAD_INDEX, at, i, NONE, "listed twice");
    if (i == w->e1 || i == w->e2)
        return fail(err, c, RP_WITNESS_CONTAINS_PAIR, at, i, NONE,
                    "a racing access must stay out of the witness");
    if (!fixed_first(c, at, i, err))
        return false;
    const rp_event *e = &c->log[i];
    if (c->tpos[i] != c->next[e->tid])
        return fail(err, c, RP_WITNESS_NOT_PREFIX, at, i, NONE,
                    "is not the next event of its thread in program order");
    if (c->tpos[i] == 0 && c->fork_at[e->tid] != NONE && !done(c, c->fork_at[e->tid]))
        return fail(err, c, RP_WITNESS_BEFORE_FORK, at, i, c->fork_at[e->tid],
                    "its thread has not been forked yet by");
    c->in_w[i] = 1;
    c->next[e->tid]++;
    switch (e->kind) {
    case RP_EV_JOIN: {
        rp_tid_t child = (rp_tid_t)e->obj;
        if (c->next[child] < c->tcount[child])
            return fail(err, c, RP_WITNESS_EARLY_JOIN, at, i, NONE,
                        "the joined thread still has events outside the witness");
        return true;
    }
    case RP_EV_SYNC_RECV:
        for (uint32_t k = c->dep_off[i]; k < c->dep_off[i + 1]; k++)
            if (!done(c, c->deps[k]))
                return fail(err, c, RP_WITNESS_SEND_MISSING, at, i, c->deps[k],
                            "receives before the earlier send");
        return true;
    case RP_EV_READ:
        return step_read(c, at, i, err);
    case RP_EV_WRITE:
        for (uint32_t k = 0; k < e->size; k++)
            u64map_put(&c->writers, e->obj + k, (void *)(uintptr_t)(i + 1));
        return true;
    case RP_EV_FORGET:
        FOR_TOUCHED_IN(j, c->touched, c->n_touched, e->obj, e->size)
            u64map_put(&c->writers, c->touched[j], (void *)(uintptr_t)(i + 1));
        return true;
    default:
        return step_lock(c, at, i, err);
    }
}

static bool check_next(rp_wcheck *c, uint32_t racer, rp_witness_error *err)
{
    const rp_event *e = &c->log[racer];
    if (!fixed_first(c, NONE, racer, err))
        return false;
    if (c->next[e->tid] != c->tpos[racer])
        return fail(err, c, RP_WITNESS_NOT_NEXT, NONE, racer, NONE,
                    "is not the next event of its thread after the witness");
    if (c->tpos[racer] == 0 && c->fork_at[e->tid] != NONE && !done(c, c->fork_at[e->tid]))
        return fail(err, c, RP_WITNESS_BEFORE_FORK, NONE, racer, c->fork_at[e->tid],
                    "its thread is not forked in the witness by");
    return true;
}

/* Undoes what the first `steps` witness events did to the replay state. */
static void reset_state(rp_wcheck *c, const rp_witness *w, uint32_t steps)
{
    for (uint32_t k = 0; k < steps && k < w->n; k++) {
        uint32_t i = w->events[k];
        if (i >= c->n)
            continue;
        c->in_w[i] = 0;
        c->next[c->log[i].tid] = 0;
        uint32_t l = c->lock_id[i];
        if (l != NONE) {
            c->holder[l] = c->holder_acq[l] = NONE;
            c->shared_total[l] = 0;
            if (c->shared_depth != NULL)
                *shared_depth(c, l, c->log[i].tid) = 0;
        }
    }
    if (c->writers.count != 0) {
        u64map_free(&c->writers);
        u64map_init(&c->writers);
    }
}

bool witness_check(rp_wcheck *c, const rp_witness *w, rp_witness_error *err)
{
    uint32_t at = 0;
    bool ok = check_pair(c, w, err);
    for (; ok && at < w->n; at++)
        ok = step_event(c, w, at, err);
    if (ok)
        ok = check_next(c, w->e1, err) && check_next(c, w->e2, err);
    reset_state(c, w, at + 1);
    if (ok && err != NULL) {
        err->status = RP_WITNESS_OK;
        err->at = err->event = err->other = NONE;
        err->message[0] = '\0';
    }
    return ok;
}

/* The base's last event of each thread precedes every witness event. */
static bool base_precedes(const rp_wcheck *c, const rp_witness *w, rp_witness_error *err)
{
    uint32_t first = w->e1;
    for (uint32_t k = 0; k < w->n; k++)
        if (w->events[k] < first)
            first = w->events[k];
    for (uint32_t t = 0; t < c->n_threads; t++) {
        if (c->base[t] > c->tcount[t])
            return fail(err, c, RP_WITNESS_BAD_INDEX, NONE, NONE, NONE,
                        "base longer than its thread");
        if (c->base[t] != 0 && c->thread_ev[c->thread_off[t] + c->base[t] - 1] >= first)
            return fail(err, c, RP_WITNESS_NOT_PREFIX, NONE,
                        c->thread_ev[c->thread_off[t] + c->base[t] - 1], NONE,
                        "is in the base but not before every witness event in the run");
    }
    return true;
}

/* The locks the base leaves held. */
static bool hold_open(rp_wcheck *c, const uint32_t *open, uint32_t n_open, rp_witness_error *err)
{
    for (uint32_t k = 0; k < n_open; k++) {
        uint32_t a = open[k], l = a < c->n ? c->lock_id[a] : NONE;
        if (l == NONE || !done(c, a) ||
            (c->log[a].kind != RP_EV_ACQUIRE && c->log[a].kind != RP_EV_ACQUIRE_SHARED))
            return fail(err, c, RP_WITNESS_BAD_INDEX, NONE, a, NONE,
                        "is not an acquire of the base");
        if (!step_lock(c, NONE, a, err))
            return false;
    }
    return true;
}

bool witness_check_after(rp_wcheck *c, const uint32_t *base, const uint32_t *open,
                         uint32_t n_open, const rp_witness *w, rp_witness_error *err)
{
    uint32_t at = 0;
    bool ok = check_pair(c, w, err);
    c->base = base;
    rp_memcpy(c->next, base, c->n_threads * sizeof *c->next);
    ok = ok && base_precedes(c, w, err) && hold_open(c, open, n_open, err);
    for (; ok && at < w->n; at++)
        ok = step_event(c, w, at, err);
    if (ok)
        ok = check_next(c, w->e1, err) && check_next(c, w->e2, err);
    reset_state(c, w, at + 1);
    for (uint32_t k = 0; k < n_open; k++)
        if (open[k] < c->n && c->lock_id[open[k]] != NONE) {
            uint32_t l = c->lock_id[open[k]];
            c->holder[l] = c->holder_acq[l] = NONE;
            c->shared_total[l] = 0;
            if (c->shared_depth != NULL)
                *shared_depth(c, l, c->log[open[k]].tid) = 0;
        }
    for (uint32_t t = 0; t < c->n_threads; t++)
        c->next[t] = 0;
    c->base = NULL;
    if (ok && err != NULL) {
        err->status = RP_WITNESS_OK;
        err->at = err->event = err->other = NONE;
        err->message[0] = '\0';
    }
    return ok;
}

bool witness_check_log(const rp_event *log, uint32_t n, const rp_witness *w,
                       rp_witness_error *err)
{
    rp_wcheck *c = wcheck_create(log, n);
    bool ok = witness_check(c, w, err);
    wcheck_destroy(c);
    return ok;
}

/* ---- compact format ------------------------------------------------------- */

static void name_thread(sbuf *s, const rp_witness_names *names, rp_tid_t tid)
{
    const char *n = names != NULL && names->thread != NULL ? names->thread(names->ctx, tid) : NULL;
    if (n != NULL) {
        sb_str(s, n);
    } else {
        sb_str(s, "thread ");
        sb_u64(s, tid);
    }
}

static void name_obj(sbuf *s, const char *(*fn)(void *, uint64_t), void *ctx, uint64_t obj)
{
    const char *n = fn != NULL ? fn(ctx, obj) : NULL;
    if (n != NULL)
        sb_str(s, n);
    else
        sb_hex(s, obj);
}

static void range(sbuf *s, uint64_t from, uint64_t to)
{
    sb_u64(s, from);
    if (to != from) {
        sb_str(s, "-");
        sb_u64(s, to);
    }
}

static void describe_access(sbuf *s, const rp_event *e, const rp_witness_names *names)
{
    sb_u64(s, e->id);
    sb_str(s, e->kind == RP_EV_WRITE ? " w(" : " r(");
    name_obj(s, names != NULL ? names->var : NULL, names != NULL ? names->ctx : NULL, e->obj);
    sb_str(s, ")@");
    name_thread(s, names, e->tid);
}

/* Per thread: which of its events the witness drops (the racing thread
 * keeps its access as the next event: only what follows counts). */
static void format_omitted(sbuf *s, const rp_event *log, uint32_t n, const uint8_t *kept,
                           const rp_witness *w, const rp_witness_names *names, uint32_t n_threads)
{
    uint64_t *first = rp_calloc("rp.witness.format", n_threads, sizeof *first);
    uint64_t *last = rp_calloc("rp.witness.format", n_threads, sizeof *last);
    uint32_t *count = rp_calloc("rp.witness.format", n_threads, sizeof *count);
    for (uint32_t i = 0; i < n; i++) {
        rp_tid_t t = log[i].tid;
        if (kept[i] || i == w->e1 || i == w->e2)
            continue;
        if (count[t]++ == 0)
            first[t] = log[i].id;
        last[t] = log[i].id;
    }
    for (rp_tid_t t = 0; t < n_threads; t++) {
        if (count[t] == 0)
            continue;
        sb_str(s, "; ");
        name_thread(s, names, t);
        sb_str(s, ": ");
        range(s, first[t], last[t]);
        sb_str(s, " omitted (");
        sb_u64(s, count[t]);
        sb_str(s, count[t] == 1 ? " event)" : " events)");
    }
    rp_free(first);
    rp_free(last);
    rp_free(count);
}

/* The release matching each acquire (exclusive or shared), NONE if none. */
static uint32_t *match_releases(const rp_event *log, uint32_t n, uint32_t n_threads)
{
    uint32_t *match = rp_malloc("rp.witness.format", (n + 1) * sizeof *match);
    rp_u64map open;
    u64map_init(&open);
    for (uint32_t i = 0; i < n; i++) {
        const rp_event *e = &log[i];
        match[i] = NONE;
        if (!is_lock_kind(e->kind))
            continue;
        uint32_t *per_thread = u64map_get(&open, e->obj);
        if (per_thread == NULL) {
            per_thread = rp_malloc("rp.witness.format", n_threads * sizeof *per_thread);
            for (uint32_t t = 0; t < n_threads; t++)
                per_thread[t] = NONE;
            u64map_put(&open, e->obj, per_thread);
        }
        if (e->kind == RP_EV_ACQUIRE || e->kind == RP_EV_ACQUIRE_SHARED) {
            per_thread[e->tid] = i;
        } else if (per_thread[e->tid] != NONE) {
            match[per_thread[e->tid]] = i;
            per_thread[e->tid] = NONE;
        }
    }
    u64map_free_with_values(&open);
    return match;
}

static void section(sbuf *s, const rp_event *log, uint32_t acq, uint32_t rel, const uint8_t *kept)
{
    sb_str(s, "(");
    if (rel != NONE && kept[rel]) {
        range(s, log[acq].id, log[rel].id);
        sb_str(s, ")");
    } else {
        sb_u64(s, log[acq].id);
        sb_str(s, ", left open)");
    }
}

/* Critical sections kept by the witness whose order differs from the run:
 * for each acquire, compared with the previous acquire of the same lock in
 * the witness (O(|witness|); a chain of swaps prints one line per step). */
static void format_swaps(sbuf *s, const rp_event *log, uint32_t n, const rp_witness *w,
                         const uint8_t *kept, const rp_witness_names *names, uint32_t n_threads)
{
    uint32_t *match = match_releases(log, n, n_threads);
    rp_u64map last;
    u64map_init(&last);
    for (uint32_t k = 0; k < w->n; k++) {
        uint32_t b = w->events[k];
        if (b >= n || (log[b].kind != RP_EV_ACQUIRE && log[b].kind != RP_EV_ACQUIRE_SHARED))
            continue;
        uintptr_t prev = (uintptr_t)u64map_get(&last, log[b].obj);
        u64map_put(&last, log[b].obj, (void *)(uintptr_t)(b + 1));
        if (prev == 0 || prev - 1 < b)
            continue;
        uint32_t a = (uint32_t)(prev - 1);     /* later in the run, earlier here */
        sb_str(s, "; ");
        name_thread(s, names, log[b].tid);
        sb_str(s, "'s critical section on ");
        name_obj(s, names != NULL ? names->lock : NULL, names != NULL ? names->ctx : NULL,
                 log[b].obj);
        sb_str(s, " ");
        section(s, log, b, match[b], kept);
        sb_str(s, " moved after ");
        name_thread(s, names, log[a].tid);
        sb_str(s, "'s ");
        section(s, log, a, match[a], kept);
    }
    u64map_free(&last);
    rp_free(match);
}

size_t witness_format(const rp_event *log, uint32_t n, const rp_witness *w,
                      const rp_witness_names *names, char *buf, size_t cap)
{
    sbuf s;
    uint8_t *kept = rp_calloc("rp.witness.format", n + 1, 1);
    uint32_t n_threads = n == 0 ? 1 : max_tid(log, n) + 1;
    bool reordered = false;
    sb_init(&s, buf, cap);
    for (uint32_t k = 0; k < w->n; k++) {
        if (w->events[k] >= n)
            continue;
        kept[w->events[k]] = 1;
        if (k > 0 && w->events[k] < w->events[k - 1])
            reordered = true;
    }
    sb_str(&s, "keeps ");
    sb_u64(&s, w->n);
    sb_str(&s, " of ");
    sb_u64(&s, n);
    sb_str(&s, reordered ? " events" : " events in trace order");
    format_omitted(&s, log, n, kept, w, names, n_threads);
    if (reordered)
        format_swaps(&s, log, n, w, kept, names, n_threads);
    if (w->e1 < n && w->e2 < n) {
        sb_str(&s, "; then ");
        describe_access(&s, &log[w->e1], names);
        sb_str(&s, " and ");
        describe_access(&s, &log[w->e2], names);
        sb_str(&s, " are adjacent");
    }
    rp_free(kept);
    return s.len;
}
