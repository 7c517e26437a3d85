/* rp_spclosure.c — the sync-preserving closure and its witnesses
 * (rp_spclosure.h).
 *
 * State of one closure: len[t] = number of thread t's events in S,
 * done[t] = how many of them the worklist has processed.  Processing an
 * event applies the closure rules that start from it; each rule only ever
 * raises some len[u].  The lock rule keeps per lock, over its acquires in
 * trace order (rank 0, 1, ...):
 *   m_any   highest rank of an acquire in S (NONE if none yet),
 *   m_excl  highest rank of an exclusive acquire in S,
 *   scan_any / scan_excl   ranks below which the acquires in S were
 *           already given their release for the current m_any / m_excl.
 * An exclusive acquire below m_any, or a shared one below m_excl, needs its
 * release.  A newly processed acquire below the maxima takes its release
 * itself; one that raises a maximum sweeps the ranks between the old scan
 * position and itself for acquires already in S.  So each acquire of a
 * lock is swept at most twice per closure.
 */
#include "rp_spclosure.h"

#include "rp_array.h"
#include "rp_shim.h"
#include "rp_sort.h"
#include "rp_u64map.h"

#define NONE UINT32_MAX

typedef struct spc_lock {
    uint32_t m_any, m_excl;
    uint32_t scan_any, scan_excl;
    bool touched;
    uint32_t saved_in;      /* the save epoch its old state was logged in */
} spc_lock;

typedef struct spc_undo {
    uint32_t lock;
    spc_lock old;
} spc_undo;

struct rp_spc {
    const rp_event *log;
    uint32_t n, n_threads, n_locks;
    /* facts of the log */
    uint32_t *tpos;         /* per event: position in its thread */
    uint32_t *thread_off;   /* per thread + 1: start in thread_ev */
    uint32_t *thread_ev;    /* events grouped by thread, program order */
    uint32_t *fork_at;      /* per thread: its fork or NONE */
    uint32_t *dep_off;      /* per event + 1: start in deps */
    uint32_t *deps;         /* read: its observed writers; recv: sends */
    uint32_t *lock_of;      /* per acquire: dense lock id (else NONE) */
    uint32_t *rank;         /* per acquire: rank among its lock's acquires */
    uint32_t *match;        /* per acquire: its release or NONE */
    uint32_t *lock_off;     /* per lock + 1: start in lock_acq */
    uint32_t *lock_acq;     /* acquires grouped by lock, trace order */
    /* one closure */
    uint32_t *len, *done;
    uint32_t *stack;        /* threads with done < len */
    uint8_t *on_stack;
    uint32_t n_stack;
    spc_lock *locks;
    uint32_t *touched;      /* locks whose state to reset */
    uint32_t n_touched;
    uint32_t first;
    uint32_t n_base;        /* log[0 .. n_base) is in every closure */
    bool no_lock_rule;      /* spc_set_lock_rule(false) */
    bool dead;              /* first in S, or a needed release missing */
    /* spc_save / spc_restore */
    uint32_t *saved_len, *saved_done;
    uint32_t saved_touched, epoch;
    bool saving, saved_dead;
    spc_undo *undo;
    uint32_t n_undo, cap_undo;
};

/* ---- facts ---------------------------------------------------------------- */

typedef struct u32vec {
    uint32_t *v;
    uint32_t n, cap;
} u32vec;

static void vec_push(u32vec *x, uint32_t v)
{
    x->v = rp_array_reserve_from("rp.spc", x->v, x->n, &x->cap, sizeof *x->v, 256);
    x->v[x->n++] = v;
}

static uint32_t *new_none_array(const char *cc, uint32_t n)
{
    uint32_t *a = rp_malloc(cc, ((size_t)n + 1) * sizeof *a);
    for (uint32_t i = 0; i <= n; i++)
        a[i] = NONE;
    return a;
}

static void index_threads(rp_spc *s)
{
    uint32_t T = 0;
    for (uint32_t i = 0; i < s->n; i++) {
        const rp_event *e = &s->log[i];
        if (e->tid + 1 > T)
            T = e->tid + 1;
        if ((e->kind == RP_EV_FORK || e->kind == RP_EV_JOIN) && e->obj + 1 > T)
            T = (uint32_t)e->obj + 1;
    }
    s->n_threads = T == 0 ? 1 : T;
    s->thread_off = rp_calloc("rp.spc", s->n_threads + 1, sizeof *s->thread_off);
    s->thread_ev = rp_malloc("rp.spc", ((size_t)s->n + 1) * sizeof *s->thread_ev);
    s->tpos = rp_malloc("rp.spc", ((size_t)s->n + 1) * sizeof *s->tpos);
    s->fork_at = new_none_array("rp.spc", s->n_threads);
    for (uint32_t i = 0; i < s->n; i++) {
        const rp_event *e = &s->log[i];
        s->tpos[i] = s->thread_off[e->tid + 1]++;
        if (e->kind == RP_EV_FORK && s->fork_at[e->obj] == NONE)
            s->fork_at[e->obj] = i;
    }
    for (uint32_t t = 0; t < s->n_threads; t++)
        s->thread_off[t + 1] += s->thread_off[t];
    for (uint32_t i = 0; i < s->n; i++)
        s->thread_ev[s->thread_off[s->log[i].tid] + s->tpos[i]] = i;
}

/* Reads: the distinct observed last writers of their bytes.  Recvs: the
 * last send on the object of each thread before them (sends of a thread
 * are a program-order chain, so its last one brings the others). */
static void index_deps(rp_spc *s)
{
    rp_u64map sends;
    rp_lastw writers;
    u32vec d = { NULL, 0, 0 };
    size_t nt;
    uint64_t *touched = touched_bytes(s->log, s->n, &nt);
    lastw_init(&writers, touched, nt);
    u64map_init(&sends);
    s->dep_off = rp_malloc("rp.spc", ((size_t)s->n + 1) * sizeof *s->dep_off);
    for (uint32_t i = 0; i < s->n; i++) {
        const rp_event *e = &s->log[i];
        s->dep_off[i] = d.n;
        if (e->kind == RP_EV_READ) {
            const uint32_t *w = lastw_of(&writers, e->obj);
            uint32_t prev = NONE;
            for (uint32_t k = 0; k < e->size; k++)
                if (w[k] != 0 && w[k] - 1 != prev)
                    vec_push(&d, prev = w[k] - 1);
        } else if (e->kind == RP_EV_WRITE || e->kind == RP_EV_FORGET) {
            lastw_write(&writers, e->obj, e->size, i);
        } else if (e->kind == RP_EV_SYNC_SEND || e->kind == RP_EV_SYNC_RECV) {
            uint32_t *last = u64map_get(&sends, e->obj);
            if (last == NULL) {
                last = new_none_array("rp.spc.sends", s->n_threads);
                u64map_put(&sends, e->obj, last);
            }
            if (e->kind == RP_EV_SYNC_SEND)
                last[e->tid] = i;
            else
                for (uint32_t t = 0; t < s->n_threads; t++)
                    if (last[t] != NONE)
                        vec_push(&d, last[t]);
        }
    }
    s->dep_off[s->n] = d.n;
    s->deps = d.v;
    lastw_free(&writers);
    rp_free(touched);
    u64map_free_with_values(&sends);
}

static bool is_acquire(uint8_t kind)
{
    return kind == RP_EV_ACQUIRE || kind == RP_EV_ACQUIRE_SHARED;
}

/* Dense lock ids, acquire ranks, matching releases (an exclusive release
 * matches its thread's open acquire of the lock, a shared release its
 * thread's open shared acquire). */
static void index_locks(rp_spc *s)
{
    rp_u64map ids, open;
    u64map_init(&ids);
    u64map_init(&open);
    s->lock_of = new_none_array("rp.spc", s->n);
    s->rank = new_none_array("rp.spc", s->n);
    s->match = new_none_array("rp.spc", s->n);
    for (uint32_t i = 0; i < s->n; i++) {
        const rp_event *e = &s->log[i];
        if (!is_acquire(e->kind) && e->kind != RP_EV_RELEASE && e->kind != RP_EV_RELEASE_SHARED)
            continue;
        uintptr_t id = (uintptr_t)u64map_get(&ids, e->obj);
        uint32_t *per_thread = u64map_get(&open, e->obj);
        if (id == 0) {
            id = ++s->n_locks;
            u64map_put(&ids, e->obj, (void *)id);
            per_thread = new_none_array("rp.spc.open", s->n_threads);
            u64map_put(&open, e->obj, per_thread);
        }
        if (is_acquire(e->kind)) {
            s->lock_of[i] = (uint32_t)id - 1;
            per_thread[e->tid] = i;
        } else if (per_thread[e->tid] != NONE) {
            s->match[per_thread[e->tid]] = i;
            per_thread[e->tid] = NONE;
        }
    }
    s->lock_off = rp_calloc("rp.spc", (size_t)s->n_locks + 2, sizeof *s->lock_off);
    for (uint32_t i = 0; i < s->n; i++)
        if (s->lock_of[i] != NONE)
            s->rank[i] = s->lock_off[s->lock_of[i] + 1]++;
    for (uint32_t l = 0; l < s->n_locks; l++)
        s->lock_off[l + 1] += s->lock_off[l];
    s->lock_acq = rp_malloc("rp.spc", ((size_t)s->lock_off[s->n_locks] + 1) * sizeof *s->lock_acq);
    for (uint32_t i = 0; i < s->n; i++)
        if (s->lock_of[i] != NONE)
            s->lock_acq[s->lock_off[s->lock_of[i]] + s->rank[i]] = i;
    u64map_free(&ids);
    u64map_free_with_values(&open);
}

rp_spc *spc_create(const rp_event *log, uint32_t n)
{
    rp_spc *s = rp_calloc("rp.spc", 1, sizeof *s);
    s->log = log;
    s->n = n;
    index_threads(s);
    index_deps(s);
    index_locks(s);
    s->len = rp_calloc("rp.spc", s->n_threads, sizeof *s->len);
    s->done = rp_calloc("rp.spc", s->n_threads, sizeof *s->done);
    s->stack = rp_malloc("rp.spc", s->n_threads * sizeof *s->stack);
    s->on_stack = rp_calloc("rp.spc", s->n_threads, 1);
    s->locks = rp_calloc("rp.spc", (size_t)s->n_locks + 1, sizeof *s->locks);
    s->touched = rp_malloc("rp.spc", ((size_t)s->n_locks + 1) * sizeof *s->touched);
    s->saved_len = rp_calloc("rp.spc", s->n_threads, sizeof *s->saved_len);
    s->saved_done = rp_calloc("rp.spc", s->n_threads, sizeof *s->saved_done);
    for (uint32_t l = 0; l < s->n_locks; l++)
        s->locks[l].m_any = s->locks[l].m_excl = NONE;
    s->first = NONE;
    return s;
}

void spc_destroy(rp_spc *s)
{
    if (s == NULL)
        return;
    rp_free(s->tpos);
    rp_free(s->thread_off);
    rp_free(s->thread_ev);
    rp_free(s->fork_at);
    rp_free(s->dep_off);
    rp_free(s->deps);
    rp_free(s->lock_of);
    rp_free(s->rank);
    rp_free(s->match);
    rp_free(s->lock_off);
    rp_free(s->lock_acq);
    rp_free(s->len);
    rp_free(s->done);
    rp_free(s->stack);
    rp_free(s->on_stack);
    rp_free(s->locks);
    rp_free(s->touched);
    rp_free(s->saved_len);
    rp_free(s->saved_done);
    rp_free(s->undo);
    rp_free(s);
}

/* ---- the closure ---------------------------------------------------------- */

static inline bool in_s(const rp_spc *s, uint32_t i)
{
    return s->tpos[i] < s->len[s->log[i].tid];
}

static void raise_len(rp_spc *s, rp_tid_t t, uint32_t k)
{
    if (k <= s->len[t])
        return;
    s->len[t] = k;
    if (!s->on_stack[t]) {
        s->on_stack[t] = 1;
        s->stack[s->n_stack++] = t;
    }
}

static void need(rp_spc *s, uint32_t i)
{
    raise_len(s, s->log[i].tid, s->tpos[i] + 1);
}

static void need_release(rp_spc *s, uint32_t acq)
{
    if (s->match[acq] == NONE)
        s->dead = true;     /* never released: cannot close it */
    else
        need(s, s->match[acq]);
}

/* While a state is saved, the first change of a lock logs its old state. */
static void log_lock(rp_spc *s, uint32_t l)
{
    spc_lock *lk = &s->locks[l];
    if (!s->saving || lk->saved_in == s->epoch)
        return;
    s->undo = rp_array_reserve_from("rp.spc.undo", s->undo, s->n_undo, &s->cap_undo,
                                    sizeof *s->undo, 64);
    s->undo[s->n_undo].lock = l;
    s->undo[s->n_undo++].old = *lk;
    lk->saved_in = s->epoch;
}

static spc_lock *touch_lock(rp_spc *s, uint32_t l)
{
    spc_lock *lk = &s->locks[l];
    log_lock(s, l);
    if (!lk->touched) {
        lk->touched = true;
        s->touched[s->n_touched++] = l;
    }
    return lk;
}

/* Acquires of lock l with rank in [from, to) that are in S and of the given
 * kind need their releases. */
static void sweep(rp_spc *s, uint32_t l, uint32_t from, uint32_t to, bool exclusive)
{
    const uint32_t *acq = &s->lock_acq[s->lock_off[l]];
    for (uint32_t r = from; r < to; r++)
        if (in_s(s, acq[r]) && (s->log[acq[r]].kind == RP_EV_ACQUIRE) == exclusive)
            need_release(s, acq[r]);
}

static void lock_rule(rp_spc *s, uint32_t i)
{
    uint32_t l = s->lock_of[i], r = s->rank[i];
    bool excl = s->log[i].kind == RP_EV_ACQUIRE;
    spc_lock *lk = touch_lock(s, l);
    if ((excl && lk->m_any != NONE && r < lk->m_any) ||
        (!excl && lk->m_excl != NONE && r < lk->m_excl))
        need_release(s, i);
    if (lk->m_any == NONE || r > lk->m_any) {
        lk->m_any = r;
        sweep(s, l, lk->scan_any, r, true);
        lk->scan_any = r;
    }
    if (excl && (lk->m_excl == NONE || r > lk->m_excl)) {
        lk->m_excl = r;
        sweep(s, l, lk->scan_excl, r, false);
        lk->scan_excl = r;
    }
}

static void process(rp_spc *s, uint32_t i)
{
    const rp_event *e = &s->log[i];
    if (s->tpos[i] == 0 && s->fork_at[e->tid] != NONE)
        need(s, s->fork_at[e->tid]);
    for (uint32_t k = s->dep_off[i]; k < s->dep_off[i + 1]; k++)
        need(s, s->deps[k]);
    if (e->kind == RP_EV_JOIN) {
        rp_tid_t child = (rp_tid_t)e->obj;
        raise_len(s, child, s->thread_off[child + 1] - s->thread_off[child]);
    } else if (s->lock_of[i] != NONE && !s->no_lock_rule) {
        lock_rule(s, i);
    }
}

static void run(rp_spc *s)
{
    rp_tid_t tf = s->log[s->first].tid;
    uint32_t pf = s->tpos[s->first];
    while (s->n_stack != 0 && !s->dead) {
        rp_tid_t t = s->stack[s->n_stack - 1];
        if (s->done[t] == s->len[t]) {
            s->n_stack--;
            s->on_stack[t] = 0;
            continue;
        }
        process(s, s->thread_ev[s->thread_off[t] + s->done[t]++]);
        if (s->len[tf] > pf)
            s->dead = true;
    }
}

/* Program-order predecessors of x (its thread's earlier events, or its
 * fork when x is the first event of a forked thread). */
static void seed(rp_spc *s, uint32_t x)
{
    rp_tid_t t = s->log[x].tid;
    if (s->tpos[x] > 0)
        raise_len(s, t, s->tpos[x]);
    else if (s->fork_at[t] != NONE)
        need(s, s->fork_at[t]);
}

static void reset(rp_spc *s)
{
    rp_assert(!s->saving);
    for (uint32_t t = 0; t < s->n_threads; t++) {
        s->len[t] = s->done[t] = 0;
        s->on_stack[t] = 0;
    }
    s->n_stack = 0;
    for (uint32_t k = 0; k < s->n_touched; k++) {
        spc_lock *lk = &s->locks[s->touched[k]];
        lk->m_any = lk->m_excl = NONE;
        lk->scan_any = lk->scan_excl = 0;
        lk->touched = false;
    }
    s->n_touched = 0;
    s->dead = false;
}

void spc_set_base(rp_spc *s, uint32_t n_base)
{
    rp_assert(n_base <= s->n);
    s->n_base = n_base;
}

void spc_set_lock_rule(rp_spc *s, bool on)
{
    rp_assert(!s->saving);
    s->no_lock_rule = !on;
}

void spc_begin(rp_spc *s, uint32_t first)
{
    rp_assert(first < s->n);
    reset(s);
    s->first = first;
    for (uint32_t i = 0; i < s->n_base; i++)
        need(s, i);
    seed(s, first);
    run(s);
}

rp_spc_result spc_extend(rp_spc *s, uint32_t second)
{
    rp_assert(second < s->n && s->first != NONE);
    if (s->dead)
        return RP_SPC_FIRST_IN;
    seed(s, second);
    run(s);
    if (s->dead)
        return RP_SPC_FIRST_IN;
    return in_s(s, second) ? RP_SPC_SECOND_IN : RP_SPC_RACE;
}

void spc_witness(const rp_spc *s, uint32_t second, rp_witness *w)
{
    witness_clear(w);
    w->e1 = s->first;
    w->e2 = second;
    /* S is a prefix per thread: one pass up to its last event (below
     * `second` on a well-formed log, rp_spclosure.h). */
    uint32_t end = 0;
    for (uint32_t t = 0; t < s->n_threads; t++)
        if (s->len[t] != 0 && s->thread_ev[s->thread_off[t] + s->len[t] - 1] + 1 > end)
            end = s->thread_ev[s->thread_off[t] + s->len[t] - 1] + 1;
    for (uint32_t i = 0; i < end; i++)
        if (in_s(s, i))
            witness_push(w, i);
}

void spc_advance(rp_spc *s, uint32_t first)
{
    rp_assert(s->first != NONE && !s->saving && s->log[first].tid == s->log[s->first].tid &&
              first > s->first);
    s->first = first;
    if (s->dead)
        return;
    seed(s, first);
    run(s);
}

bool spc_dead(const rp_spc *s)
{
    return s->dead;
}

void spc_save(rp_spc *s)
{
    rp_assert(!s->saving && s->n_stack == 0);
    rp_memcpy(s->saved_len, s->len, s->n_threads * sizeof *s->len);
    rp_memcpy(s->saved_done, s->done, s->n_threads * sizeof *s->done);
    s->saved_touched = s->n_touched;
    s->saved_dead = s->dead;
    s->epoch++;
    s->saving = true;
}

void spc_restore(rp_spc *s)
{
    rp_assert(s->saving);
    rp_memcpy(s->len, s->saved_len, s->n_threads * sizeof *s->len);
    rp_memcpy(s->done, s->saved_done, s->n_threads * sizeof *s->done);
    /* a run cut short by `dead` may leave threads on the stack */
    while (s->n_stack != 0)
        s->on_stack[s->stack[--s->n_stack]] = 0;
    while (s->n_undo != 0) {
        spc_undo *u = &s->undo[--s->n_undo];
        s->locks[u->lock] = u->old;
    }
    s->n_touched = s->saved_touched;
    s->dead = s->saved_dead;
    s->saving = false;
}

const uint32_t *spc_cone(const rp_spc *s)
{
    return s->len;
}

uint32_t spc_threads(const rp_spc *s)
{
    return s->n_threads;
}

uint32_t spc_cone_last(const rp_spc *s, uint32_t t)
{
    if (t >= s->n_threads || s->len[t] == 0)
        return NONE;
    return s->thread_ev[s->thread_off[t] + s->len[t] - 1];
}

bool witness_for_pair(rp_spc *s, uint32_t e1, uint32_t e2, rp_witness *w)
{
    witness_clear(w);
    w->e1 = e1;
    w->e2 = e2;
    if (e1 >= e2 || e2 >= s->n || s->log[e1].tid == s->log[e2].tid)
        return false;
    spc_begin(s, e1);
    if (spc_extend(s, e2) != RP_SPC_RACE)
        return false;
    spc_witness(s, e2, w);
    return true;
}
