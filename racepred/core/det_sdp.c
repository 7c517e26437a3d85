/* det_sdp.c — the strong-dependence-aware-prediction detector ("sdp"),
 * Genç, Roemer, Xu, Bond OOPSLA'19 §3.1, §5.1 (Alg 1) (seed 001 digest §2
 * "SDP", errata E4–E6, E10–E11).
 *
 * What it reports: conflicting accesses (same bytes, different threads, at
 * least one write) with disjoint locksets (rp_locksets.h) that neither SDP
 * nor thread order (program order, fork/join, sync send → receive) orders.
 * SDP is the smallest relation with, for releases r1 <tr r2 of one lock
 * and e1 ∈ CS(r1), e2 ∈ CS(r2) (the second section may be open, E4):
 *   1. r1 before e2 if e1, e2 conflict (different threads) and one of them
 *      is a read — write–write conflicts are not ordered directly;
 *   2. r1 before e3 if e1, e2 are conflicting writes and e3 is a read of
 *      the variable by e2's thread after e2 (in or out of a section);
 *   3. r1 before r2 if the acquire of r1 is SDP-before r2;
 *   4. r1 before r2 (both on lock n, distinct sections) if e1 ∈ CS(s1) and
 *      e2 ∈ CS(s2) are conflicting writes under a lock m, s1 <tr e2,
 *      A(r1) <HB s1, e2 <HB r2, and e1 ∉ CS(r1) or e2 ∉ CS(r2);
 *   5. closed under composition with HB on both sides.
 * Sound (§4.2: an SDP race implies a predictable race or a predictable
 * deadlock — s002-ls-deadlock 4-9 is such a deadlock), incomplete (Table
 * 3); reports every WCP race and more, never a race of two writes that
 * HB-ordered sections protect only through their write–write conflict.
 * observed = the pair is also unordered by HB.  Branches play no part in
 * SDP (Alg 1: "BRANCH: skip"), so the detector does not ask for them; its
 * companion wdp does.
 *
 * Clocks (rp_vc.h discipline; own entries 1 initially, incremented after a
 * release, fork or send; an access takes epoch t#H(t)[t]):
 *   H(t)  HB;  P(t)  strict SDP predecessors (composed with HB: joins of
 *         HB clocks of releases);  C(t) = P(t) ⊔ thread order, the race
 *         check: an earlier access u#k is ordered iff k <= C(t)[u];
 *   K(t)  rule 4: the join of H(s1) over the write–write conflicts (s1, e2)
 *         with e2 HB-before t's current event, carried along HB;
 *   Y(n)  per open section of t on n: K(t) at its acquire, joined with the
 *         K clocks imported while it is open — the conflicts HB-before r2
 *         whose e2 is not in CS(r2).
 * Per (lock l, byte x, thread u): the HB clock of u's last release of a
 * section on l that read / wrote x, and the first and last ids of the
 * writes of x in it.  Per lock and thread: the history of sections
 * (acquire epoch and id, release id, release HB clock), kept by rp_csrules
 * (csrules_create_histories).
 *   read(t,x)     rule 1: P, C ⊔= write marks of other threads on held
 *                 locks; rule 2: P, C ⊔= B(t,x)
 *   write(t,x)    rule 1: P, C ⊔= read marks of other threads; for each
 *                 write mark (s1 of thread u): B(t,x) ⊔= it (rule 2),
 *                 K(t) ⊔= it and the conflict is noted in every open
 *                 section of t (rule 4, e2 ∈ CS(r2))
 *   release(t,n)  rule 4: for each thread v, the last released section r1
 *                 of v on n with A(r1) <HB some s1 — A(r1)'s epoch <= Y[v]
 *                 (e2 ∉ CS(r2)), or <= H(s1)[v] for a conflict noted in this
 *                 section, skipping the section of v that holds all of s1's
 *                 writes (e1 ∈ CS(r1)) — and rule 3 (A(r1)'s epoch <= P[v],
 *                 own thread included, to fixpoint): P, C ⊔= H(r1); publish
 *                 the section's marks with H; H(n), P(n), K(n) := H, P, K;
 *                 increment
 *   acquire(t,n)  H ⊔= H(n); P, C ⊔= P(n) (right composition); K ⊔= K(n);
 *                 the Y of t's other open sections ⊔= K(n); Y(n) := K
 * The later release of one thread's sections on a lock dominates its
 * earlier ones, so "the last qualifying section" (binary search on acquire
 * epochs) stands for all.  Choices: sections of the same thread do not
 * conflict (seed 001's definition; the published algorithm also joins the
 * thread's own marks, which orders more); rule 4's s2 may be open (as rule
 * 1's second section; no vector depends on it); with properly nested
 * sections only the last section of u on m that wrote x matters as s1.
 * Known approximation: a K imported while a section on n is open can carry
 * a conflict whose e2 is in that section (its thread released a lock after
 * e2, another thread took it, the section's thread re-took it); Y then
 * holds it as if e2 ∉ CS(r2) — more order, fewer races, never a false one.
 * Read-write locks are not reordered: read-side sections are ordered after
 * the previous exclusive release and before the next exclusive acquire, as
 * hard edges (as in wcp).  RP_EV_FORGET forgets race candidates, the
 * marks and B(t,x) of the bytes: accesses before and after a forget do not
 * conflict (rp_event.h), so fresh memory is a new variable (as in
 * rp_csrules).
 *
 * Cost: per access O(held locks × bytes × threads) clock joins; per release
 * O(threads × (1 + conflicts noted) × log sections) plus the publication,
 * O(accesses × bytes × threads).
 *
 * Memory, bounded as rp_csrules.h says for wcp/dc (the same options, the
 * same counters, the same summary lines):
 *   - one clock per critical section, in rp_csrules' histories: a thread's
 *     query "the last section of v acquired by a bound" consumes that
 *     section and every earlier one of v (their release clocks are below
 *     the one it joined or already held, and P only grows), so what every
 *     live thread — v included, its own sections count for it — has
 *     consumed goes; forked threads start with their parent's
 *     consumption; ended threads (exited or joined) consume nothing.  The
 *     rest is bounded by --cs-sections with the summary section standing
 *     for the dropped ones; a bound landing on a dropped section that is
 *     not the summary joins nothing (counted as missed): less order;
 *   - two clocks per (lock, byte, thread) ever accessed under the lock
 *     (the marks), dropped with fresh memory and bounded by --cs-bytes
 *     (lock, byte) pairs: over it, the locks with the most pairs lose
 *     their marks (counted), so rules 1, 2 and 4 lose the edges from those
 *     sections: less order;
 *   - an open section's log (rp_cs_log: repeats merged, at most --cs-bytes
 *     distinct accesses; later ones are not published — the argument of
 *     rp_csrules.h: the edges that remain are the relation's, so the
 *     detector orders less, reports the same races or more, and none is an
 *     error without a witness);
 *   - B(t,x) per thread and byte, dropped with fresh memory and when t ends;
 *     one clock per conflict noted in an open section, at most
 *     --cs-sections per section (more are not noted: counted as needed
 *     sections the bound dropped).
 * Less order here means a subset of SDP's edges: the detector stays a
 * predictor of the same races or more, no longer sound on its own.
 */
#include "rp_allpairs.h"
#include "rp_array.h"
#include "rp_clocks.h"
#include "rp_csrules.h"
#include "rp_detector.h"
#include "rp_locksets.h"
#include "rp_shim.h"

/* The clocks a lock release or a sync object passes on. */
typedef struct sdp_clocks {
    rp_vc h, p, c, k;
} sdp_clocks;

/* A write–write conflict whose e2 is in an open section: s1's release
 * clock, thread and the ids of its first and last write of the byte. */
typedef struct sdp_conflict {
    rp_vc s1;
    uint64_t s1_serial, lo, hi;
    rp_tid_t u;
} sdp_conflict;

typedef struct sdp_section {
    uint64_t lock;
    rp_vc y;
    rp_cs_log acc;
    sdp_conflict *conf;
    uint32_t n_conf, cap_conf;
} sdp_section;

typedef struct sdp_thread {
    sdp_section *open;
    uint32_t n_open, cap_open;
    rp_u64map rule2;       /* byte → B(t,x) */
} sdp_thread;

/* What thread u's last section on a lock did to one byte. */
typedef struct sdp_mark {
    rp_vc rd, wr;
    uint64_t lo, hi, serial;   /* serial: release that set wr (0 = none) */
    bool has_rd;
} sdp_mark;

typedef struct sdp_byte {
    sdp_mark *by;          /* index = thread */
    uint32_t n, cap;
} sdp_byte;

typedef struct sdp_lock {
    sdp_clocks released;       /* last exclusive release */
    sdp_clocks read_released;  /* joins of read-side releases */
    rp_u64map bytes;           /* byte → sdp_byte */
} sdp_lock;

typedef struct sdp_detector {
    rp_allpairs *pairs;
    rp_locksets *locksets;
    rp_csrules *cs;            /* the section histories (rules 3, 4) */
    uint64_t n_bytes;          /* (lock, byte) pairs with marks */
    const rp_event *forgetting;    /* the forget being applied */
    rp_thread_clocks h, p, c, k;
    sdp_thread *threads;
    uint32_t n_threads, cap_threads;
    rp_u64map locks;           /* lock → sdp_lock */
    rp_u64map sync_objects;    /* object → sdp_clocks */
    uint64_t serial;           /* releases so far */
} sdp_detector;

/* The four clocks of a thread; valid until the tables grow. */
typedef struct sdp_tclocks {
    rp_vc *h, *p, *c, *k;
} sdp_tclocks;

static sdp_tclocks clocks_of(sdp_detector *d, rp_tid_t tid)
{
    sdp_tclocks t;
    t.h = tclocks_get(&d->h, tid);
    t.p = tclocks_get(&d->p, tid);
    t.c = tclocks_get(&d->c, tid);
    t.k = tclocks_get(&d->k, tid);
    return t;
}

static sdp_thread *thread_of(sdp_detector *d, rp_tid_t tid)
{
    uint32_t n = d->n_threads;
    d->threads = rp_array_extend("rp.sdp.threads", d->threads, tid, &d->n_threads,
                                 &d->cap_threads, sizeof(sdp_thread));
    for (uint32_t t = n; t < d->n_threads; t++)
        u64map_init(&d->threads[t].rule2);
    return &d->threads[tid];
}

static void clocks_init(sdp_clocks *o)
{
    vc_init(&o->h);
    vc_init(&o->p);
    vc_init(&o->c);
    vc_init(&o->k);
}

static void clocks_free(sdp_clocks *o)
{
    vc_free(&o->h);
    vc_free(&o->p);
    vc_free(&o->c);
    vc_free(&o->k);
}

static sdp_lock *lock_of(sdp_detector *d, uint64_t obj)
{
    sdp_lock *l = u64map_get(&d->locks, obj);
    if (l == NULL) {
        l = rp_calloc("rp.sdp.lock", 1, sizeof *l);
        clocks_init(&l->released);
        clocks_init(&l->read_released);
        u64map_init(&l->bytes);
        u64map_put(&d->locks, obj, l);
    }
    return l;
}

static sdp_mark *mark_of(sdp_detector *d, sdp_lock *l, uint64_t addr, rp_tid_t tid)
{
    sdp_byte *b = u64map_get(&l->bytes, addr);
    if (b == NULL) {
        b = rp_calloc("rp.sdp.byte", 1, sizeof *b);
        u64map_put(&l->bytes, addr, b);
        d->n_bytes++;
    }
    b->by = rp_array_extend("rp.sdp.marks", b->by, tid, &b->n, &b->cap, sizeof(sdp_mark));
    return &b->by[tid];
}

/* P, C ⊔= an HB clock of a release (left composition with HB). */
static void order_after(sdp_tclocks t, const rp_vc *released)
{
    vc_join(t.p, released);
    vc_join(t.c, released);
}

/* ---- accesses --------------------------------------------------------------- */

/* Notes the conflict in open section s, once per earlier section s1; at
 * most --cs-sections of them per section: beyond, rule 4 misses s1's edge
 * (less order, counted as a needed section the bound dropped). */
static void note_conflict(sdp_detector *d, sdp_section *s, const sdp_mark *m, rp_tid_t u)
{
    for (uint32_t i = 0; i < s->n_conf; i++)
        if (s->conf[i].s1_serial == m->serial)
            return;
    rp_cs_limits *limits = csrules_limits(d->cs);
    if (limits != NULL && limits->max_sections != 0 && s->n_conf >= limits->max_sections) {
        limits->dropped_sections++;
        limits->missed_sections++;
        return;
    }
    s->conf = rp_array_reserve("rp.sdp.conflicts", s->conf, s->n_conf, &s->cap_conf,
                               sizeof(sdp_conflict));
    sdp_conflict *c = &s->conf[s->n_conf++];
    vc_init(&c->s1);
    vc_copy(&c->s1, &m->wr);
    c->s1_serial = m->serial;
    c->lo = m->lo;
    c->hi = m->hi;
    c->u = u;
}

/* A write of byte x by t meets u's last section on a held lock that wrote
 * x: rule 2 (B(t,x)) and rule 4 (K(t), conflicts of t's open sections). */
static void write_write(sdp_detector *d, const rp_event *e, uint64_t x, const sdp_mark *m,
                        rp_tid_t u)
{
    sdp_thread *th = thread_of(d, e->tid);
    vc_join(objclocks_get(&th->rule2, x), &m->wr);
    vc_join(tclocks_get(&d->k, e->tid), &m->wr);
    for (uint32_t i = 0; i < th->n_open; i++)
        note_conflict(d, &th->open[i], m, u);
}

/* Rules 1, 2 and 4 for byte x against the marks of one held lock. */
static void access_byte_lock(sdp_detector *d, const rp_event *e, uint64_t x, sdp_lock *l)
{
    const sdp_byte *b = u64map_get(&l->bytes, x);
    bool is_write = e->kind == RP_EV_WRITE;
    for (rp_tid_t u = 0; b != NULL && u < b->n; u++) {
        const sdp_mark *m = &b->by[u];
        if (u == e->tid)
            continue;
        if (!is_write && m->serial != 0)
            order_after(clocks_of(d, e->tid), &m->wr);
        if (is_write && m->has_rd)
            order_after(clocks_of(d, e->tid), &m->rd);
        if (is_write && m->serial != 0)
            write_write(d, e, x, m, u);
    }
}

static void sdp_access_event(void *self, const rp_event *e)
{
    sdp_detector *d = self;
    sdp_thread *th = thread_of(d, e->tid);
    for (uint64_t x = e->obj; x - e->obj < e->size; x++) {
        if (e->kind == RP_EV_READ) {
            const rp_vc *b = u64map_get(&th->rule2, x);
            if (b != NULL)
                order_after(clocks_of(d, e->tid), b);
        }
        for (uint32_t i = 0; i < th->n_open; i++) {
            sdp_lock *l = u64map_get(&d->locks, th->open[i].lock);
            if (l != NULL)
                access_byte_lock(d, e, x, l);
        }
    }
    for (uint32_t i = 0; i < th->n_open; i++)
        cslog_record(&th->open[i].acc, e, csrules_limits(d->cs));
    sdp_tclocks t = clocks_of(d, e->tid);
    uint32_t epoch = vc_get(t.h, e->tid);
    rp_allpairs_access a = { e, t.c, epoch, t.h, epoch, locksets_tag(d->locksets, e->tid) };
    allpairs_access(d->pairs, &a);
}

/* ---- rules 3 and 4 at a release ----------------------------------------------------- */

/* Joins H(r1) of v's last section on the lock acquired by `bound` (the one
 * before it when that holds skip); true if that changed P. */
static bool order_after_section(sdp_detector *d, rp_tid_t tid, uint64_t lock, rp_tid_t v,
                                uint32_t bound, const rp_cs_span *skip)
{
    sdp_tclocks t = clocks_of(d, tid);
    return csrules_join_last(d->cs, tid, lock, v, bound, skip, t.p, t.c);
}

/* Rule 4 for one conflict (s1, e2) with e2 in the releasing section. */
static void rule4_in_section(sdp_detector *d, rp_tid_t tid, uint64_t lock,
                             const sdp_conflict *c)
{
    rp_cs_span writes = { c->lo, c->hi };
    for (rp_tid_t v = 0; v < d->n_threads; v++)
        order_after_section(d, tid, lock, v, vc_get(&c->s1, v), v == c->u ? &writes : NULL);
}

static void release_rules(sdp_detector *d, rp_tid_t tid, const sdp_section *s)
{
    for (rp_tid_t v = 0; v < d->n_threads; v++)
        order_after_section(d, tid, s->lock, v, vc_get(&s->y, v), NULL);
    for (uint32_t i = 0; i < s->n_conf; i++)
        rule4_in_section(d, tid, s->lock, &s->conf[i]);
    for (bool changed = true; changed;) {
        changed = false;
        for (rp_tid_t v = 0; v < d->n_threads; v++)
            if (order_after_section(d, tid, s->lock, v, vc_get(tclocks_get(&d->p, tid), v),
                                    NULL))
                changed = true;
    }
}

/* ---- publication at a release ------------------------------------------------------ */

/* The log is in no particular order (rp_cs_log merges repeats), so the
 * first and last write ids of a byte are the least and the greatest. */
static void publish_access(sdp_detector *d, sdp_lock *l, rp_tid_t tid, const rp_cs_logged *a,
                           const rp_vc *h)
{
    for (uint64_t x = a->addr; x - a->addr < a->size; x++) {
        sdp_mark *m = mark_of(d, l, x, tid);
        if (!a->is_write) {
            vc_copy(&m->rd, h);
            m->has_rd = true;
            continue;
        }
        if (m->serial != d->serial) {
            vc_copy(&m->wr, h);
            m->serial = d->serial;
            m->lo = a->first_id;
            m->hi = a->last_id;
        }
        if (a->first_id < m->lo)
            m->lo = a->first_id;
        if (a->last_id > m->hi)
            m->hi = a->last_id;
    }
}

static void section_free(sdp_section *s)
{
    vc_free(&s->y);
    for (uint32_t i = 0; i < s->n_conf; i++)
        vc_free(&s->conf[i].s1);
    rp_free(s->conf);
    cslog_free(&s->acc);
}

/* ---- the bound on marks --------------------------------------------------------- */

static void free_byte(void *ctx, uint64_t key, void *value);

static void find_most_marked(void *ctx, uint64_t key, void *value)
{
    sdp_lock **most = ctx;
    sdp_lock *l = value;
    (void)key;
    if (*most == NULL || l->bytes.count > (*most)->bytes.count)
        *most = l;
}

/* Over the bound on (lock, byte) pairs (rp_csrules.h): the locks with the
 * most lose their marks, down to half the bound.  Rules 1, 2 and 4 then
 * miss their edges from those sections: less order, counted. */
static void enforce_byte_bound(sdp_detector *d)
{
    rp_cs_limits *limits = csrules_limits(d->cs);
    if (limits == NULL || limits->max_bytes == 0 || d->n_bytes <= limits->max_bytes)
        return;
    while (d->n_bytes > limits->max_bytes / 2) {
        sdp_lock *most = NULL;
        u64map_for_each(&d->locks, find_most_marked, &most);
        limits->dropped_bytes += most->bytes.count;
        d->n_bytes -= most->bytes.count;
        u64map_for_each(&most->bytes, free_byte, NULL);
        u64map_free(&most->bytes);
    }
}

/* ---- locks -------------------------------------------------------------------- */

static void import_k(sdp_detector *d, rp_tid_t tid, const rp_vc *k)
{
    sdp_thread *th = thread_of(d, tid);
    vc_join(tclocks_get(&d->k, tid), k);
    for (uint32_t i = 0; i < th->n_open; i++)
        vc_join(&th->open[i].y, k);
}

/* A hard edge: everything passes. */
static void import_all(sdp_detector *d, rp_tid_t tid, const sdp_clocks *o)
{
    sdp_tclocks t = clocks_of(d, tid);
    vc_join(t.h, &o->h);
    vc_join(t.p, &o->p);
    vc_join(t.c, &o->c);
    import_k(d, tid, &o->k);
}

static void export_all(sdp_clocks *o, sdp_tclocks t)
{
    vc_join(&o->h, t.h);
    vc_join(&o->p, t.p);
    vc_join(&o->c, t.c);
    vc_join(&o->k, t.k);
}

static void increment(sdp_detector *d, rp_tid_t tid)
{
    vc_inc(tclocks_get(&d->h, tid), tid);
    vc_inc(tclocks_get(&d->c, tid), tid);
}

static void sdp_acquire(void *self, const rp_event *e)
{
    sdp_detector *d = self;
    sdp_lock *l = lock_of(d, e->obj);
    sdp_tclocks t = clocks_of(d, e->tid);
    vc_join(t.h, &l->released.h);
    vc_join(t.p, &l->released.p);
    vc_join(t.c, &l->released.p);
    import_k(d, e->tid, &l->released.k);
    import_all(d, e->tid, &l->read_released);
    locksets_acquire(d->locksets, e->tid, e->obj, false);
    sdp_thread *th = thread_of(d, e->tid);
    th->open = rp_array_reserve("rp.sdp.open", th->open, th->n_open, &th->cap_open,
                                sizeof(sdp_section));
    sdp_section *s = &th->open[th->n_open++];
    rp_memset(s, 0, sizeof *s);
    s->lock = e->obj;
    vc_copy(&s->y, t.k);
    csrules_acquire_id(d->cs, e->tid, e->obj, vc_get(t.h, e->tid), e->id);
}

static void sdp_release(void *self, const rp_event *e)
{
    sdp_detector *d = self;
    sdp_thread *th = thread_of(d, e->tid);
    uint32_t i = th->n_open;
    while (i > 0 && th->open[i - 1].lock != e->obj)
        i--;
    if (i == 0)
        return;
    sdp_section *s = &th->open[i - 1];
    sdp_lock *l = lock_of(d, e->obj);
    release_rules(d, e->tid, s);
    sdp_tclocks t = clocks_of(d, e->tid);
    d->serial++;
    for (uint32_t j = 0; j < s->acc.n; j++)
        publish_access(d, l, e->tid, &s->acc.entries[j], t.h);
    csrules_release_id(d->cs, e->tid, e->obj, t.h, e->id);
    section_free(s);
    for (uint32_t j = i; j < th->n_open; j++)
        th->open[j - 1] = th->open[j];
    th->n_open--;
    locksets_release(d->locksets, e->tid, e->obj, false);
    enforce_byte_bound(d);
    vc_copy(&l->released.h, t.h);
    vc_copy(&l->released.p, t.p);
    vc_copy(&l->released.c, t.c);
    vc_copy(&l->released.k, t.k);
    increment(d, e->tid);
}

static void sdp_acquire_shared(void *self, const rp_event *e)
{
    sdp_detector *d = self;
    import_all(d, e->tid, &lock_of(d, e->obj)->released);
    locksets_acquire(d->locksets, e->tid, e->obj, true);
}

static void sdp_release_shared(void *self, const rp_event *e)
{
    sdp_detector *d = self;
    export_all(&lock_of(d, e->obj)->read_released, clocks_of(d, e->tid));
    locksets_release(d->locksets, e->tid, e->obj, true);
    increment(d, e->tid);
}

/* ---- threads and hard synchronisation ------------------------------------------ */

static sdp_clocks *sync_object(sdp_detector *d, uint64_t obj)
{
    sdp_clocks *o = u64map_get(&d->sync_objects, obj);
    if (o == NULL) {
        o = rp_malloc("rp.sdp.sync", sizeof *o);
        clocks_init(o);
        u64map_put(&d->sync_objects, obj, o);
    }
    return o;
}

/* Makes the clocks of both threads exist before taking pointers. */
static void ensure_threads(sdp_detector *d, rp_tid_t a, rp_tid_t b)
{
    rp_tid_t max = a > b ? a : b;
    tclocks_ensure(&d->h, max);
    tclocks_ensure(&d->p, max);
    tclocks_ensure(&d->c, max);
    tclocks_ensure(&d->k, max);
    thread_of(d, max);
}

/* The child starts with everything of its parent (it holds no lock). */
static void sdp_fork(void *self, const rp_event *e)
{
    sdp_detector *d = self;
    ensure_threads(d, e->tid, (rp_tid_t)e->obj);
    sdp_tclocks c = clocks_of(d, (rp_tid_t)e->obj);
    sdp_tclocks t = clocks_of(d, e->tid);
    vc_join(c.h, t.h);
    vc_join(c.p, t.p);
    vc_join(c.c, t.c);
    vc_join(c.k, t.k);
    csrules_fork(d->cs, e->tid, (rp_tid_t)e->obj);
    increment(d, e->tid);
}

/* Everything of the joined thread passes, as over a hard edge. */
static void sdp_join(void *self, const rp_event *e)
{
    sdp_detector *d = self;
    ensure_threads(d, e->tid, (rp_tid_t)e->obj);
    sdp_tclocks j = clocks_of(d, (rp_tid_t)e->obj);
    sdp_clocks from = { *j.h, *j.p, *j.c, *j.k };
    import_all(d, e->tid, &from);
    csrules_join(d->cs, e->tid, (rp_tid_t)e->obj);
}

/* The thread's open sections will never be released, and it reads no
 * more (B(t,x) goes); its clocks stay for a later join. */
static void sdp_thread_end(void *self, rp_tid_t tid)
{
    sdp_detector *d = self;
    sdp_thread *th = thread_of(d, tid);
    for (uint32_t i = 0; i < th->n_open; i++)
        section_free(&th->open[i]);
    th->n_open = 0;
    objclocks_free(&th->rule2);
    csrules_thread_end(d->cs, tid);
}

static void sdp_thread_gone(void *self, rp_tid_t tid)
{
    sdp_detector *d = self;
    csrules_thread_gone(d->cs, tid);
    tclocks_release(&d->h, tid);
    tclocks_release(&d->p, tid);
    tclocks_release(&d->c, tid);
    tclocks_release(&d->k, tid);
}

static void sdp_kept(void *self, rp_history_stats *stats)
{
    sdp_detector *d = self;
    csrules_kept(d->cs, stats);
    stats->bytes += d->n_bytes;
}

static void sdp_sync_send(void *self, const rp_event *e)
{
    sdp_detector *d = self;
    export_all(sync_object(d, e->obj), clocks_of(d, e->tid));
    increment(d, e->tid);
}

static void sdp_sync_recv(void *self, const rp_event *e)
{
    sdp_detector *d = self;
    import_all(d, e->tid, sync_object(d, e->obj));
}

static void forget_marks(void *ctx, uint64_t lock, void *value)
{
    sdp_detector *d = ctx;
    sdp_lock *l = value;
    (void)lock;
    d->n_bytes -= u64map_remove_range(&l->bytes, d->forgetting->obj, d->forgetting->size,
                                      free_byte, NULL);
}

static void sdp_forget(void *self, const rp_event *e)
{
    sdp_detector *d = self;
    d->forgetting = e;
    u64map_for_each(&d->locks, forget_marks, d);
    for (uint32_t t = 0; t < d->n_threads; t++)
        objclocks_forget(&d->threads[t].rule2, e->obj, e->size);
    allpairs_forget(d->pairs, e);
}

static void sdp_finish(void *self)
{
    sdp_detector *d = self;
    allpairs_finish(d->pairs);
}

/* ---- life cycle --------------------------------------------------------------- */

static void *sdp_create(const rp_detector_env *env)
{
    sdp_detector *d = rp_calloc("rp.sdp", 1, sizeof *d);
    d->locksets = locksets_create();
    rp_allpairs_config config = { "sdp", locksets_disjoint, locksets_may_evict, d->locksets,
                                  false, NULL };
    d->pairs = allpairs_create(env, &config);
    d->cs = csrules_create_histories();
    tclocks_init(&d->h, 1);
    tclocks_init(&d->p, 0);
    tclocks_init(&d->c, 1);
    tclocks_init(&d->k, 0);
    u64map_init(&d->locks);
    u64map_init(&d->sync_objects);
    return d;
}

static void free_byte(void *ctx, uint64_t key, void *value)
{
    sdp_byte *b = value;
    (void)ctx;
    (void)key;
    for (uint32_t u = 0; u < b->n; u++) {
        vc_free(&b->by[u].rd);
        vc_free(&b->by[u].wr);
    }
    rp_free(b->by);
    rp_free(b);
}

static void free_lock(void *ctx, uint64_t key, void *value)
{
    sdp_lock *l = value;
    (void)ctx;
    (void)key;
    clocks_free(&l->released);
    clocks_free(&l->read_released);
    u64map_for_each(&l->bytes, free_byte, NULL);
    u64map_free(&l->bytes);
    rp_free(l);
}

static void free_sync(void *ctx, uint64_t key, void *value)
{
    (void)ctx;
    (void)key;
    clocks_free(value);
    rp_free(value);
}

static void sdp_destroy(void *self)
{
    sdp_detector *d = self;
    if (d == NULL)
        return;
    allpairs_destroy(d->pairs);
    locksets_destroy(d->locksets);
    csrules_destroy(d->cs);
    tclocks_free(&d->h);
    tclocks_free(&d->p);
    tclocks_free(&d->c);
    tclocks_free(&d->k);
    for (uint32_t t = 0; t < d->n_threads; t++) {
        for (uint32_t i = 0; i < d->threads[t].n_open; i++)
            section_free(&d->threads[t].open[i]);
        rp_free(d->threads[t].open);
        objclocks_free(&d->threads[t].rule2);
    }
    rp_free(d->threads);
    u64map_for_each(&d->locks, free_lock, NULL);
    u64map_free(&d->locks);
    u64map_for_each(&d->sync_objects, free_sync, NULL);
    u64map_free(&d->sync_objects);
    rp_free(d);
}

const rp_detector_ops rp_det_sdp = {
    .name = "sdp",
    .summary = "strong dependence-aware prediction (Genc et al. OOPSLA'19): sound for the first "
               "race, more races than wcp",
    .needs_branches = false,
    .predictive = true,
    .create = sdp_create,
    .destroy = sdp_destroy,
    .read = sdp_access_event,
    .write = sdp_access_event,
    .acquire = sdp_acquire,
    .release = sdp_release,
    .acquire_shared = sdp_acquire_shared,
    .release_shared = sdp_release_shared,
    .fork = sdp_fork,
    .join = sdp_join,
    .branch = NULL,
    .sync_send = sdp_sync_send,
    .sync_recv = sdp_sync_recv,
    .forget = sdp_forget,
    .last_writer = allpairs_detector_last_writer,
    .finish = sdp_finish,
    .thread_end = sdp_thread_end,
    .thread_gone = sdp_thread_gone,
    .kept = sdp_kept,
};
