/* test_cs_bounds.c — memory bounds of the critical-section rules
 * (rp_csrules.h) and the map removal they rely on (rp_u64map.h).
 *
 *   - u64map_remove / u64map_remove_range against a plain array, through
 *     both ways remove_range works (per key, table scan);
 *   - random differential: RANDOM_STREAMS random streams (up to 6 threads
 *     forked from thread 0, some exited, some joined, before or after
 *     they exit; 3 locks, nested and non-LIFO releases; accesses of 1-4
 *     bytes among 16; forgets) drive two instances of the rules with the
 *     clocks of a DC-like detector: one with limits (pruning on, random
 *     small bounds or none) whose joiners take over what the joined thread
 *     consumed, one without either (keeps everything, consumes everything
 *     itself).  Every clock must be equal after every event
 *     unless the limited one counted a dropped section that was needed
 *     (or dropped bytes); runs that dropped sections without missing any
 *     must occur, and runs that missed some;
 *   - long synthetic streams: the history stays bounded, by pruning alone
 *     when every thread keeps consuming, by the bound (counted) when an
 *     idle thread pins it, and a joined thread pins nothing;
 *   - thousands of threads started and joined one after another, each
 *     taking the lock once: the thread that joins them pins nothing,
 *     whether they exited before the join or not, and the sections each
 *     new thread consumes stay few.
 */
#include "rp_csrules.h"
#include "rp_u64map.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define RANDOM_STREAMS 3000
#define MAX_THREADS 6
#define N_LOCKS 3
#define N_BYTES 16
#define BYTE0 0x1000u

static uint64_t rng_state;

static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng_state >> 33) % n);
}

/* ---- u64map removal ---------------------------------------------------------- */

static int values[64];

static void check_same(const rp_u64map *m, void *const *want, unsigned n)
{
    size_t count = 0;
    for (unsigned k = 0; k < n; k++) {
        assert_ptr_equal(u64map_get(m, k * 7), want[k]);
        count += want[k] != NULL;
    }
    assert_int_equal(m->count, count);
}

static void test_u64map_remove(void **state)
{
    (void)state;
    rng_state = 11;
    for (unsigned round = 0; round < 200; round++) {
        rp_u64map m;
        void *want[64] = { 0 };
        u64map_init(&m);
        for (unsigned step = 0; step < 300; step++) {
            unsigned k = rnd(64);
            unsigned op = rnd(10);
            if (op < 5) {
                u64map_put(&m, k * 7, &values[k]);
                want[k] = &values[k];
            } else if (op < 9) {
                assert_ptr_equal(u64map_remove(&m, k * 7), want[k]);
                want[k] = NULL;
            } else {
                /* Ranges over a sixteenth of the table take the scanning path. */
                unsigned len = rnd(4) == 0 ? 64 * 7 * 4 : rnd(40);
                size_t removed = u64map_remove_range(&m, k * 7, len, NULL, NULL);
                size_t expect = 0;
                for (unsigned j = 0; j < 64; j++) {
                    if ((uint64_t)j * 7 - (uint64_t)k * 7 < len && want[j] != NULL) {
                        want[j] = NULL;
                        expect++;
                    }
                }
                assert_int_equal(removed, expect);
            }
            check_same(&m, want, 64);
        }
        u64map_free(&m);
    }
}

/* ---- a DC-like driver for the rules ------------------------------------------- */

/* One instance of the rules and the clocks it feeds: order(t) as in DC
 * (own entry incremented after a release or fork) and a second clock
 * `also` that receives the same joins (as WCP's C).  A join either hands
 * the joined thread's consumption to the joiner (csrules_join, as the
 * detectors do) or only ends it (the published algorithms: the joiner
 * consumes everything again, to no effect on its clocks). */
typedef struct driven {
    rp_csrules *cs;
    rp_vc *order;
    rp_vc *also;
    unsigned n_threads;
    bool join_inherits;
} driven;

/* Not an event of the stream: thread tid exits (csrules_thread_end). */
#define EXIT RP_EV_KIND_COUNT

static void driven_init_threads(driven *d, rp_cs_limits *limits, unsigned n_threads)
{
    csrules_set_limits(limits);
    d->cs = csrules_create(true);
    csrules_set_limits(NULL);
    d->n_threads = n_threads;
    d->join_inherits = true;
    d->order = calloc(n_threads, sizeof *d->order);
    d->also = calloc(n_threads, sizeof *d->also);
    for (unsigned t = 0; t < n_threads; t++) {
        vc_init(&d->order[t]);
        vc_init(&d->also[t]);
        vc_set(&d->order[t], t, 1);
        vc_set(&d->also[t], t, 1);
    }
}

static void driven_init(driven *d, rp_cs_limits *limits)
{
    driven_init_threads(d, limits, MAX_THREADS);
}

static void driven_free(driven *d)
{
    csrules_destroy(d->cs);
    for (unsigned t = 0; t < d->n_threads; t++) {
        vc_free(&d->order[t]);
        vc_free(&d->also[t]);
    }
    free(d->order);
    free(d->also);
}

static void increment(driven *d, rp_tid_t t)
{
    vc_inc(&d->order[t], t);
    vc_inc(&d->also[t], t);
}

static void drive(driven *d, const rp_event *e)
{
    rp_tid_t t = e->tid;
    rp_tid_t other = (rp_tid_t)e->obj;
    switch (e->kind) {
    case RP_EV_READ:
    case RP_EV_WRITE:
        csrules_access(d->cs, e, &d->order[t], &d->also[t]);
        break;
    case RP_EV_ACQUIRE:
        csrules_acquire(d->cs, t, e->obj, vc_get(&d->order[t], t));
        break;
    case RP_EV_RELEASE:
        csrules_rule_b(d->cs, t, e->obj, &d->order[t], &d->also[t]);
        csrules_release(d->cs, t, e->obj, &d->order[t]);
        increment(d, t);
        break;
    case RP_EV_FORK:
        vc_join(&d->order[other], &d->order[t]);
        vc_join(&d->also[other], &d->also[t]);
        csrules_fork(d->cs, t, other);
        increment(d, t);
        break;
    case RP_EV_JOIN:
        vc_join(&d->order[t], &d->order[other]);
        vc_join(&d->also[t], &d->also[other]);
        if (d->join_inherits) {
            csrules_join(d->cs, t, other);
            csrules_thread_gone(d->cs, other);
        } else
            csrules_thread_end(d->cs, other);
        break;
    case EXIT:
        csrules_thread_end(d->cs, t);
        break;
    case RP_EV_FORGET:
        csrules_forget(d->cs, e->obj, e->size);
        break;
    default:
        fail();
    }
}

static bool same_clocks(const driven *a, const driven *b)
{
    for (unsigned t = 0; t < MAX_THREADS; t++)
        if (!vc_leq(&a->order[t], &b->order[t]) || !vc_leq(&b->order[t], &a->order[t])
            || !vc_leq(&a->also[t], &b->also[t]) || !vc_leq(&b->also[t], &a->also[t]))
            return false;
    return true;
}

/* ---- random streams ------------------------------------------------------------ */

typedef struct stream_state {
    bool started[MAX_THREADS], exited[MAX_THREADS], ended[MAX_THREADS];
    int holder[N_LOCKS];          /* thread holding the lock, -1: free */
    unsigned n_started;
} stream_state;

static rp_event event(rp_tid_t tid, uint8_t kind, uint64_t obj, uint32_t size)
{
    rp_event e = { 0, obj, 0, tid, size, kind };
    return e;
}

static bool holds_any(const stream_state *s, rp_tid_t t)
{
    for (unsigned l = 0; l < N_LOCKS; l++)
        if (s->holder[l] == (int)t)
            return true;
    return false;
}

static rp_tid_t live_thread(const stream_state *s)
{
    for (;;) {
        rp_tid_t t = rnd(s->n_started);
        if (!s->exited[t] && !s->ended[t])
            return t;
    }
}

/* A started thread other than t and 0, not joined yet, or none (0). */
static rp_tid_t joinable(const stream_state *s, rp_tid_t t)
{
    rp_tid_t u = rnd(s->n_started);
    return u == t || s->ended[u] ? 0 : u;
}

/* A random event that keeps the stream well formed: locks held by one
 * thread at a time, only started threads run until they exit, a thread
 * is joined once (exited or not), holding nothing. */
static rp_event random_event(stream_state *s)
{
    rp_tid_t t = live_thread(s);
    unsigned op = rnd(100);
    unsigned l = rnd(N_LOCKS);
    if (op < 40) {
        uint32_t size = 1 + rnd(4);
        return event(t, rnd(2) ? RP_EV_WRITE : RP_EV_READ, BYTE0 + rnd(N_BYTES - size + 1), size);
    }
    if (op < 62 && s->holder[l] < 0) {
        s->holder[l] = (int)t;
        return event(t, RP_EV_ACQUIRE, l + 1, 0);
    }
    if (op < 84 && s->holder[l] >= 0) {
        rp_tid_t h = (rp_tid_t)s->holder[l];
        s->holder[l] = -1;
        return event(h, RP_EV_RELEASE, l + 1, 0);
    }
    if (op < 89 && s->n_started < MAX_THREADS) {
        rp_tid_t child = s->n_started++;
        s->started[child] = true;
        return event(t, RP_EV_FORK, child, 0);
    }
    if (op < 93) {
        rp_tid_t u = joinable(s, t);
        if (u != 0 && !holds_any(s, u)) {
            s->ended[u] = true;
            return event(t, RP_EV_JOIN, u, 0);
        }
    }
    if (op < 95 && t != 0 && !holds_any(s, t)) {
        s->exited[t] = true;
        return event(t, EXIT, 0, 0);
    }
    if (op < 98)
        return event(t, RP_EV_FORGET, BYTE0 + rnd(N_BYTES), 1 + rnd(6));
    return event(t, RP_EV_READ, BYTE0 + rnd(N_BYTES), 1);
}

typedef struct run_outcome {
    bool dropped;      /* a bound dropped something */
    bool missed;       /* something dropped was needed: the bytes bound
                        * and full logs count every drop so */
    bool pruned;       /* pruning alone kept fewer sections than keep-all */
} run_outcome;

static run_outcome run_random_stream(uint64_t seed)
{
    rng_state = seed;
    rp_cs_limits limits = { 0, 0, 0, 0, 0, 0 };
    /* A quarter of the runs unbounded (pruning only), a quarter with a
     * bound on bytes too, the others on sections only, small enough to be
     * hit often. */
    unsigned kind = rnd(4);
    if (kind != 0)
        limits.max_sections = 1 + rnd(6);
    if (kind == 1)
        limits.max_bytes = 2 + rnd(24);
    driven bounded, all;
    driven_init(&bounded, &limits);
    driven_init(&all, NULL);
    all.join_inherits = false;
    stream_state s;
    memset(&s, 0, sizeof s);
    memset(s.holder, -1, sizeof s.holder);
    s.started[0] = true;
    s.n_started = 1;
    unsigned n_events = 20 + rnd(180);
    run_outcome out = { false, false, false };
    for (unsigned i = 0; i < n_events; i++) {
        rp_event e = random_event(&s);
        drive(&bounded, &e);
        drive(&all, &e);
        out.dropped = limits.dropped_sections + limits.dropped_bytes > 0;
        out.missed = limits.missed_sections + limits.dropped_bytes + limits.full_logs > 0;
        if (!out.missed && !same_clocks(&bounded, &all)) {
            print_message("seed %llu: clocks differ after event %u with nothing missed\n",
                          (unsigned long long)seed, i);
            fail();
        }
    }
    out.pruned = csrules_kept_sections(bounded.cs) < csrules_kept_sections(all.cs);
    assert_true(csrules_kept_bytes(bounded.cs) <= csrules_kept_bytes(all.cs));
    driven_free(&bounded);
    driven_free(&all);
    return out;
}

static void test_bounded_equals_keep_all_unless_counted(void **state)
{
    (void)state;
    unsigned dropped = 0, exact = 0, pruned = 0;
    for (unsigned i = 0; i < RANDOM_STREAMS; i++) {
        run_outcome out = run_random_stream(0x5eed0000ull + i);
        dropped += out.dropped;
        exact += out.dropped && !out.missed;
        pruned += out.pruned && !out.dropped;
    }
    print_message("%u of %u streams hit a bound (%u without missing anything); %u kept "
                  "fewer sections by pruning alone\n", dropped, RANDOM_STREAMS, exact, pruned);
    assert_true(dropped > RANDOM_STREAMS / 10);
    assert_true(exact > RANDOM_STREAMS / 20);
    assert_true(dropped < RANDOM_STREAMS - RANDOM_STREAMS / 10);
    assert_true(pruned > RANDOM_STREAMS / 20);
}

/* ---- long streams ---------------------------------------------------------------- */

#define LONG_SECTIONS 200000u
#define LOCK 1u

/* Thread t takes the lock and writes the shared counter (so that the
 * sections conflict and order each other, as in a real program) and one
 * byte of its own, different each time. */
static void section(driven *d, rp_tid_t t, uint32_t i)
{
    rp_event acq = event(t, RP_EV_ACQUIRE, LOCK, 0);
    rp_event counter = event(t, RP_EV_WRITE, BYTE0, 4);
    rp_event fresh = event(t, RP_EV_WRITE, 0x100000u + i, 1);
    rp_event rel = event(t, RP_EV_RELEASE, LOCK, 0);
    drive(d, &acq);
    drive(d, &counter);
    drive(d, &fresh);
    drive(d, &rel);
}

static void fork_threads(driven *d, rp_tid_t n)
{
    for (rp_tid_t c = 1; c < n; c++) {
        rp_event f = event(0, RP_EV_FORK, c, 0);
        drive(d, &f);
    }
}

/* Threads first..last-1 take turns for LONG_SECTIONS sections; the kept
 * sections and bytes must stay within the bounds all along. */
static void run_long(driven *d, rp_tid_t first, rp_tid_t last, uint64_t max_sections,
                     uint64_t max_bytes)
{
    for (uint32_t i = 0; i < LONG_SECTIONS; i++) {
        section(d, first + i % (last - first), i);
        if (i % 1000 == 0) {
            assert_true(csrules_kept_sections(d->cs) <= max_sections);
            assert_true(csrules_kept_bytes(d->cs) <= max_bytes);
        }
    }
}

static void test_pruning_alone_bounds_busy_threads(void **state)
{
    (void)state;
    rp_cs_limits limits = { 0, 0, 0, 0, 0, 0 };
    driven d;
    driven_init(&d, &limits);
    fork_threads(&d, 3);
    /* Every thread takes the lock: what all have consumed goes, and the
     * history stays a few sections per thread without any bound. */
    run_long(&d, 0, 3, 3 * 8, UINT64_MAX);
    assert_int_equal(limits.dropped_sections, 0);
    driven_free(&d);
}

static void test_bound_caps_a_pinned_history(void **state)
{
    (void)state;
    rp_cs_limits limits = { 64, 4096, 0, 0, 0, 0 };
    driven d;
    driven_init(&d, &limits);
    fork_threads(&d, 3);
    /* Thread 0 never takes the lock again, so it may still need every
     * section: only the bound limits them (and a summary each), and says
     * so. */
    run_long(&d, 1, 3, 2 * 64 + 2, 4096);
    assert_true(limits.dropped_sections > LONG_SECTIONS / 2);
    assert_true(limits.dropped_bytes > LONG_SECTIONS / 2);
    driven_free(&d);
}

static void test_joined_thread_pins_nothing(void **state)
{
    (void)state;
    rp_cs_limits limits = { 0, 0, 0, 0, 0, 0 };
    driven d;
    driven_init(&d, &limits);
    fork_threads(&d, 4);
    section(&d, 3, 0);
    rp_event join = event(0, RP_EV_JOIN, 3, 0);
    drive(&d, &join);
    run_long(&d, 0, 3, 3 * 8, UINT64_MAX);
    assert_int_equal(limits.dropped_sections, 0);
    driven_free(&d);
}

/* Thread 0 starts a thread, which takes the lock once, and joins it,
 * ONE_BY_ONE times; every other thread exits before its join, and every
 * eighth exits some threads' time before it (other threads exit and are
 * joined in between). */
#define ONE_BY_ONE 3000u

static void test_threads_joined_one_by_one_pin_nothing(void **state)
{
    (void)state;
    rp_cs_limits limits = { 0, 0, 0, 0, 0, 0 };
    driven d;
    driven_init_threads(&d, &limits, ONE_BY_ONE + 1);
    for (rp_tid_t c = 1; c <= ONE_BY_ONE; c++) {
        rp_event f = event(0, RP_EV_FORK, c, 0);
        rp_event exit = event(c, EXIT, 0, 0);
        rp_event join = event(0, RP_EV_JOIN, c, 0);
        drive(&d, &f);
        section(&d, c, c);
        if (c % 2 == 0)
            drive(&d, &exit);
        if (c % 8 != 1)
            drive(&d, &join);
        if (c % 8 == 0) {
            rp_event late = event(0, RP_EV_JOIN, c - 7, 0);
            drive(&d, &late);
        }
        assert_true(csrules_kept_sections(d.cs) <= 20);
    }
    /* Each thread consumed the sections of the threads since the last
     * join of a thread that had not consumed them: one, or a few. */
    assert_true(vc_get(&d.order[ONE_BY_ONE], ONE_BY_ONE - 1) > 0);
    assert_int_equal(limits.dropped_sections, 0);
    driven_free(&d);
}

static void test_forget_drops_bytes(void **state)
{
    (void)state;
    driven d;
    driven_init(&d, NULL);
    for (uint32_t i = 0; i < 100; i++)
        section(&d, 0, i);
    assert_int_equal(csrules_kept_bytes(d.cs), 4 + 100);
    rp_event forget = event(0, RP_EV_FORGET, 0x100000u + 10, 50);
    drive(&d, &forget);
    assert_int_equal(csrules_kept_bytes(d.cs), 4 + 50);
    driven_free(&d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_u64map_remove),
        cmocka_unit_test(test_bounded_equals_keep_all_unless_counted),
        cmocka_unit_test(test_pruning_alone_bounds_busy_threads),
        cmocka_unit_test(test_bound_caps_a_pinned_history),
        cmocka_unit_test(test_threads_joined_one_by_one_pin_nothing),
        cmocka_unit_test(test_joined_thread_pins_nothing),
        cmocka_unit_test(test_forget_drops_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
