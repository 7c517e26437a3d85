/* test_cone_witness.c — the fast path tc_cone_is_witness (rp_trcone.h)
 * against the validator (rp_witness.h) on random small traces.
 *
 * For every conflicting pair (e1, e2) of a trace and every cone (one
 * prefix length per thread; all of them, or 400 random ones when there are
 * more), the cone in trace order is replayed by witness_check and asked of
 * tc_cone_is_witness.  On a trace that is itself a valid execution the two
 * must agree exactly; on the others (one event in ten is generated without
 * regard to lock, fork or join discipline) the fast path must never accept
 * what the validator rejects.  Both answers must occur.  The same cones
 * test the windowed witnesses of osr: witness_check_after on a base cut at
 * a random point against witness_check of the whole, and tc_linearize from
 * the first reversed acquire against tc_linearize of the whole cone. */
#include "rp_shim.h"
#include "rp_trcone.h"
#include "rp_witness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#define MAXE 14
#define MAXT 4
#define BYTE0 0x100u

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

static rp_event mk(uint32_t i, rp_tid_t tid, rp_event_kind kind, uint64_t obj, uint32_t size)
{
    rp_event e = { i + 1, obj, i + 1, tid, size, (uint8_t)kind };
    return e;
}

typedef struct gen {
    int started[MAXT];      /* 0 not yet, 1 running, 2 joined */
    int holds[MAXT][2];     /* 0 free, 1 exclusive, 2 shared */
    int shared[2];
    int excl[2];
} gen;

/* A lock event that keeps the discipline, or none (kind KIND_COUNT). */
static rp_event lock_event(gen *g, uint32_t i, rp_tid_t t, bool careless)
{
    uint32_t l = rnd(2);
    rp_event none = mk(i, t, RP_EV_KIND_COUNT, 0, 0);
    if (careless)
        return mk(i, t, (rp_event_kind)(RP_EV_ACQUIRE + rnd(4)), 1 + l, 0);
    if (g->holds[t][l] != 0) {
        bool sh = g->holds[t][l] == 2;
        g->holds[t][l] = 0;
        if (sh)
            g->shared[l]--;
        else
            g->excl[l] = -1;
        return mk(i, t, sh ? RP_EV_RELEASE_SHARED : RP_EV_RELEASE, 1 + l, 0);
    }
    if (g->excl[l] >= 0)
        return none;
    if (rnd(4) == 0) {
        g->holds[t][l] = 2;
        g->shared[l]++;
        return mk(i, t, RP_EV_ACQUIRE_SHARED, 1 + l, 0);
    }
    if (g->shared[l] != 0)
        return none;
    g->holds[t][l] = 1;
    g->excl[l] = (int)t;
    return mk(i, t, RP_EV_ACQUIRE, 1 + l, 0);
}

static rp_event thread_event(gen *g, uint32_t i, rp_tid_t t, bool careless)
{
    rp_tid_t c = rnd(MAXT);
    rp_event none = mk(i, t, RP_EV_KIND_COUNT, 0, 0);
    if (rnd(2) == 0) {
        if (!careless && g->started[c] != 0)
            return none;
        g->started[c] = 1;
        return mk(i, t, RP_EV_FORK, c, 0);
    }
    if (!careless && (c == t || c == 0 || g->started[c] != 1 || g->holds[c][0] || g->holds[c][1]))
        return none;
    g->started[c] = 2;
    return mk(i, t, RP_EV_JOIN, c, 0);
}

static uint32_t gen_trace(rp_event *ev)
{
    gen g;
    uint32_t want = 4 + rnd(MAXE - 3), n = 0;
    memset(&g, 0, sizeof g);
    g.excl[0] = g.excl[1] = -1;
    for (rp_tid_t t = 0; t < MAXT; t++)
        g.started[t] = t == 0 || rnd(3) != 0;
    for (unsigned tries = 0; n < want && tries < 200; tries++) {
        rp_tid_t t = rnd(MAXT);
        bool careless = rnd(10) == 0;
        if (g.started[t] != 1 && !careless)
            continue;
        uint32_t op = rnd(100);
        if (op < 30)
            ev[n] = lock_event(&g, n, t, careless);
        else if (op < 80)
            ev[n] = mk(n, t, rnd(2) ? RP_EV_WRITE : RP_EV_READ, BYTE0 + rnd(2), 1 + (rnd(5) == 0));
        else if (op < 88)
            ev[n] = thread_event(&g, n, t, careless);
        else if (op < 96)
            ev[n] = mk(n, t, rnd(2) ? RP_EV_SYNC_SEND : RP_EV_SYNC_RECV, 7, 0);
        else
            ev[n] = mk(n, t, RP_EV_FORGET, BYTE0 + rnd(2), 1);
        if (ev[n].kind != RP_EV_KIND_COUNT)
            n++;
    }
    return n;
}

typedef struct totals {
    unsigned traces, replaying, cones, accepted, rejected, based, windows;
} totals;

static void cone_witness(const rp_tcfacts *f, const uint32_t *cone, uint32_t e1, uint32_t e2,
                         rp_witness *w)
{
    witness_clear(w);
    w->e1 = e1;
    w->e2 = e2;
    for (uint32_t i = 0; i < f->n; i++)
        if (tc_in(f, cone, i))
            witness_push(w, i);
}

static void check_cone(const rp_tcfacts *f, rp_wcheck *chk, const uint32_t *cone, uint32_t e1,
                       uint32_t e2, rp_witness *w, totals *tot)
{
    cone_witness(f, cone, e1, e2, w);
    bool slow = witness_check(chk, w, NULL), fast = tc_cone_is_witness(f, cone, e1, e2);
    if (fast != slow && (fast || f->replays)) {
        fprintf(stderr, "pair %u-%u, cone", e1 + 1, e2 + 1);
        for (uint32_t t = 0; t < f->n_threads; t++)
            fprintf(stderr, " %u", cone[t]);
        fprintf(stderr, ": fast %d, validator %d, log replays %d; trace:\n", fast, slow,
                f->replays);
        for (uint32_t i = 0; i < f->n; i++)
            fprintf(stderr, "  %u T%u %s %llu/%u\n", i + 1, f->log[i].tid,
                    rp_event_kind_name((rp_event_kind)f->log[i].kind),
                    (unsigned long long)f->log[i].obj, f->log[i].size);
        fail();
    }
    tot->cones++;
    tot->accepted += slow;
    tot->rejected += !slow;
}

/* witness_check_after on (the cone before p, the rest of the cone in trace
 * order) must answer as witness_check on the whole when the base replays. */
static void check_based(const rp_tcfacts *f, rp_wcheck *chk, const uint32_t *cone, uint32_t p,
                        uint32_t e1, uint32_t e2, rp_witness *w, totals *tot)
{
    uint32_t base[MAXT + 1], *open = NULL, cap = 0;
    tc_cone_below(f, cone, p, base);
    if (!tc_base_is_prefix(f, base))
        return;
    uint32_t n_open = tc_open_list(f, base, &open, &cap);
    cone_witness(f, cone, e1, e2, w);
    bool whole = witness_check(chk, w, NULL);
    witness_clear(w);
    for (uint32_t i = p; i < f->n; i++)
        if (tc_in(f, cone, i))
            witness_push(w, i);
    bool after = witness_check_after(chk, base, open, n_open, w, NULL);
    rp_free(open);
    if (after != whole) {
        fprintf(stderr, "pair %u-%u, split at %u: witness_check_after %d, witness_check %d\n",
                e1 + 1, e2 + 1, p + 1, after, whole);
        fail();
    }
    tot->based++;
}

/* The cone holds the clock (and a read's writers) of each thread's last
 * event in it: what every cone osr builds satisfies. */
static bool closed(const rp_tcfacts *f, const uint32_t *cone)
{
    for (uint32_t t = 0; t < f->n_threads; t++) {
        if (cone[t] == 0)
            continue;
        uint32_t x = tc_thread_event(f, t, cone[t] - 1);
        for (uint32_t u = 0; u < f->n_threads; u++)
            if (f->clocks[(size_t)x * f->n_threads + u] > cone[u])
                return false;
        for (uint32_t k = f->writer_off[x]; k < f->writer_off[x + 1]; k++)
            if (f->writers[k] != TC_NONE && !tc_in(f, cone, f->writers[k]))
                return false;
    }
    return true;
}

/* tc_linearize from the first reversed acquire orders the rest of the cone
 * as tc_linearize of the whole does, after the events before it. */
static void check_window(const rp_tcfacts *f, const uint32_t *cone, rp_witness *w, totals *tot)
{
    uint32_t loc[MAXE + 1], from = tc_first_reversed(f, cone), k = 0;
    rp_witness part;
    if (from == TC_NONE || !f->replays || !closed(f, cone))
        return;
    witness_init(&part);
    witness_clear(w);
    bool whole = tc_linearize(f, cone, 0, loc, w);
    bool window = tc_linearize(f, cone, from, loc, &part);
    assert_int_equal(whole, window);
    for (uint32_t i = 0; whole && i < from; i++)
        if (tc_in(f, cone, i))
            assert_int_equal(w->events[k++], i);
    for (uint32_t j = 0; whole && j < part.n; j++)
        assert_int_equal(w->events[k++], part.events[j]);
    assert_int_equal(whole ? k : 0, whole ? w->n : 0);
    witness_free(&part);
    tot->windows++;
}

/* Cone number `code` in mixed radix (len[t] + 1 per thread). */
static void decode(const rp_tcfacts *f, uint64_t code, uint32_t *cone)
{
    for (uint32_t t = 0; t < f->n_threads; t++) {
        uint32_t radix = tc_thread_len(f, t) + 1;
        cone[t] = (uint32_t)(code % radix);
        code /= radix;
    }
}

static void check_pair(const rp_tcfacts *f, rp_wcheck *chk, uint32_t e1, uint32_t e2,
                       rp_witness *w, totals *tot)
{
    uint32_t cone[MAXT + 1];
    uint64_t count = 1;
    for (uint32_t t = 0; t < f->n_threads; t++)
        count *= tc_thread_len(f, t) + 1;
    bool all = count <= 400;
    for (uint64_t k = 0; k < (all ? count : 400); k++) {
        decode(f, all ? k : rnd((uint32_t)count), cone);
        check_cone(f, chk, cone, e1, e2, w, tot);
        check_based(f, chk, cone, rnd(e1 + 1), e1, e2, w, tot);
        check_window(f, cone, w, tot);
    }
    /* the cone that makes both next events is the likeliest witness */
    for (uint32_t t = 0; t < f->n_threads; t++)
        cone[t] = tc_thread_len(f, t);
    cone[f->log[e1].tid] = f->tpos[e1];
    cone[f->log[e2].tid] = f->tpos[e2];
    check_cone(f, chk, cone, e1, e2, w, tot);
}

static bool conflict(const rp_event *a, const rp_event *b)
{
    return rp_event_is_access(a) && rp_event_is_access(b) && a->tid != b->tid &&
           (a->kind == RP_EV_WRITE || b->kind == RP_EV_WRITE) && a->obj < b->obj + b->size &&
           b->obj < a->obj + a->size;
}

static void test_cone_fast_path_matches_validator(void **state)
{
    totals tot;
    rp_witness w;
    (void)state;
    memset(&tot, 0, sizeof tot);
    witness_init(&w);
    for (unsigned k = 0; k < 3000; k++) {
        rp_event ev[MAXE];
        uint32_t n = gen_trace(ev);
        rp_tcfacts f;
        tc_build(&f, ev, n);
        rp_wcheck *chk = wcheck_create(ev, n);
        tot.traces++;
        tot.replaying += f.replays;
        for (uint32_t b = 0; b < n; b++)
            for (uint32_t a = 0; a < b; a++)
                if (conflict(&ev[a], &ev[b]))
                    check_pair(&f, chk, a, b, &w, &tot);
        wcheck_destroy(chk);
        tc_free(&f);
    }
    witness_free(&w);
    fprintf(stderr, "cone witnesses: %u traces (%u valid executions), %u cones, %u accepted, "
            "%u rejected by the validator; %u based checks, %u windowed orders\n", tot.traces,
            tot.replaying, tot.cones, tot.accepted, tot.rejected, tot.based, tot.windows);
    assert_true(tot.accepted > 1000);
    assert_true(tot.rejected > 1000);
    assert_true(tot.replaying > tot.traces / 4 && tot.replaying < tot.traces);
    assert_true(tot.based > 1000 && tot.windows > 1000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cone_fast_path_matches_validator),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
