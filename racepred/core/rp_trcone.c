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
    /* releases per lock as tid << 32 | tpos, sorted */
    f->rel_off = rp_calloc("rp.trcone", (size_t)f->n_locks + 2, sizeof(uint32_t));
    for (uint32_t i = 0; i < f->n; i++)
        if (is_release(&f->log[i]))
            f->rel_off[f->lock_id[i] + 1]++;
    for (uint32_t l = 0; l < f->n_locks; l++)
        f->rel_off[l + 1] += f->rel_off[l];
    f->rels = rp_malloc("rp.trcone", ((size_t)f->rel_off[f->n_locks] + 1) * sizeof(uint64_t));
    uint32_t *fill = alloc_u32(f->n_locks);
    for (uint32_t l = 0; l < f->n_locks; l++)
        fill[l] = f->rel_off[l];
    for (uint32_t i = 0; i < f->n; i++)
        if (is_release(&f->log[i]))
            f->rels[fill[f->lock_id[i]]++] = (uint64_t)f->log[i].tid << 32 | f->tpos[i];
    for (uint32_t l = 0; l < f->n_locks; l++)
        sort_u64(f->rels + f->rel_off[l], f->rel_off[l + 1] - f->rel_off[l]);
    rp_free(fill);
    u64map_free(&ids);
    u64map_free(&open);
}

/* observed writers of every read byte */
static void build_writers(rp_tcfacts *f)
{
    rp_u64map last;
    u64map_init(&last);
    f->writer_off = rp_calloc("rp.trcone", (size_t)f->n + 2, sizeof(uint32_t));
    for (uint32_t i = 0; i < f->n; i++)
        f->writer_off[i + 1] = f->writer_off[i] + (f->log[i].kind == RP_EV_READ ? f->log[i].size : 0);
    f->writers = alloc_u32(f->writer_off[f->n]);
    for (uint32_t i = 0; i < f->n; i++) {
        const rp_event *e = &f->log[i];
        if (e->kind == RP_EV_FORGET) {
            FOR_TOUCHED_IN(j, f->touched, f->n_touched, e->obj, e->size)
                u64map_put(&last, f->touched[j], (void *)(uintptr_t)(i + 1));
            continue;
        }
        for (uint32_t k = 0; k < e->size && (e->kind == RP_EV_READ || writes(e)); k++) {
            if (e->kind == RP_EV_READ)
                f->writers[f->writer_off[i] + k] = (uint32_t)(uintptr_t)u64map_get(&last, e->obj + k) - 1;
            else
                u64map_put(&last, e->obj + k, (void *)(uintptr_t)(i + 1));
        }
    }
    u64map_free(&last);
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

/* The vector-clock pass over thread order, fork/join, reads-from, sends. */
static void build_clocks(rp_tcfacts *f)
{
    uint32_t nt = f->n_threads, count = 0;
    f->clock_of = alloc_u32(f->n);
    for (uint32_t i = 0; i < f->n; i++) {
        const rp_event *e = &f->log[i];
        f->clock_of[i] = rp_event_is_access(e) || writes(e) || is_release(e) ? count++ : TC_NONE;
    }
    f->clocks = rp_calloc("rp.trcone.clocks", (size_t)count * nt + 1, sizeof(uint32_t));
    uint32_t *c = rp_calloc("rp.trcone", (size_t)nt * nt + 1, sizeof(uint32_t));
    rp_u64map sends;
    u64map_init(&sends);
    for (uint32_t i = 0; i < f->n; i++) {
        const rp_event *e = &f->log[i];
        uint32_t *ct = c + (size_t)e->tid * nt;
        if (rp_event_is_access(e) || writes(e))
            rp_memcpy(f->clocks + (size_t)f->clock_of[i] * nt, ct, nt * sizeof *ct);
        if (e->kind == RP_EV_READ) {
            for (uint32_t k = 0; k < e->size; k++) {
                uint32_t w = f->writers[f->writer_off[i] + k];
                if (w == TC_NONE)
                    continue;
                join_into(ct, f->clocks + (size_t)f->clock_of[w] * nt, nt);
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
        } else if (is_release(e)) {
            rp_memcpy(f->clocks + (size_t)f->clock_of[i] * nt, ct, nt * sizeof *ct);
        }
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
}

void tc_free(rp_tcfacts *f)
{
    uint32_t *arrays[] = { f->tpos, f->thread_off, f->thread_ev, f->fork_at, f->match,
                           f->lock_id, f->writer_off, f->writers, f->clock_of, f->clocks,
                           f->held, f->node_acq, f->node_next, f->rel_off };
    for (unsigned k = 0; k < sizeof arrays / sizeof arrays[0]; k++)
        rp_free(arrays[k]);
    rp_free(f->rels);
    rp_free(f->touched);
    rp_memset(f, 0, sizeof *f);
}

bool tc_join(const rp_tcfacts *f, uint32_t *cone, uint32_t e)
{
    const uint32_t *clk = f->clocks + (size_t)f->clock_of[e] * f->n_threads;
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
    const uint32_t *clk = f->clocks + (size_t)f->clock_of[r] * f->n_threads;
    return f->tpos[e] < clk[f->log[e].tid];
}

uint32_t tc_last_release(const rp_tcfacts *f, const uint32_t *cone, uint32_t l)
{
    const uint64_t *r = f->rels + f->rel_off[l];
    uint32_t n = f->rel_off[l + 1] - f->rel_off[l], best = TC_NONE;
    for (uint32_t t = 0; t < f->n_threads; t++) {
        if (cone[t] == 0)
            continue;
        uint64_t key = (uint64_t)t << 32 | cone[t];
        uint32_t lo = 0, hi = n;          /* first entry >= key */
        while (lo < hi) {
            uint32_t mid = lo + (hi - lo) / 2;
            if (r[mid] < key)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0 || (uint32_t)(r[lo - 1] >> 32) != t)
            continue;
        uint32_t ev = tc_thread_event(f, t, (uint32_t)r[lo - 1]);
        if (best == TC_NONE || ev > best)
            best = ev;
    }
    return best;
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

/* ---- optimistic linearisation (G^Opt of seed 004) ------------------------ */

typedef struct graph {
    rp_u64vec edges;        /* src << 32 | dst, positions in S */
    uint32_t m;
} graph;

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
static void build_graph(const rp_tcfacts *f, const uint32_t *S, const uint32_t *loc,
                        const uint32_t *sev, graph *g)
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
            edge(g, loc[f->fork_at[e->tid]], p);
        switch (e->kind) {
        case RP_EV_JOIN: {
            uint32_t len = tc_thread_len(f, (uint32_t)e->obj);
            if (len != 0)
                edge(g, loc[tc_thread_event(f, (uint32_t)e->obj, len - 1)], p);
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
                edge(g, last == TC_NONE ? TC_NONE : loc[last], p);
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

bool tc_linearize(const rp_tcfacts *f, const uint32_t *S, uint32_t *loc, rp_witness *w)
{
    uint32_t end = tc_end(f, S), m = 0;
    uint32_t *sev = rp_malloc("rp.trcone.graph", ((size_t)end + 1) * sizeof(uint32_t));
    for (uint32_t i = 0; i < end; i++)
        if (tc_in(f, S, i)) {
            loc[i] = m;
            sev[m++] = i;
        }
    graph g = { { NULL, 0, 0 }, m };
    build_graph(f, S, loc, sev, &g);
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
