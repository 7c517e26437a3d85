/* dep_oracle.c — closures of SDP and WDP on random traces with branches
 * (dep_oracle.h). */
#include "dep_oracle.h"

#include "rp_engine.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 32
#define MAX_THREADS 4
#define MAX_OPS 48
#define VAR_BASE 0x10000u

enum { OP_W, OP_R, OP_ACQ, OP_REL, OP_FORK, OP_JOIN, OP_BR };

typedef struct d_event {
    int tid, op, arg;      /* arg: variable, lock or thread */
} d_event;

typedef struct d_trace {
    d_event ev[MAX_EVENTS];
    int n;
} d_trace;

/* Row i: bit j set iff event i is before event j. */
typedef uint32_t rows[MAX_EVENTS];

typedef struct d_cs {
    int acq, rel, lock;    /* rel = -1: open until the end */
} d_cs;

/* ---- random traces ------------------------------------------------------------- */

static uint64_t rng_state;

static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(rng_state >> 33) % n;
}

typedef struct d_program {
    d_event ops[MAX_OPS];
    int n, pc;
} d_program;

static void program_add(d_program *p, int tid, int op, int arg)
{
    if (p->n < MAX_OPS) {
        d_event e = { tid, op, arg };
        p->ops[p->n++] = e;
    }
}

/* An access, followed by a branch 40% of the time. */
static void add_access(d_program *p, int t, int vars)
{
    program_add(p, t, rnd(2) ? OP_W : OP_R, (int)rnd((unsigned)vars));
    if (rnd(10) < 4)
        program_add(p, t, OP_BR, 0);
}

static void add_section(d_program *p, int t, int l, int vars, int locks)
{
    program_add(p, t, OP_ACQ, l);
    for (int b = (int)rnd(4); b > 0; b--)
        add_access(p, t, vars);
    if (locks == 2 && rnd(10) < 5) {
        program_add(p, t, OP_ACQ, 1 - l);
        add_access(p, t, vars);
        program_add(p, t, OP_REL, 1 - l);
        for (int b = (int)rnd(2); b > 0; b--)
            add_access(p, t, vars);
    }
    program_add(p, t, OP_REL, l);
}

static void make_programs(d_program *prog, int threads, int vars, int locks, bool forkjoin)
{
    for (int t = 0; t < threads; t++) {
        d_program *p = &prog[t];
        p->n = p->pc = 0;
        if (forkjoin && t == 0)
            for (int c = 1; c < threads; c++)
                program_add(p, 0, OP_FORK, c);
        for (int k = 1 + (int)rnd(4); k > 0; k--) {
            unsigned what = rnd(10);
            if (locks > 0 && what < 5)
                add_section(p, t, (int)rnd((unsigned)locks), vars, locks);
            else if (what < 9)
                add_access(p, t, vars);
            else
                program_add(p, t, OP_BR, 0);
        }
        if (forkjoin && t == 0)
            for (int c = 1; c < threads; c++)
                program_add(p, 0, OP_JOIN, c);
    }
}

static bool enabled(const d_program *prog, int t, const int *holder, const bool *started)
{
    const d_program *p = &prog[t];
    if (!started[t] || p->pc >= p->n)
        return false;
    const d_event *e = &p->ops[p->pc];
    if (e->op == OP_ACQ && holder[e->arg] >= 0)
        return false;
    return !(e->op == OP_JOIN && prog[e->arg].pc < prog[e->arg].n);
}

static void random_trace(d_trace *tr)
{
    int threads = 2 + (int)rnd(3), vars = 1 + (int)rnd(3), locks = (int)rnd(3);
    bool forkjoin = rnd(10) < 3;
    int maxlen = 3 + (int)rnd(22);
    d_program prog[MAX_THREADS];
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
        d_event e = prog[t].ops[prog[t].pc++];
        if (e.op == OP_ACQ)
            holder[e.arg] = t;
        if (e.op == OP_REL)
            holder[e.arg] = -1;
        if (e.op == OP_FORK)
            started[e.arg] = true;
        tr->ev[tr->n++] = e;
    }
    bool close = rnd(2) == 0;
    for (int l = 0; l < 2 && close; l++) {
        if (holder[l] >= 0 && tr->n < MAX_EVENTS) {
            d_event e = { holder[l], OP_REL, l };
            tr->ev[tr->n++] = e;
        }
    }
}

/* ---- trace structure ---------------------------------------------------------- */

static bool is_access(const d_event *e)
{
    return e->op == OP_W || e->op == OP_R;
}

static bool conflicting(const d_trace *tr, int a, int b)
{
    const d_event *x = &tr->ev[a], *y = &tr->ev[b];
    return is_access(x) && is_access(y) && x->arg == y->arg && x->tid != y->tid
           && (x->op == OP_W || y->op == OP_W);
}

static bool bit(const rows m, int i, int j)
{
    return (m[i] >> j) & 1u;
}

static void set_bit(rows m, int i, int j)
{
    m[i] |= 1u << j;
}

/* Transitive closure (Warshall on rows). */
static void close_rows(rows m, int n)
{
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            if (bit(m, i, k))
                m[i] |= m[k];
}

/* Thread order: program order, fork → child, child → join. */
static void thread_order(const d_trace *tr, rows m)
{
    memset(m, 0, sizeof(rows));
    for (int i = 0; i < tr->n; i++) {
        for (int j = i + 1; j < tr->n; j++) {
            const d_event *a = &tr->ev[i], *b = &tr->ev[j];
            if (a->tid == b->tid || (a->op == OP_FORK && a->arg == b->tid)
                || (b->op == OP_JOIN && b->arg == a->tid))
                set_bit(m, i, j);
        }
    }
    close_rows(m, tr->n);
}

/* Strict Lamport HB: thread order + release → every later acquire. */
static void lamport_hb(const d_trace *tr, rows hb)
{
    thread_order(tr, hb);
    for (int i = 0; i < tr->n; i++)
        for (int j = i + 1; j < tr->n; j++)
            if (tr->ev[i].op == OP_REL && tr->ev[j].op == OP_ACQ && tr->ev[i].arg == tr->ev[j].arg)
                set_bit(hb, i, j);
    close_rows(hb, tr->n);
}

static int critical_sections(const d_trace *tr, d_cs *cs)
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

/* e ∈ CS(c), bounds included. */
static bool in_cs(const d_trace *tr, const d_cs *c, int e)
{
    return tr->ev[e].tid == tr->ev[c->acq].tid && e >= c->acq && (c->rel < 0 || e <= c->rel);
}

static bool common_lock(const d_trace *tr, const d_cs *cs, int n_cs, int a, int b)
{
    for (int i = 0; i < n_cs; i++)
        for (int j = 0; j < n_cs; j++)
            if (cs[i].lock == cs[j].lock && in_cs(tr, &cs[i], a) && in_cs(tr, &cs[j], b))
                return true;
    return false;
}

static int last_writer(const d_trace *tr, int r)
{
    for (int i = r - 1; i >= 0; i--)
        if (tr->ev[i].op == OP_W && tr->ev[i].arg == tr->ev[r].arg)
            return i;
    return -1;
}

/* ---- rule 3 and the SDP closure --------------------------------------------------- */

/* r1 → r2 for released sections on one lock, r1 < r2, acq1 → r2. */
static bool rule_3(const d_trace *tr, const d_cs *cs, int n_cs, rows m)
{
    bool changed = false;
    for (int i = 0; i < n_cs; i++)
        for (int j = 0; j < n_cs; j++)
            if (cs[i].rel >= 0 && cs[j].rel >= 0 && cs[i].lock == cs[j].lock
                && cs[i].rel < cs[j].rel && bit(m, cs[i].acq, cs[j].rel)
                && !bit(m, cs[i].rel, cs[j].rel)) {
                set_bit(m, cs[i].rel, cs[j].rel);
                changed = true;
            }
    (void)tr;
    return changed;
}

/* m := m ∪ m∘m ∪ HB∘m ∪ m∘HB, once; true if it grew. */
static bool compose_hb(int n, const rows hb, rows m)
{
    rows next;
    memcpy(next, m, sizeof(rows));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (bit(m, i, j))
                next[i] |= m[j] | hb[j];
    for (int k = 0; k < n; k++)
        for (int i = 0; i < n; i++)
            if (bit(hb, k, i))
                next[k] |= m[i];
    bool changed = memcmp(next, m, sizeof(rows)) != 0;
    memcpy(m, next, sizeof(rows));
    return changed;
}

/* Rules 1 and 2 for one ordered pair of sections (first released). */
static void sdp_rules_12(const d_trace *tr, const d_cs *c1, const d_cs *c2, rows m)
{
    for (int e1 = c1->acq; e1 <= c1->rel; e1++) {
        for (int e2 = c2->acq; e2 < tr->n; e2++) {
            if (!in_cs(tr, c1, e1) || !in_cs(tr, c2, e2) || !conflicting(tr, e1, e2))
                continue;
            if (tr->ev[e1].op == OP_R || tr->ev[e2].op == OP_R)
                set_bit(m, c1->rel, e2);
            else
                for (int e3 = e2 + 1; e3 < tr->n; e3++)
                    if (tr->ev[e3].tid == tr->ev[e2].tid && tr->ev[e3].op == OP_R
                        && conflicting(tr, e1, e3))
                        set_bit(m, c1->rel, e3);
        }
    }
}

/* Rule 4 for a write–write conflict e1 ∈ CS(s1), e2 ∈ CS(s2). */
static void sdp_rule_4(const d_trace *tr, const d_cs *cs, int n_cs, const rows hb, int e1,
                       int e2, int s1, rows m)
{
    for (int i = 0; i < n_cs; i++) {
        if (cs[i].rel < 0 || !bit(hb, cs[i].acq, s1))
            continue;
        for (int j = 0; j < n_cs; j++) {
            if (cs[j].rel < 0 || cs[j].lock != cs[i].lock || i == j || cs[i].rel >= cs[j].rel
                || !bit(hb, e2, cs[j].rel))
                continue;
            if (!in_cs(tr, &cs[i], e1) || !in_cs(tr, &cs[j], e2))
                set_bit(m, cs[i].rel, cs[j].rel);
        }
    }
}

static void sdp_base_edges(const d_trace *tr, const d_cs *cs, int n_cs, const rows hb, rows m)
{
    for (int i = 0; i < n_cs; i++) {
        for (int j = 0; j < n_cs; j++) {
            if (cs[i].rel < 0 || cs[i].lock != cs[j].lock || cs[i].rel >= cs[j].acq)
                continue;
            sdp_rules_12(tr, &cs[i], &cs[j], m);
            for (int e1 = cs[i].acq; e1 < cs[i].rel; e1++)
                for (int e2 = cs[j].acq; e2 < tr->n; e2++)
                    if (tr->ev[e1].op == OP_W && tr->ev[e2].op == OP_W && in_cs(tr, &cs[i], e1)
                        && in_cs(tr, &cs[j], e2) && conflicting(tr, e1, e2))
                        sdp_rule_4(tr, cs, n_cs, hb, e1, e2, cs[i].rel, m);
        }
    }
}

static void rel_sdp(const d_trace *tr, const d_cs *cs, int n_cs, rows m)
{
    rows hb;
    lamport_hb(tr, hb);
    memset(m, 0, sizeof(rows));
    sdp_base_edges(tr, cs, n_cs, hb, m);
    bool changed = true;
    while (changed) {
        changed = compose_hb(tr->n, hb, m);
        changed = rule_3(tr, cs, n_cs, m) || changed;
    }
}

/* ---- the WDP closure ------------------------------------------------------------- */

static int first_branch_after(const d_trace *tr, int e)
{
    for (int b = e + 1; b < tr->n; b++)
        if (tr->ev[b].tid == tr->ev[e].tid && tr->ev[b].op == OP_BR)
            return b;
    return -1;
}

static void rel_wdp(const d_trace *tr, const d_cs *cs, int n_cs, rows m)
{
    thread_order(tr, m);
    for (int e2 = 0; e2 < tr->n; e2++) {
        int e1 = tr->ev[e2].op == OP_R ? last_writer(tr, e2) : -1;
        int b = e1 >= 0 ? first_branch_after(tr, e2) : -1;
        for (int i = 0; b >= 0 && i < n_cs; i++)
            for (int j = 0; j < n_cs; j++)
                if (cs[i].rel >= 0 && i != j && cs[i].lock == cs[j].lock
                    && in_cs(tr, &cs[i], e1) && in_cs(tr, &cs[j], e2))
                    set_bit(m, cs[i].rel, b);
    }
    close_rows(m, tr->n);
    while (rule_3(tr, cs, n_cs, m))
        close_rows(m, tr->n);
}

/* ---- race pairs --------------------------------------------------------------------- */

static void race_pairs(const char *name, const d_trace *tr, rows out)
{
    d_cs cs[MAX_EVENTS];
    int n_cs = critical_sections(tr, cs);
    rows m, to;
    thread_order(tr, to);
    if (strcmp(name, "sdp") == 0)
        rel_sdp(tr, cs, n_cs, m);
    else
        rel_wdp(tr, cs, n_cs, m);
    memset(out, 0, sizeof(rows));
    for (int a = 0; a < tr->n; a++)
        for (int b = a + 1; b < tr->n; b++)
            if (conflicting(tr, a, b) && !bit(m, a, b) && !bit(to, a, b)
                && !common_lock(tr, cs, n_cs, a, b))
                set_bit(out, a, b);
}

/* ---- running a detector --------------------------------------------------------- */

static void collect(void *ctx, const rp_race *race)
{
    uint32_t *out = ctx;
    if (race->first.id >= 1 && race->second.id <= MAX_EVENTS && race->first.id < race->second.id)
        out[race->first.id - 1] |= 1u << (race->second.id - 1);
}

static rp_event to_event(const d_event *e)
{
    static const uint8_t kinds[] = { RP_EV_WRITE, RP_EV_READ, RP_EV_ACQUIRE, RP_EV_RELEASE,
                                     RP_EV_FORK, RP_EV_JOIN, RP_EV_BRANCH };
    rp_event ev;
    memset(&ev, 0, sizeof ev);
    ev.tid = (rp_tid_t)e->tid;
    ev.kind = kinds[e->op];
    ev.obj = is_access(e) ? VAR_BASE + 8u * (uint64_t)e->arg : e->op == OP_BR ? 0 : (uint64_t)e->arg;
    ev.size = is_access(e) ? 1 : 0;
    return ev;
}

static void run_detector(const char *name, const d_trace *tr, rows out, bool all_pairs)
{
    rp_detector_env env = { .report = collect, .report_ctx = out, .all_pairs = all_pairs };
    char *bad = NULL;
    rp_engine *eng = rp_engine_create(name, &env, &bad);
    if (eng == NULL) {
        fprintf(stderr, "unknown detector %s\n", name);
        exit(2);
    }
    memset(out, 0, sizeof(rows));
    for (int i = 0; i < tr->n; i++) {
        rp_event ev = to_event(&tr->ev[i]);
        ev.site = (uint64_t)i + 1;
        rp_engine_event(eng, &ev);
    }
    rp_engine_finish(eng);
    rp_engine_destroy(eng);
}

static void print_trace(const d_trace *tr)
{
    static const char *const ops[] = { "w", "r", "acq", "rel", "fork", "join", "br" };
    for (int i = 0; i < tr->n; i++) {
        const d_event *e = &tr->ev[i];
        if (e->op == OP_FORK || e->op == OP_JOIN)
            fprintf(stderr, "  %2d T%d %s(T%d)\n", i + 1, e->tid, ops[e->op], e->arg);
        else if (e->op == OP_BR)
            fprintf(stderr, "  %2d T%d br\n", i + 1, e->tid);
        else
            fprintf(stderr, "  %2d T%d %s(%c%d)\n", i + 1, e->tid, ops[e->op],
                    is_access(e) ? 'x' : 'l', e->arg);
    }
}

static void print_pairs(const char *label, const d_trace *tr, const rows s)
{
    fprintf(stderr, "  %s:", label);
    for (int a = 0; a < tr->n; a++)
        for (int b = a + 1; b < tr->n; b++)
            if (bit(s, a, b))
                fprintf(stderr, " %d-%d", a + 1, b + 1);
    fprintf(stderr, "\n");
}

/* Online: only pairs of the relation, and a partner for every racy access. */
static bool online_ok(const d_trace *tr, const rows want, const rows online)
{
    for (int b = 0; b < tr->n; b++) {
        bool racy = false, reported = false;
        for (int a = 0; a < b; a++) {
            if (bit(online, a, b) && !bit(want, a, b))
                return false;
            racy = racy || bit(want, a, b);
            reported = reported || bit(online, a, b);
        }
        if (racy && !reported)
            return false;
    }
    return true;
}

unsigned dep_oracle_run(const char *name, uint64_t seed, unsigned count)
{
    unsigned mismatches = 0, racy = 0, with_branches = 0;
    rng_state = seed;
    for (unsigned i = 0; i < count; i++) {
        d_trace tr;
        rows want, got, online;
        random_trace(&tr);
        race_pairs(name, &tr, want);
        run_detector(name, &tr, got, true);
        run_detector(name, &tr, online, false);
        for (int e = 0; e < tr.n; e++)
            if (tr.ev[e].op == OP_BR) {
                with_branches++;
                break;
            }
        static const rows none;
        racy += memcmp(want, none, sizeof want) != 0;
        if (memcmp(want, got, sizeof want) == 0 && online_ok(&tr, want, online))
            continue;
        if (++mismatches <= 5) {
            fprintf(stderr, "%s: mismatch on random trace %u:\n", name, i);
            print_trace(&tr);
            print_pairs("closure", &tr, want);
            print_pairs("all-pairs", &tr, got);
            print_pairs("online", &tr, online);
        }
    }
    fprintf(stderr, "%s: %u random traces (%u with br, %u with races), %u mismatches\n", name,
            count, with_branches, racy, mismatches);
    return mismatches;
}
