/* rp_trcone.c — facts and prefix-vector cones (rp_trcone.h). */
#include "rp_trcone.h"

#include "rp_shim.h"
#include "rp_sort.h"
#include "rp_u64map.h"
#include "rp_offline.h"

static uint32_t *alloc_u32(size_t count)
{
    return rp_malloc("rp.trcone", (count + 1) * sizeof(uint32_t));
}

static void fill_none(uint32_t *a, size_t count)
{
    for (size_t i = 0; i < count; i++)
        a[i] = TC_NONE;
}

static bool is_acquire(const rp_event *e)
{
    return e->kind == RP_EV_ACQUIRE || e->kind == RP_EV_ACQUIRE_SHARED;
}

static bool is_release(const rp_event *e)
{
    return e->kind == RP_EV_RELEASE || e->kind == RP_EV_RELEASE_SHARED;
}

static bool writes(const rp_event *e)
{
    return e->kind == RP_EV_WRITE || e->kind == RP_EV_FORGET;
}

/* threads, positions, forks */
static void build_threads(rp_tcfacts *f)
{
    uint32_t nt = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        const rp_event *e = &f->log[i];
        if (e->tid + 1 > nt)
            nt = e->tid + 1;
        if ((e->kind == RP_EV_FORK || e->kind == RP_EV_JOIN) && e->obj + 1 > nt)
            nt = (uint32_t)e->obj + 1;
    }
    f->n_threads = nt;
    f->tpos = alloc_u32(f->n);
    f->thread_off = rp_calloc("rp.trcone", (size_t)nt + 2, sizeof(uint32_t));
    f->thread_ev = alloc_u32(f->n);
    f->fork_at = alloc_u32(nt);
    fill_none(f->fork_at, nt);
    for (uint32_t i = 0; i < f->n; i++) {
        f->tpos[i] = f->thread_off[f->log[i].tid + 1]++;
        if (f->log[i].kind == RP_EV_FORK)
            f->fork_at[f->log[i].obj] = i;
    }
    for (uint32_t t = 0; t < nt; t++)
        f->thread_off[t + 1] += f->thread_off[t];
    for (uint32_t i = 0; i < f->n; i++)
        f->thread_ev[f->thread_off[f->log[i].tid] + f->tpos[i]] = i;
}

/* lock ids, acquire/release matching, held lists, releases per lock */
static void build_locks(rp_tcfacts *f)
{
    rp_u64map ids, open;
    u64map_init(&ids);
    u64map_init(&open);
    f->match = alloc_u32(f->n);
    f->lock_id = alloc_u32(f->n);
    f->held = alloc_u32(f->n);
    fill_none(f->match, f->n);
    fill_none(f->lock_id, f->n);
    uint32_t *head = alloc_u32(f->n_threads);
    fill_none(head, f->n_threads);
    uint32_t cap = 64;
    f->node_acq = alloc_u32(cap);
    f->node_next = alloc_u32(cap);
    f->n_nodes = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        const rp_event *e = &f->log[i];
        rp_tid_t t = e->tid;
        if (is_acquire(e) || is_release(e)) {
            uintptr_t id = (uintptr_t)u64map_get(&ids, e->obj);
            if (id == 0) {
                id = ++f->n_locks;
                u64map_put(&ids, e->obj, (void *)id);
            }
            f->lock_id[i] = (uint32_t)id - 1;
            uint64_t key = (uint64_t)(id - 1) << 32 | t;
            if (is_acquire(e)) {
                u64map_put(&open, key, (void *)(uintptr_t)(i + 2));   /* 1: none */
            } else {
                uintptr_t a = (uintptr_t)u64map_get(&open, key);
                if (a > 1) {
                    f->match[a - 2] = i;
                    f->match[i] = (uint32_t)a - 2;
                    u64map_put(&open, key, (void *)(uintptr_t)1);
                }
            }
        }
        /* held list after i: push on acquire, copy without the acquire on release */
        if (is_acquire(e) || (is_release(e) && f->match[i] != TC_NONE)) {
            uint32_t need = f->n_nodes + 1;
            for (uint32_t k = head[t]; is_release(e) && k != TC_NONE; k = f->node_next[k])
                need++;
            if (need > cap) {
                while (cap < need)
                    cap *= 2;
                f->node_acq = rp_realloc("rp.trcone", f->node_acq, cap * sizeof(uint32_t));
                f->node_next = rp_realloc("rp.trcone", f->node_next, cap * sizeof(uint32_t));
            }
            if (is_acquire(e)) {
                f->node_acq[f->n_nodes] = i;
                f->node_next[f->n_nodes] = head[t];
                head[t] = f->n_nodes++;
            } else {
                /* nodes above the released acquire are copied, the rest shared */
                uint32_t acq = f->match[i], first = TC_NONE, *link = &first, k = head[t];
                for (; k != TC_NONE && f->node_acq[k] != acq; k = f->node_next[k]) {
                    f->node_acq[f->n_nodes] = f->node_acq[k];
                    *link = f->n_nodes;
                    link = &f->node_next[f->n_nodes++];
                }
                *link = k == TC_NONE ? TC_NONE : f->node_next[k];
                head[t] = first;
            }
        }
        f->held[i] = head[t];
    }
    rp_free(head);
    u64map_free(&ids);
    u64map_free(&open);
}

static bool is_exclusive_acquire(const rp_event *e)
{
    return e->kind == RP_EV_ACQUIRE;
}

/* The events of each lock that `pick` selects, as tid << 32 | tpos sorted
 * (per thread in program order): *off per lock + 1, *list. */
static void list_by_lock(rp_tcfacts *f, bool (*pick)(const rp_event *), uint32_t **off,
                         uint64_t **list)
{
    uint32_t *o = rp_calloc("rp.trcone", (size_t)f->n_locks + 2, sizeof(uint32_t));
    for (uint32_t i = 0; i < f->n; i++)
        if (pick(&f->log[i]))
            o[f->lock_id[i] + 1]++;
    for (uint32_t l = 0; l < f->n_locks; l++)
        o[l + 1] += o[l];
    uint64_t *v = rp_malloc("rp.trcone", ((size_t)o[f->n_locks] + 1) * sizeof(uint64_t));
    uint32_t *fill = alloc_u32(f->n_locks);
    for (uint32_t l = 0; l < f->n_locks; l++)
        fill[l] = o[l];
    for (uint32_t i = 0; i < f->n; i++)
        if (pick(&f->log[i]))
            v[fill[f->lock_id[i]]++] = (uint64_t)f->log[i].tid << 32 | f->tpos[i];
    for (uint32_t l = 0; l < f->n_locks; l++)
        sort_u64(v + o[l], o[l + 1] - o[l]);
    rp_free(fill);
    *off = o;
    *list = v;
}

/* Thread-local held list `node` names lock l exactly once. */
static bool held_once(const rp_tcfacts *f, uint32_t node, uint32_t l)
{
    uint32_t count = 0;
    for (uint32_t k = node; k != TC_NONE; k = f->node_next[k])
        count += f->lock_id[f->node_acq[k]] == l;
    return count == 1;
}

static bool lock_step_ok(const rp_tcfacts *f, uint32_t i, uint32_t *holder, uint32_t *shared)
{
    const rp_event *e = &f->log[i];
    uint32_t l = f->lock_id[i];
    switch (e->kind) {
    case RP_EV_ACQUIRE:
        if (holder[l] != TC_NONE || shared[l] != 0 || !held_once(f, f->held[i], l))
            return false;
        holder[l] = e->tid;
        return true;
    case RP_EV_ACQUIRE_SHARED:
        if (holder[l] != TC_NONE || !held_once(f, f->held[i], l))
            return false;
        shared[l]++;
        return true;
    case RP_EV_RELEASE:
        if (holder[l] != e->tid || f->match[i] == TC_NONE)
            return false;
        holder[l] = TC_NONE;
        return true;
    case RP_EV_RELEASE_SHARED:
        if (shared[l] == 0 || f->match[i] == TC_NONE ||
            f->log[f->match[i]].kind != RP_EV_ACQUIRE_SHARED)
            return false;
        shared[l]--;
        return true;
    default:
        return true;
    }
}

static bool thread_step_ok(const rp_tcfacts *f, uint32_t i, uint32_t *forks)
{
    const rp_event *e = &f->log[i];
    if (f->tpos[i] == 0 && f->fork_at[e->tid] != TC_NONE && f->fork_at[e->tid] >= i)
        return false;
    if (e->kind == RP_EV_FORK)
        return ++forks[e->obj] == 1;
    if (e->kind == RP_EV_JOIN) {
        uint32_t len = tc_thread_len(f, (uint32_t)e->obj);
        return len == 0 || tc_thread_event(f, (uint32_t)e->obj, len - 1) < i;
    }
    return true;
}

/* The log itself replays as a valid execution under the validator's rules
 * (rp_witness.h), with exact held lists: no thread re-acquires a lock it
 * holds, acquires find the lock free (shared: not held exclusively),
 * releases come from a holder, a forked thread starts after its only fork,
 * a join follows every event of the joined thread.  Then a cone in trace
 * order needs only the checks of tc_cone_is_witness. */
static bool log_replays(const rp_tcfacts *f)
{
    bool ok = true;
    uint32_t *holder = alloc_u32(f->n_locks);
    uint32_t *shared = rp_calloc("rp.trcone", (size_t)f->n_locks + 1, sizeof(uint32_t));
    uint32_t *forks = rp_calloc("rp.trcone", (size_t)f->n_threads + 1, sizeof(uint32_t));
    fill_none(holder, f->n_locks);
    for (uint32_t i = 0; i < f->n && ok; i++)
        ok = thread_step_ok(f, i, forks) && lock_step_ok(f, i, holder, shared);
    rp_free(holder);
    rp_free(shared);
    rp_free(forks);
    return ok;
}

/* observed writers of every read byte */
static void build_writers(rp_tcfacts *f)
{
    rp_lastw last;
    lastw_init(&last, f->touched, f->n_touched);
    f->writer_off = rp_calloc("rp.trcone", (size_t)f->n + 2, sizeof(uint32_t));
    for (uint32_t i = 0; i < f->n; i++)
        f->writer_off[i + 1] = f->writer_off[i] + (f->log[i].kind == RP_EV_READ ? f->log[i].size : 0);
    f->writers = alloc_u32(f->writer_off[f->n]);
    for (uint32_t i = 0; i < f->n; i++) {
        const rp_event *e = &f->log[i];
        if (e->kind == RP_EV_READ) {
            const uint32_t *w = lastw_of(&last, e->obj);
            for (uint32_t k = 0; k < e->size; k++)
                f->writers[f->writer_off[i] + k] = w[k] - 1;
        } else if (writes(e)) {
            lastw_write(&last, e->obj, e->size, i);
        }
    }
    lastw_free(&last);
}

static void join_into(uint32_t *dst, const uint32_t *src, uint32_t nt)
{
    for (uint32_t t = 0; t < nt; t++)
        if (src[t] > dst[t])
            dst[t] = src[t];
}

static void free_clock(void *ctx, uint64_t key, void *value)
{
    (void)ctx;
    (void)key;
    rp_free(value);
}

static bool pre_clocked(const rp_event *e)
{
    return rp_event_is_access(e) || e->kind == RP_EV_FORGET;
}

/* The vector-clock pass over thread order, fork/join, reads-from, sends:
 * every event gets a clock, the pre clock for accesses and forgets, the
 * clock after it for the others. */
static void build_clocks(rp_tcfacts *f)
{
    uint32_t nt = f->n_threads;
    f->clocks = rp_calloc("rp.trcone.clocks", (size_t)f->n * nt + 1, sizeof(uint32_t));
    uint32_t *c = rp_calloc("rp.trcone", (size_t)nt * nt + 1, sizeof(uint32_t));
    rp_u64map sends;
    u64map_init(&sends);
    for (uint32_t i = 0; i < f->n; i++) {
        const rp_event *e = &f->log[i];
        uint32_t *ct = c + (size_t)e->tid * nt;
        if (pre_clocked(e))
            rp_memcpy(f->clocks + (size_t)i * nt, ct, nt * sizeof *ct);
        if (e->kind == RP_EV_READ) {
            for (uint32_t k = 0; k < e->size; k++) {
                uint32_t w = f->writers[f->writer_off[i] + k];
                if (w == TC_NONE)
                    continue;
                join_into(ct, f->clocks + (size_t)w * nt, nt);
                if (f->tpos[w] + 1 > ct[f->log[w].tid])
                    ct[f->log[w].tid] = f->tpos[w] + 1;
            }
        } else if (e->kind == RP_EV_SYNC_RECV) {
            uint32_t *s = u64map_get(&sends, e->obj);
            if (s != NULL)
                join_into(ct, s, nt);
        } else if (e->kind == RP_EV_JOIN) {
            join_into(ct, c + (size_t)e->obj * nt, nt);
        }
        ct[e->tid] = f->tpos[i] + 1;
        if (e->kind == RP_EV_SYNC_SEND) {
            uint32_t *s = u64map_get(&sends, e->obj);
            if (s == NULL) {
                s = rp_calloc("rp.trcone", nt, sizeof *s);
                u64map_put(&sends, e->obj, s);
            }
            join_into(s, ct, nt);
        } else if (e->kind == RP_EV_FORK) {
            join_into(c + (size_t)e->obj * nt, ct, nt);
        }
        if (!pre_clocked(e))
            rp_memcpy(f->clocks + (size_t)i * nt, ct, nt * sizeof *ct);
    }
    u64map_for_each(&sends, free_clock, NULL);
    u64map_free(&sends);
    rp_free(c);
}

void tc_build(rp_tcfacts *f, const rp_event *log, uint32_t n)
{
    rp_memset(f, 0, sizeof *f);
    f->log = log;
    f->n = n;
    build_threads(f);
    build_locks(f);
    f->touched = touched_bytes(log, n, &f->n_touched);
    build_writers(f);
    build_clocks(f);
    list_by_lock(f, is_release, &f->rel_off, &f->rels);
    list_by_lock(f, is_acquire, &f->acq_off, &f->acqs);
    list_by_lock(f, is_exclusive_acquire, &f->xacq_off, &f->xacqs);
    f->replays = log_replays(f);
}

void tc_free(rp_tcfacts *f)
{
    uint32_t *arrays[] = { f->tpos, f->thread_off, f->thread_ev, f->fork_at, f->match,
                           f->lock_id, f->writer_off, f->writers, f->clocks, f->held,
                           f->node_acq, f->node_next, f->rel_off, f->acq_off, f->xacq_off };
    for (unsigned k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        rp_free(arrays[k]);
    rp_free(f->rels);
    rp_free(f->acqs);
    rp_free(f->xacqs);
    rp_free(f->touched);
    rp_memset(f, 0, sizeof *f);
}

bool tc_join(const rp_tcfacts *f, uint32_t *cone, uint32_t e)
{
    const uint32_t *clk = f->clocks + (size_t)e * f->n_threads;
    bool grew = false;
    for (uint32_t t = 0; t < f->n_threads; t++)
        if (clk[t] > cone[t]) {
            cone[t] = clk[t];
            grew = true;
        }
    return grew;
}

bool tc_clock_has(const rp_tcfacts *f, uint32_t r, uint32_t e)
{
    const uint32_t *clk = f->clocks + (size_t)r * f->n_threads;
    return f->tpos[e] < clk[f->log[e].tid];
}

/* The latest (in trace order) of a lock's listed events inside the cone. */
static uint32_t last_in_cone(const rp_tcfacts *f, const uint32_t *cone, const uint64_t *r,
                             uint32_t n)
{
    uint32_t best = TC_NONE;
    for (uint32_t t = 0; t < f->n_threads; t++) {
        if (cone[t] == 0)
            continue;
        size_t at = lower_bound_u64(r, n, (uint64_t)t << 32 | cone[t]);
        if (at == 0 || (uint32_t)(r[at - 1] >> 32) != t)
            continue;
        uint32_t ev = tc_thread_event(f, t, (uint32_t)r[at - 1]);
        if (best == TC_NONE || ev > best)
            best = ev;
    }
    return best;
}

uint32_t tc_last_release(const rp_tcfacts *f, const uint32_t *cone, uint32_t l)
{
    return last_in_cone(f, cone, f->rels + f->rel_off[l], f->rel_off[l + 1] - f->rel_off[l]);
}

static bool clock_within(const rp_tcfacts *f, const uint32_t *cone, uint32_t e)
{
    const uint32_t *clk = f->clocks + (size_t)e * f->n_threads;
    for (uint32_t t = 0; t < f->n_threads; t++)
        if (clk[t] > cone[t])
            return false;
    return true;
}

/* The closure of thread t's events in the cone is inside it. */
static bool thread_closed(const rp_tcfacts *f, const uint32_t *cone, uint32_t t)
{
    uint32_t x = tc_thread_event(f, t, cone[t] - 1);
    if (!clock_within(f, cone, x))
        return false;
    for (uint32_t k = f->writer_off[x]; k < f->writer_off[x + 1]; k++)
        if (f->writers[k] != TC_NONE && !tc_in(f, cone, f->writers[k]))
            return false;
    return true;
}

/* Every open acquire is the last acquire of its lock in the cone that it
 * excludes (an exclusive one: any; a shared one: exclusive ones). */
static bool open_acquires_last(const rp_tcfacts *f, const uint32_t *cone)
{
    for (uint32_t t = 0; t < f->n_threads; t++)
        for (uint32_t k = tc_held(f, t, cone[t]); k != TC_NONE; k = f->node_next[k]) {
            uint32_t a = f->node_acq[k], l = f->lock_id[a], last;
            if (is_exclusive_acquire(&f->log[a]))
                last = last_in_cone(f, cone, f->acqs + f->acq_off[l],
                                    f->acq_off[l + 1] - f->acq_off[l]);
            else
                last = last_in_cone(f, cone, f->xacqs + f->xacq_off[l],
                                    f->xacq_off[l + 1] - f->xacq_off[l]);
            if (is_exclusive_acquire(&f->log[a]) ? last != a : last != TC_NONE && last > a)
                return false;
        }
    return true;
}

static bool conflicting_pair(const rp_tcfacts *f, uint32_t e1, uint32_t e2)
{
    const rp_event *a = &f->log[e1], *b = &f->log[e2];
    return e1 < e2 && e2 < f->n && rp_event_is_access(a) && rp_event_is_access(b) &&
           a->tid != b->tid && (a->kind == RP_EV_WRITE || b->kind == RP_EV_WRITE) &&
           a->obj < b->obj + b->size && b->obj < a->obj + a->size;
}

bool tc_cone_is_witness(const rp_tcfacts *f, const uint32_t *cone, uint32_t e1, uint32_t e2)
{
    if (!f->replays || !conflicting_pair(f, e1, e2) ||
        cone[f->log[e1].tid] != f->tpos[e1] || cone[f->log[e2].tid] != f->tpos[e2] ||
        !clock_within(f, cone, e1) || !clock_within(f, cone, e2))
        return false;
    for (uint32_t t = 0; t < f->n_threads; t++)
        if (cone[t] != 0 && !thread_closed(f, cone, t))
            return false;
    return open_acquires_last(f, cone);
}

uint32_t tc_end(const rp_tcfacts *f, const uint32_t *cone)
{
    uint32_t end = 0;
    for (uint32_t t = 0; t < f->n_threads; t++)
        if (cone[t] != 0 && tc_thread_event(f, t, cone[t] - 1) + 1 > end)
            end = tc_thread_event(f, t, cone[t] - 1) + 1;
    return end;
}

bool tc_open_acquires(const rp_tcfacts *f, const uint32_t *cone, uint32_t *count)
{
    bool twice = false;
    *count = 0;
    for (uint32_t t = 0; t < f->n_threads; t++)
        for (uint32_t k = tc_held(f, t, cone[t]); k != TC_NONE; k = f->node_next[k]) {
            uint32_t l = f->lock_id[f->node_acq[k]];
            (*count)++;
            for (uint32_t u = 0; u < t && !twice; u++)
                for (uint32_t j = tc_held(f, u, cone[u]); j != TC_NONE; j = f->node_next[j])
                    if (f->lock_id[f->node_acq[j]] == l)
                        twice = true;
        }
    return twice;
}

uint32_t tc_first_reversed(const rp_tcfacts *f, const uint32_t *cone)
{
    uint32_t first = TC_NONE;
    for (uint32_t t = 0; t < f->n_threads; t++)
        for (uint32_t k = tc_held(f, t, cone[t]); k != TC_NONE; k = f->node_next[k]) {
            uint32_t a = f->node_acq[k], last = tc_last_release(f, cone, f->lock_id[a]);
            if (last != TC_NONE && a < last && a < first)
                first = a;
        }
    return first;
}

void tc_cone_below(const rp_tcfacts *f, const uint32_t *cone, uint32_t p, uint32_t *below)
{
    for (uint32_t t = 0; t < f->n_threads; t++) {
        const uint32_t *ev = f->thread_ev + f->thread_off[t];
        uint32_t lo = 0, hi = cone[t];          /* first of t's cone events >= p */
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (ev[mid] < p)
                lo = mid + 1;
            else
                hi = mid;
        }
        below[t] = lo;
    }
}

bool tc_base_is_prefix(const rp_tcfacts *f, const uint32_t *base)
{
    if (!f->replays)
        return false;
    for (uint32_t t = 0; t < f->n_threads; t++)
        if (base[t] != 0 && !thread_closed(f, base, t))
            return false;
    return open_acquires_last(f, base);
}

uint32_t tc_open_list(const rp_tcfacts *f, const uint32_t *cone, uint32_t **list, uint32_t *cap)
{
    uint32_t n = 0;
    for (uint32_t t = 0; t < f->n_threads; t++)
        for (uint32_t k = tc_held(f, t, cone[t]); k != TC_NONE; k = f->node_next[k]) {
            if (n == *cap) {
                *cap = *cap == 0 ? 16 : 2 * *cap;
                *list = rp_realloc("rp.trcone.open", *list, *cap * sizeof **list);
            }
            (*list)[n++] = f->node_acq[k];
        }
    return n;
}

void tc_win_init(rp_tcwin *win, const rp_tcfacts *f)
{
    win->base = rp_calloc("rp.trcone.win", (size_t)f->n_threads + 1, sizeof *win->base);
    win->loc = rp_malloc("rp.trcone.win", ((size_t)f->n + 1) * sizeof *win->loc);
    win->open = NULL;
    win->cap_open = 0;
}

void tc_win_free(rp_tcwin *win)
{
    rp_free(win->base);
    rp_free(win->loc);
    rp_free(win->open);
}

int tc_fast_witness(const rp_tcfacts *f, const uint32_t *cone, uint32_t e1, uint32_t e2,
                    rp_wcheck *chk, rp_tcwin *win, rp_witness *w)
{
    uint32_t from = tc_first_reversed(f, cone);
    if (from == TC_NONE)
        return tc_cone_is_witness(f, cone, e1, e2) ? 1 : 0;
    tc_cone_below(f, cone, from, win->base);
    if (!tc_base_is_prefix(f, win->base))
        return 0;
    witness_clear(w);
    w->e1 = e1;
    w->e2 = e2;
    if (!tc_linearize(f, cone, from, win->loc, w))
        return -1;
    uint32_t n_open = tc_open_list(f, win->base, &win->open, &win->cap_open);
    return witness_check_after(chk, win->base, win->open, n_open, w, NULL) ? 1 : 0;
}

/* ---- optimistic linearisation (G^Opt of seed 004) ------------------------ */

typedef struct graph {
    rp_u64vec edges;        /* src << 32 | dst, positions in the window */
    uint32_t m;
    uint32_t from;          /* the window: the events of S from here on */
    const uint32_t *loc;
} graph;

/* Position of event x in the window; an event before it is already
 * placed, so its edges constrain nothing. */
static uint32_t at(const graph *g, uint32_t x)
{
    return x == TC_NONE || x < g->from ? TC_NONE : g->loc[x];
}

typedef struct byte_state {
    uint32_t last_write;    /* position in S, or TC_NONE */
    rp_u64vec reads;        /* positions since last_write */
} byte_state;

static void free_byte(void *ctx, uint64_t key, void *value)
{
    byte_state *b = value;
    (void)ctx;
    (void)key;
    u64vec_free(&b->reads);
    rp_free(b);
}

static void free_vec(void *ctx, uint64_t key, void *value)
{
    (void)ctx;
    (void)key;
    u64vec_free(value);
    rp_free(value);
}

static void edge(graph *g, uint32_t src, uint32_t dst)
{
    if (src != TC_NONE)
        u64vec_push(&g->edges, (uint64_t)src << 32 | dst);
}

static void byte_edges(uint64_t byte, bool is_read, uint32_t p, rp_u64map *bytes, graph *g)
{
    byte_state *b = u64map_get(bytes, byte);
    if (b == NULL) {
        b = rp_calloc("rp.trcone.graph", 1, sizeof *b);
        b->last_write = TC_NONE;
        u64map_put(bytes, byte, b);
    }
    edge(g, b->last_write, p);
    if (is_read) {
        u64vec_push(&b->reads, p);
        return;
    }
    for (uint32_t j = 0; j < b->reads.n; j++)
        edge(g, (uint32_t)b->reads.v[j], p);
    b->reads.n = 0;
    b->last_write = p;
}

/* A forget only matters to the bytes accesses touch (f->touched). */
static void access_edges(const rp_tcfacts *f, const rp_event *e, uint32_t p, rp_u64map *bytes,
                         graph *g)
{
    if (e->kind == RP_EV_FORGET) {
        FOR_TOUCHED_IN(j, f->touched, f->n_touched, e->obj, e->size)
            byte_edges(f->touched[j], false, p, bytes, g);
        return;
    }
    for (uint32_t k = 0; k < e->size; k++)
        byte_edges(e->obj + k, e->kind == RP_EV_READ, p, bytes, g);
}

/* Edges of G^Opt_S (transitively reduced where that is cheap). */
static void build_graph(const rp_tcfacts *f, const uint32_t *S, const uint32_t *sev, graph *g)
{
    const rp_event *log = f->log;
    rp_u64map bytes, sends;
    uint32_t *last_thread = rp_malloc("rp.trcone.graph", (f->n_threads + 1) * sizeof(uint32_t));
    uint32_t *last_rel = rp_malloc("rp.trcone.graph", (f->n_locks + 1) * sizeof(uint32_t));
    for (uint32_t t = 0; t < f->n_threads; t++)
        last_thread[t] = TC_NONE;
    for (uint32_t l = 0; l < f->n_locks; l++)
        last_rel[l] = TC_NONE;
    u64map_init(&bytes);
    u64map_init(&sends);
    for (uint32_t p = 0; p < g->m; p++) {
        uint32_t i = sev[p];
        const rp_event *e = &log[i];
        edge(g, last_thread[e->tid], p);
        last_thread[e->tid] = p;
        if (f->tpos[i] == 0 && f->fork_at[e->tid] != TC_NONE)
            edge(g, at(g, f->fork_at[e->tid]), p);
        switch (e->kind) {
        case RP_EV_JOIN: {
            uint32_t len = tc_thread_len(f, (uint32_t)e->obj);
            if (len != 0)
                edge(g, at(g, tc_thread_event(f, (uint32_t)e->obj, len - 1)), p);
            break;
        }
        case RP_EV_SYNC_SEND: {
            rp_u64vec *v = u64map_get(&sends, e->obj);
            if (v == NULL) {
                v = rp_calloc("rp.trcone.graph", 1, sizeof *v);
                u64map_put(&sends, e->obj, v);
            }
            u64vec_push(v, p);
            break;
        }
        case RP_EV_SYNC_RECV: {
            const rp_u64vec *v = u64map_get(&sends, e->obj);
            for (uint32_t j = 0; v != NULL && j < v->n; j++)
                edge(g, (uint32_t)v->v[j], p);
            break;
        }
        case RP_EV_READ:
        case RP_EV_WRITE:
        case RP_EV_FORGET:
            access_edges(f, e, p, &bytes, g);
            break;
        case RP_EV_ACQUIRE:
        case RP_EV_ACQUIRE_SHARED: {
            uint32_t r = f->match[i], l = f->lock_id[i];
            if (r != TC_NONE && tc_in(f, S, r)) {
                edge(g, last_rel[l], p);
            } else {
                uint32_t last = tc_last_release(f, S, l);
                edge(g, at(g, last), p);
            }
            break;
        }
        case RP_EV_RELEASE:
        case RP_EV_RELEASE_SHARED:
            last_rel[f->lock_id[i]] = p;
            break;
        default:
            break;
        }
    }
    u64map_for_each(&bytes, free_byte, NULL);
    u64map_free(&bytes);
    u64map_for_each(&sends, free_vec, NULL);
    u64map_free(&sends);
    rp_free(last_thread);
    rp_free(last_rel);
}

static void heap_push(uint32_t *h, uint32_t *n, uint32_t v)
{
    uint32_t i = (*n)++;
    for (; i > 0 && h[(i - 1) / 2] > v; i = (i - 1) / 2)
        h[i] = h[(i - 1) / 2];
    h[i] = v;
}

static uint32_t heap_pop(uint32_t *h, uint32_t *n)
{
    uint32_t top = h[0], v = h[--*n], i = 0;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= *n)
            break;
        if (c + 1 < *n && h[c + 1] < h[c])
            c++;
        if (h[c] >= v)
            break;
        h[i] = h[c];
        i = c;
    }
    if (*n > 0)
        h[i] = v;
    return top;
}

bool tc_linearize(const rp_tcfacts *f, const uint32_t *S, uint32_t from, uint32_t *loc,
                  rp_witness *w)
{
    uint32_t end = tc_end(f, S), m = 0;
    uint32_t *sev = rp_malloc("rp.trcone.graph", ((size_t)end + 1) * sizeof(uint32_t));
    for (uint32_t i = from; i < end; i++)
        if (tc_in(f, S, i)) {
            loc[i] = m;
            sev[m++] = i;
        }
    graph g = { { NULL, 0, 0 }, m, from, loc };
    build_graph(f, S, sev, &g);
    uint32_t *off = rp_calloc("rp.trcone.graph", (size_t)m + 2, sizeof(uint32_t));
    uint32_t *indeg = rp_calloc("rp.trcone.graph", (size_t)m + 1, sizeof(uint32_t));
    uint32_t *adj = rp_malloc("rp.trcone.graph", ((size_t)g.edges.n + 1) * sizeof(uint32_t));
    uint32_t *heap = rp_malloc("rp.trcone.graph", ((size_t)m + 1) * sizeof(uint32_t));
    for (uint32_t k = 0; k < g.edges.n; k++) {
        off[(g.edges.v[k] >> 32) + 1]++;
        indeg[(uint32_t)g.edges.v[k]]++;
    }
    for (uint32_t p = 0; p < m; p++)
        off[p + 1] += off[p];
    for (uint32_t k = 0; k < g.edges.n; k++)
        adj[off[g.edges.v[k] >> 32]++] = (uint32_t)g.edges.v[k];
    for (uint32_t p = m; p > 0; p--)    /* off[p] was advanced to the end of p */
        off[p] = off[p - 1];
    off[0] = 0;
    uint32_t nh = 0, out = 0;
    for (uint32_t p = 0; p < m; p++)
        if (indeg[p] == 0)
            heap_push(heap, &nh, p);
    while (nh > 0) {
        uint32_t p = heap_pop(heap, &nh);
        witness_push(w, sev[p]);
        out++;
        for (uint32_t k = off[p]; k < off[p + 1]; k++)
            if (--indeg[adj[k]] == 0)
                heap_push(heap, &nh, adj[k]);
    }
    u64vec_free(&g.edges);
    rp_free(off);
    rp_free(indeg);
    rp_free(adj);
    rp_free(heap);
    rp_free(sev);
    return out == m;
}

/* ---- witnesses by reversal for one pair ---------------------------------- */

/* Seed 004's Algorithm 1 on the cone: each pass joins the release of every
 * open acquire whose TRClosure holds neither access; until a pass adds
 * nothing. */
static void optimistic_close(const rp_tcfacts *f, uint32_t *cone, uint32_t e1, uint32_t e2)
{
    bool grew = true;
    while (grew) {
        grew = false;
        for (uint32_t t = 0; t < f->n_threads; t++)
            for (uint32_t k = tc_held(f, t, cone[t]); k != TC_NONE; k = f->node_next[k]) {
                uint32_t r = f->match[f->node_acq[k]];
                if (r != TC_NONE && !tc_clock_has(f, r, e1) && !tc_clock_has(f, r, e2) &&
                    tc_join(f, cone, r))
                    grew = true;
            }
    }
}

/* A fixed acquire left open while its lock has another section in the
 * cone: G^Opt would move it after that section's release. */
static bool fixed_acquire_moves(const rp_tcfacts *f, const uint32_t *cone, uint32_t n_fixed)
{
    for (uint32_t i = 0; i < n_fixed; i++) {
        uint32_t r = f->match[i];
        if (is_acquire(&f->log[i]) && (r == TC_NONE || !tc_in(f, cone, r)) &&
            tc_last_release(f, cone, f->lock_id[i]) != TC_NONE)
            return true;
    }
    return false;
}

bool tc_reversal_witness(const rp_tcfacts *f, uint32_t n_fixed, uint32_t e1, uint32_t e2,
                         uint32_t *cone, uint32_t *loc, rp_witness *w)
{
    uint32_t open;
    witness_clear(w);
    w->e1 = e1;
    w->e2 = e2;
    if (!conflicting_pair(f, e1, e2))
        return false;
    rp_memset(cone, 0, f->n_threads * sizeof *cone);
    for (uint32_t i = 0; i < n_fixed; i++)
        tc_join(f, cone, i);
    tc_join(f, cone, e1);
    tc_join(f, cone, e2);
    optimistic_close(f, cone, e1, e2);
    if (tc_in(f, cone, e1) || tc_in(f, cone, e2) || tc_open_acquires(f, cone, &open) ||
        fixed_acquire_moves(f, cone, n_fixed))
        return false;
    return tc_linearize(f, cone, 0, loc, w);
}
