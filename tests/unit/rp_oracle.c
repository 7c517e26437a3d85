/* rp_oracle.c — closure-based relations and random traces (rp_oracle.h). */
#include "rp_oracle.h"

#include "rp_engine.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 32
#define MAX_THREADS 4
#define VAR_BASE 0x10000u

enum { OP_W, OP_R, OP_ACQ, OP_REL, OP_FORK, OP_JOIN };

typedef struct o_event {
    int tid, op, arg;      /* arg: variable, lock or thread */
} o_event;

typedef struct o_trace {
    o_event ev[MAX_EVENTS];
    int n;
} o_trace;

typedef bool matrix[MAX_EVENTS][MAX_EVENTS];

typedef struct o_cs {
    int acq, rel, lock;    /* rel = -1: open until the end */
} o_cs;

/* ---- random traces (after seeds_000_002_ref.gen) ------------------------------ */

static uint64_t rng_state;

static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rng_state >> 33) % n;
}

typedef struct o_program {
    o_event ops[40];
    int n, pc;
} o_program;

static void program_add(o_program *p, int tid, int op, int arg)
{
    o_event e = { tid, op, arg };
    p->ops[p->n++] = e;
}

/* A critical section on lock l: 0–3 accesses, sometimes a nested section
 * on the other lock followed by 0–1 accesses. */
static void add_section(o_program *p, int t, int l, int vars, int locks)
{
    program_add(p, t, OP_ACQ, l);
    for (int b = (int)rnd(4); b > 0; b--)
        program_add(p, t, rnd(2) ? OP_W : OP_R, (int)rnd((unsigned)vars));
    if (locks == 2 && rnd(10) < 5) {
        program_add(p, t, OP_ACQ, 1 - l);
        program_add(p, t, rnd(2) ? OP_W : OP_R, (int)rnd((unsigned)vars));
        program_add(p, t, OP_REL, 1 - l);
        for (int b = (int)rnd(2); b > 0; b--)
            program_add(p, t, rnd(2) ? OP_W : OP_R, (int)rnd((unsigned)vars));
    }
    program_add(p, t, OP_REL, l);
}

static void make_programs(o_program *prog, int threads, int vars, int locks, bool forkjoin)
{
    for (int t = 0; t < threads; t++) {
        o_program *p = &prog[t];
        p->n = p->pc = 0;
        if (forkjoin && t == 0)
            for (int c = 1; c < threads; c++)
                program_add(p, 0, OP_FORK, c);
        for (int k = 1 + (int)rnd(4); k > 0; k--) {
            if (locks > 0 && rnd(10) < 5)
                add_section(p, t, (int)rnd((unsigned)locks), vars, locks);
            else
                program_add(p, t, rnd(2) ? OP_W : OP_R, (int)rnd((unsigned)vars));
        }
        if (forkjoin && t == 0)
            for (int c = 1; c < threads; c++)
                program_add(p, 0, OP_JOIN, c);
    }
}

static bool enabled(const o_program *prog, int t, const int *holder, const bool *started)
{
    const o_program *p = &prog[t];
    if (!started[t] || p->pc >= p->n)
        return false;
    const o_event *e = &p->ops[p->pc];
    if (e->op == OP_ACQ && holder[e->arg] >= 0)
        return false;
    return !(e->op == OP_JOIN && prog[e->arg].pc < prog[e->arg].n);
}

static void close_or_keep_open(o_trace *tr, const int *holder, int locks)
{
    bool close = rnd(2) == 0;
    for (int l = 0; l < locks && close; l++) {
        if (holder[l] >= 0 && tr->n < MAX_EVENTS) {
            o_event e = { holder[l], OP_REL, l };
            tr->ev[tr->n++] = e;
        }
    }
}

static void random_trace(o_trace *tr)
{
    int threads = 2 + (int)rnd(3), vars = 1 + (int)rnd(3), locks = (int)rnd(3);
    bool forkjoin = rnd(10) < 3;
    int maxlen = 3 + (int)rnd(16);
    o_program prog[MAX_THREADS];
    int holder[2] = { -1, -1 };
    bool started[MAX_THREADS];
    make_programs(prog, threads, vars, locks, forkjoin);
    for (int t = 0; t < threads; t++)
        started[t] = t == 0 || !forkjoin;
    tr->n = 0;
    while (tr->n < maxlen) {
        int en[MAX_THREADS], n_en = 0;
        for (int t = 0; t < threads; t++)
            if (enabled(prog, t, holder, started))
                en[n_en++] = t;
        if (n_en == 0)
            break;
        int t = en[rnd((unsigned)n_en)];
        o_event e = prog[t].ops[prog[t].pc++];
        if (e.op == OP_ACQ)
            holder[e.arg] = t;
        if (e.op == OP_REL)
            holder[e.arg] = -1;
        if (e.op == OP_FORK)
            started[e.arg] = true;
        tr->ev[tr->n++] = e;
    }
    close_or_keep_open(tr, holder, locks);
}

/* ---- trace structure ---------------------------------------------------------- */

static bool is_access(const o_event *e)
{
    return e->op == OP_W || e->op == OP_R;
}

static bool conflict_any_thread(const o_trace *tr, int a, int b)
{
    const o_event *x = &tr->ev[a], *y = &tr->ev[b];
    return is_access(x) && is_access(y) && x->arg == y->arg && (x->op == OP_W || y->op == OP_W);
}

static bool conflicting(const o_trace *tr, int a, int b)
{
    return conflict_any_thread(tr, a, b) && tr->ev[a].tid != tr->ev[b].tid;
}

static void close_matrix(matrix m, int n)
{
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            if (m[i][k])
                for (int j = 0; j < n; j++)
                    if (m[k][j])
                        m[i][j] = true;
}

/* Thread order: program order + fork → child's events + child's events → join. */
static void thread_order(const o_trace *tr, matrix m)
{
    memset(m, 0, sizeof(matrix));
    for (int i = 0; i < tr->n; i++) {
        for (int j = i + 1; j < tr->n; j++) {
            const o_event *a = &tr->ev[i], *b = &tr->ev[j];
            if (a->tid == b->tid || (a->op == OP_FORK && a->arg == b->tid)
                || (b->op == OP_JOIN && b->arg == a->tid))
                m[i][j] = true;
        }
    }
    close_matrix(m, tr->n);
}

static int critical_sections(const o_trace *tr, o_cs *cs)
{
    int n = 0;
    for (int i = 0; i < tr->n; i++) {
        if (tr->ev[i].op != OP_ACQ)
            continue;
        cs[n].acq = i;
        cs[n].rel = -1;
        cs[n].lock = tr->ev[i].arg;
        for (int j = i + 1; j < tr->n && cs[n].rel < 0; j++)
            if (tr->ev[j].op == OP_REL && tr->ev[j].arg == cs[n].lock
                && tr->ev[j].tid == tr->ev[i].tid)
                cs[n].rel = j;
        n++;
    }
    return n;
}

/* e strictly inside the section (same thread, after acq, before rel). */
static bool inside(const o_trace *tr, const o_cs *c, int e)
{
    return tr->ev[e].tid == tr->ev[c->acq].tid && e > c->acq && (c->rel < 0 || e < c->rel);
}

static bool holds(const o_trace *tr, int e, int lock)
{
    o_cs cs[MAX_EVENTS];
    int n = critical_sections(tr, cs);
    for (int i = 0; i < n; i++)
        if (cs[i].lock == lock && inside(tr, &cs[i], e))
            return true;
    return false;
}

static int last_writer(const o_trace *tr, int r)
{
    for (int i = r - 1; i >= 0; i--)
        if (tr->ev[i].op == OP_W && tr->ev[i].arg == tr->ev[r].arg)
            return i;
    return -1;
}

/* ---- relations ------------------------------------------------------------------ */

typedef bool pair_set[MAX_EVENTS][MAX_EVENTS];

static void unordered_pairs(const o_trace *tr, matrix order, matrix also, pair_set out)
{
    for (int a = 0; a < tr->n; a++)
        for (int b = a + 1; b < tr->n; b++)
            if (conflicting(tr, a, b) && !order[a][b] && !(also != NULL && also[a][b]))
                out[a][b] = true;
}

static void rel_lockset(const o_trace *tr, pair_set out)
{
    matrix to;
    thread_order(tr, to);
    for (int a = 0; a < tr->n; a++) {
        for (int b = a + 1; b < tr->n; b++) {
            bool common = false;
            for (int l = 0; l < 2; l++)
                common = common || (holds(tr, a, l) && holds(tr, b, l));
            if (conflicting(tr, a, b) && !to[a][b] && !common)
                out[a][b] = true;
        }
    }
}

static void rel_shb(const o_trace *tr, pair_set out)
{
    matrix shb;
    thread_order(tr, shb);
    for (int i = 0; i < tr->n; i++) {
        if (tr->ev[i].op == OP_REL) {
            for (int j = i + 1; j < tr->n; j++) {
                if (tr->ev[j].op == OP_ACQ && tr->ev[j].arg == tr->ev[i].arg) {
                    shb[i][j] = true;
                    break;
                }
            }
        }
        if (tr->ev[i].op == OP_R && last_writer(tr, i) >= 0)
            shb[last_writer(tr, i)][i] = true;
    }
    close_matrix(shb, tr->n);
    unordered_pairs(tr, shb, NULL, out);
    for (int r = 0; r < tr->n; r++) {
        int w = tr->ev[r].op == OP_R ? last_writer(tr, r) : -1;
        if (w < 0 || tr->ev[w].tid == tr->ev[r].tid)
            continue;
        bool between = false;
        for (int g = 0; g < tr->n; g++)
            between = between || (shb[w][g] && shb[g][r]);
        if (!between)
            out[w][r] = true;
    }
}

/* rule (a): r1 → e2 for conflicting e1 ∈ CS1 (released), e2 ∈ CS2, r1 < acq2. */
static bool rule_a(const o_trace *tr, matrix m, bool any_thread)
{
    o_cs cs[MAX_EVENTS];
    int n = critical_sections(tr, cs);
    bool changed = false;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            if (cs[i].rel < 0 || cs[i].lock != cs[j].lock || cs[i].rel > cs[j].acq)
                continue;
            for (int e1 = 0; e1 < tr->n; e1++) {
                for (int e2 = 0; e2 < tr->n; e2++) {
                    bool c = any_thread ? conflict_any_thread(tr, e1, e2) : conflicting(tr, e1, e2);
                    if (c && inside(tr, &cs[i], e1) && inside(tr, &cs[j], e2)
                        && !m[cs[i].rel][e2]) {
                        m[cs[i].rel][e2] = true;
                        changed = true;
                    }
                }
            }
        }
    }
    return changed;
}

/* rule (b): r1 → r2 (same lock, both released, r1 < r2) if acq1 → r2. */
static bool rule_b(const o_trace *tr, matrix m)
{
    o_cs cs[MAX_EVENTS];
    int n = critical_sections(tr, cs);
    bool changed = false;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (cs[i].rel >= 0 && cs[j].rel >= 0 && cs[i].lock == cs[j].lock
                && cs[i].rel < cs[j].rel && m[cs[i].acq][cs[j].rel] && !m[cs[i].rel][cs[j].rel]) {
                m[cs[i].rel][cs[j].rel] = true;
                changed = true;
            }
    return changed;
}

static void rel_dc_variant(const o_trace *tr, pair_set out, bool with_rule_b)
{
    matrix dc;
    thread_order(tr, dc);
    rule_a(tr, dc, false);
    close_matrix(dc, tr->n);
    while (with_rule_b && rule_b(tr, dc))
        close_matrix(dc, tr->n);
    unordered_pairs(tr, dc, NULL, out);
}

static void rel_dc(const o_trace *tr, pair_set out)
{
    rel_dc_variant(tr, out, true);
}

static void rel_wdc(const o_trace *tr, pair_set out)
{
    rel_dc_variant(tr, out, false);
}

/* Reflexive Lamport HB: thread order + release → every later acquire. */
static void lamport_hb(const o_trace *tr, matrix hb)
{
    thread_order(tr, hb);
    for (int i = 0; i < tr->n; i++) {
        hb[i][i] = true;
        for (int j = i + 1; j < tr->n; j++)
            if (tr->ev[i].op == OP_REL && tr->ev[j].op == OP_ACQ
                && tr->ev[i].arg == tr->ev[j].arg)
                hb[i][j] = true;
    }
    close_matrix(hb, tr->n);
}

/* rule (c): W := HB ∘ W ∘ HB (HB reflexive). */
static bool compose_hb(const o_trace *tr, matrix hb, matrix w)
{
    static matrix next;
    bool changed = false;
    memcpy(next, w, sizeof(matrix));
    for (int a = 0; a < tr->n; a++)
        for (int b = 0; b < tr->n; b++)
            if (w[a][b])
                for (int c = 0; c < tr->n; c++)
                    if (hb[c][a])
                        for (int d = 0; d < tr->n; d++)
                            if (hb[b][d] && !next[c][d])
                                next[c][d] = changed = true;
    memcpy(w, next, sizeof(matrix));
    return changed;
}

static void rel_wcp(const o_trace *tr, pair_set out)
{
    matrix hb, w, to;
    lamport_hb(tr, hb);
    thread_order(tr, to);
    memset(w, 0, sizeof w);
    bool changed = true;
    while (changed) {
        changed = rule_a(tr, w, true);
        changed = rule_b(tr, w) || changed;
        changed = compose_hb(tr, hb, w) || changed;
    }
    unordered_pairs(tr, w, to, out);
}

/* ---- running a detector --------------------------------------------------------- */

static void collect(void *ctx, const rp_race *race)
{
    bool (*out)[MAX_EVENTS] = ctx;
    if (race->first.id >= 1 && race->second.id <= MAX_EVENTS && race->first.id < race->second.id)
        out[race->first.id - 1][race->second.id - 1] = true;
}

static rp_event to_event(const o_event *e)
{
    static const uint8_t kinds[] = { RP_EV_WRITE, RP_EV_READ, RP_EV_ACQUIRE, RP_EV_RELEASE,
                                     RP_EV_FORK, RP_EV_JOIN };
    rp_event ev;
    memset(&ev, 0, sizeof ev);
    ev.tid = (rp_tid_t)e->tid;
    ev.kind = kinds[e->op];
    ev.obj = is_access(e) ? VAR_BASE + 8u * (uint64_t)e->arg : (uint64_t)e->arg;
    ev.size = is_access(e) ? 1 : 0;
    return ev;
}

static void run_detector(const char *name, const o_trace *tr, pair_set out, bool all_pairs)
{
    rp_detector_env env = { .report = collect, .report_ctx = out, .all_pairs = all_pairs };
    char *bad = NULL;
    rp_engine *eng = rp_engine_create(name, &env, &bad);
    if (eng == NULL) {
        fprintf(stderr, "unknown detector %s\n", name);
        exit(2);
    }
    for (int i = 0; i < tr->n; i++) {
        rp_event ev = to_event(&tr->ev[i]);
        ev.site = (uint64_t)i + 1;
        rp_engine_event(eng, &ev);
    }
    rp_engine_finish(eng);
    rp_engine_destroy(eng);
}

static void print_trace(const o_trace *tr)
{
    static const char *const ops[] = { "w", "r", "acq", "rel", "fork", "join" };
    for (int i = 0; i < tr->n; i++) {
        const o_event *e = &tr->ev[i];
        if (e->op == OP_FORK || e->op == OP_JOIN)
            fprintf(stderr, "  %2d T%d %s(T%d)\n", i + 1, e->tid, ops[e->op], e->arg);
        else
            fprintf(stderr, "  %2d T%d %s(%c%d)\n", i + 1, e->tid, ops[e->op],
                    is_access(e) ? 'x' : 'l', e->arg);
    }
}

static void print_pairs(const char *label, const o_trace *tr, pair_set s)
{
    fprintf(stderr, "  %s:", label);
    for (int a = 0; a < tr->n; a++)
        for (int b = a + 1; b < tr->n; b++)
            if (s[a][b])
                fprintf(stderr, " %d-%d", a + 1, b + 1);
    fprintf(stderr, "\n");
}

typedef void (*relation_fn)(const o_trace *tr, pair_set out);

/* Online mode: only pairs of the relation, and at least one earlier partner
 * for every access that is the later event of some pair. */
static bool online_ok(const o_trace *tr, pair_set want, pair_set online)
{
    for (int b = 0; b < tr->n; b++) {
        bool racy = false, reported = false;
        for (int a = 0; a < b; a++) {
            if (online[a][b] && !want[a][b])
                return false;
            racy = racy || want[a][b];
            reported = reported || online[a][b];
        }
        if (racy && !reported)
            return false;
    }
    return true;
}

static relation_fn relation_of(const char *name)
{
    static const struct { const char *name; relation_fn fn; } table[] = {
        { "shb", rel_shb }, { "lockset", rel_lockset }, { "wcp", rel_wcp },
        { "dc", rel_dc }, { "wdc", rel_wdc },
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(table[i].name, name) == 0)
            return table[i].fn;
    fprintf(stderr, "no oracle for %s\n", name);
    exit(2);
}

unsigned oracle_run_random(const char *name, uint64_t seed, unsigned count)
{
    relation_fn relation = relation_of(name);
    unsigned mismatches = 0, racy = 0;
    rng_state = seed;
    for (unsigned i = 0; i < count; i++) {
        o_trace tr;
        pair_set want, got, online;
        memset(want, 0, sizeof want);
        memset(got, 0, sizeof got);
        memset(online, 0, sizeof online);
        random_trace(&tr);
        relation(&tr, want);
        run_detector(name, &tr, got, true);
        run_detector(name, &tr, online, false);
        racy += memcmp(want, (pair_set){ { false } }, sizeof want) != 0;
        if (memcmp(want, got, sizeof want) == 0 && online_ok(&tr, want, online))
            continue;
        if (++mismatches <= 5) {
            fprintf(stderr, "%s: mismatch on random trace %u:\n", name, i);
            print_trace(&tr);
            print_pairs("oracle", &tr, want);
            print_pairs("all-pairs", &tr, got);
            print_pairs("online", &tr, online);
        }
    }
    fprintf(stderr, "%s: %u random traces (%u with races), %u mismatches\n", name, count, racy,
            mismatches);
    return mismatches;
}
