/* test_history_bounds.c — the memory bounds of the detectors' critical-
 * section histories on the engine (sdp, wdp, and wcp and dc through
 * rp_csrules), and the thread-end notification (rp_engine_thread_end).
 *
 *   - random differential: RANDOM_STREAMS random streams per detector (up
 *     to 5 threads forked from thread 0; some end without a join — a
 *     thread_end — and some of those are joined later, others joined
 *     straight away; 3 locks, nested; accesses of 1-4 bytes among 16;
 *     branches; forgets) run through two engines: one with limits (random
 *     small bounds, or none: dropping what every live thread consumed
 *     only), one without (keeps everything).  The bounded run's all-pairs
 *     races must include the unbounded run's — a bound only takes order
 *     away (rp_csrules.h) — and equal them when no bound lost anything (no
 *     dropped section needed, no (lock, byte) pair dropped, no section log
 *     full).  Runs that lost something and reported more races must occur,
 *     and runs that kept less than the unbounded run without losing
 *     anything;
 *   - a section held across a long loop: its log stays under --cs-bytes
 *     (distinct accesses merged, new ones left out once full, counted),
 *     and the pairs it publishes under the bound;
 *   - detached threads: workers that end without a join stop holding the
 *     histories back — few sections are kept with thread_end, thousands
 *     without — and the races are those of the unbounded run either way.
 */
#include "rp_csrules.h"
#include "rp_engine.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define RANDOM_STREAMS 2000
#define MAX_THREADS 5
#define N_LOCKS 3
#define N_BYTES 16
#define BYTE0 0x1000u

static uint64_t rng_state;

static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng_state >> 33) % n);
}

/* ---- running a stream ---------------------------------------------------------- */

/* One step of a stream: an event, or a notice about thread e.tid. */
typedef enum notice { NO_NOTICE, NOTICE_END, NOTICE_GONE } notice;

typedef struct step {
    rp_event e;
    notice notice;
} step;

typedef struct stream {
    step *steps;
    size_t n, cap;
} stream;

static void push_step(stream *s, rp_event_kind kind, rp_tid_t tid, uint64_t obj,
                      uint32_t size, notice what)
{
    if (s->n == s->cap) {
        s->cap = s->cap == 0 ? 256 : 2 * s->cap;
        s->steps = realloc(s->steps, s->cap * sizeof *s->steps);
        assert_non_null(s->steps);
    }
    step *st = &s->steps[s->n++];
    memset(st, 0, sizeof *st);
    st->e.kind = (uint8_t)kind;
    st->e.tid = tid;
    st->e.obj = obj;
    st->e.size = size;
    st->e.site = s->n;
    st->notice = what;
}

static void push(stream *s, rp_event_kind kind, rp_tid_t tid, uint64_t obj, uint32_t size)
{
    push_step(s, kind, tid, obj, size, NO_NOTICE);
}

static void push_end(stream *s, rp_tid_t tid)
{
    push_step(s, RP_EV_KIND_COUNT, tid, 0, 0, NOTICE_END);
}

/* Thread tid has ended and will not be joined: detached. */
static void push_gone(stream *s, rp_tid_t tid)
{
    push_step(s, RP_EV_KIND_COUNT, tid, 0, 0, NOTICE_GONE);
}

/* What a run reported and kept. */
typedef struct outcome {
    uint64_t *keys;        /* first.id << 32 | second.id, sorted, distinct */
    size_t n, cap;
    uint64_t sections, peak, bytes;
} outcome;

static void collect(void *ctx, const rp_race *race)
{
    outcome *o = ctx;
    if (o->n == o->cap) {
        o->cap = o->cap == 0 ? 64 : 2 * o->cap;
        o->keys = realloc(o->keys, o->cap * sizeof *o->keys);
        assert_non_null(o->keys);
    }
    o->keys[o->n++] = race->first.id << 32 | race->second.id;
}

static int compare_keys(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static void sort_keys(outcome *o)
{
    size_t kept = 0;
    if (o->n > 0)
        qsort(o->keys, o->n, sizeof *o->keys, compare_keys);
    for (size_t i = 0; i < o->n; i++)
        if (kept == 0 || o->keys[kept - 1] != o->keys[i])
            o->keys[kept++] = o->keys[i];
    o->n = kept;
}

/* Runs the stream through detector with limits (NULL: unbounded);
 * with_ends false leaves the thread ends out, with_gone false the
 * detached threads' gone notices. */
static outcome run_notices(const char *detector, const stream *s, rp_cs_limits *limits,
                           bool with_ends, bool with_gone)
{
    outcome o;
    memset(&o, 0, sizeof o);
    rp_detector_env env = { .report = collect, .report_ctx = &o, .all_pairs = true };
    csrules_set_limits(limits);
    rp_engine *eng = rp_engine_create(detector, &env, NULL);
    csrules_set_limits(NULL);
    assert_non_null(eng);
    for (size_t i = 0; i < s->n; i++) {
        rp_event e = s->steps[i].e;
        if (s->steps[i].notice == NO_NOTICE)
            rp_engine_event(eng, &e);
        else if (s->steps[i].notice == NOTICE_END && with_ends)
            rp_engine_thread_end(eng, e.tid);
        else if (s->steps[i].notice == NOTICE_GONE && with_gone)
            rp_engine_thread_gone(eng, e.tid);
    }
    rp_history_stats kept;
    rp_engine_kept(eng, &kept);
    o.sections = kept.sections;
    o.peak = kept.peak_sections;
    o.bytes = kept.bytes;
    rp_engine_finish(eng);
    rp_engine_destroy(eng);
    sort_keys(&o);
    return o;
}

static outcome run(const char *detector, const stream *s, rp_cs_limits *limits,
                   bool with_ends)
{
    return run_notices(detector, s, limits, with_ends, with_ends);
}

static bool includes(const outcome *big, const outcome *small)
{
    size_t j = 0;
    for (size_t i = 0; i < small->n; i++) {
        while (j < big->n && big->keys[j] < small->keys[i])
            j++;
        if (j == big->n || big->keys[j] != small->keys[i])
            return false;
    }
    return true;
}

/* ---- random streams ------------------------------------------------------------ */

typedef struct gen_state {
    bool ended[MAX_THREADS], joined[MAX_THREADS];
    unsigned gone;
    int holder[N_LOCKS];
    unsigned n_started;
} gen_state;

static bool holds_any(const gen_state *g, rp_tid_t t)
{
    for (unsigned l = 0; l < N_LOCKS; l++)
        if (g->holder[l] == (int)t)
            return true;
    return false;
}

static rp_tid_t running_thread(const gen_state *g)
{
    for (;;) {
        rp_tid_t t = rnd(g->n_started);
        if (!g->ended[t])
            return t;
    }
}

/* Thread u (not 0, holding nothing) ends; its joiner, if any, is t.  One
 * that ends without a join is detached half the time: gone, never joined. */
static void end_or_join(stream *s, gen_state *g, rp_tid_t t, rp_tid_t u, bool join)
{
    if (!g->ended[u] && (!join || rnd(2) == 0))
        push_end(s, u);
    g->ended[u] = true;
    if (!join && rnd(2) == 0) {
        push_gone(s, u);
        g->joined[u] = true;
        g->gone++;
        return;
    }
    if (join) {
        g->joined[u] = true;
        push(s, RP_EV_JOIN, t, u, 0);
    }
}

/* One random step that keeps the stream well formed: a lock held by one
 * thread at a time, only started threads that have not ended run, a
 * thread ends holding nothing and is joined at most once. */
static void random_step(stream *s, gen_state *g)
{
    rp_tid_t t = running_thread(g);
    unsigned op = rnd(100);
    unsigned l = rnd(N_LOCKS);
    if (op < 40) {
        uint32_t size = 1 + rnd(4);
        push(s, rnd(2) ? RP_EV_WRITE : RP_EV_READ, t, BYTE0 + rnd(N_BYTES - size + 1), size);
    } else if (op < 48) {
        push(s, RP_EV_BRANCH, t, 0, 0);
    } else if (op < 68 && g->holder[l] < 0) {
        g->holder[l] = (int)t;
        push(s, RP_EV_ACQUIRE, t, l + 1, 0);
    } else if (op < 88 && g->holder[l] >= 0) {
        push(s, RP_EV_RELEASE, (rp_tid_t)g->holder[l], l + 1, 0);
        g->holder[l] = -1;
    } else if (op < 92 && g->n_started < MAX_THREADS) {
        push(s, RP_EV_FORK, t, g->n_started++, 0);
    } else if (op < 97) {
        rp_tid_t u = rnd(g->n_started);
        if (u != t && u != 0 && !g->joined[u] && !holds_any(g, u))
            end_or_join(s, g, t, u, rnd(3) != 0);
    } else {
        push(s, RP_EV_FORGET, t, BYTE0 + rnd(N_BYTES), 1 + rnd(6));
    }
}

static stream random_stream(void)
{
    stream s = { NULL, 0, 0 };
    gen_state g;
    memset(&g, 0, sizeof g);
    memset(g.holder, -1, sizeof g.holder);
    g.n_started = 1;
    unsigned n = 20 + rnd(200);
    for (unsigned i = 0; i < n; i++)
        random_step(&s, &g);
    return s;
}

typedef struct tally {
    unsigned lost;         /* a bound lost something */
    unsigned missed;       /* ... a dropped section was needed */
    unsigned more;         /* ... and more races came out */
    unsigned exact_drop;   /* a bound dropped sections, none was needed */
    unsigned kept_less;    /* nothing lost, fewer entries kept */
    unsigned with_gone;    /* a detached thread was gone */
} tally;

static bool lost_something(const rp_cs_limits *limits)
{
    return limits->missed_sections + limits->dropped_bytes + limits->full_logs > 0;
}

static void compare_random_stream(const char *detector, uint64_t seed, tally *t)
{
    rng_state = seed;
    rp_cs_limits limits;
    memset(&limits, 0, sizeof limits);
    unsigned kind = rnd(4);
    if (kind != 0)
        limits.max_sections = 1 + rnd(6);
    if (kind == 1)
        limits.max_bytes = 2 + rnd(24);
    stream s = random_stream();
    outcome bounded = run(detector, &s, &limits, true);
    outcome all = run(detector, &s, NULL, true);
    outcome kept = run_notices(detector, &s, NULL, true, false);
    bool lost = lost_something(&limits);
    /* A detached thread's state going changes nothing. */
    if (kept.n != all.n || memcmp(kept.keys, all.keys, all.n * sizeof *all.keys) != 0) {
        print_message("%s, seed %llu: %zu races with detached threads gone, %zu kept\n",
                      detector, (unsigned long long)seed, all.n, kept.n);
        fail();
    }
    free(kept.keys);
    for (size_t i = 0; i < s.n; i++)
        if (s.steps[i].notice == NOTICE_GONE) {
            t->with_gone++;
            break;
        }
    if (!includes(&bounded, &all) || (!lost && bounded.n != all.n)) {
        print_message("%s, seed %llu: %zu races bounded, %zu unbounded, lost %d\n", detector,
                      (unsigned long long)seed, bounded.n, all.n, lost);
        fail();
    }
    t->lost += lost;
    t->missed += limits.missed_sections > 0;
    t->more += lost && bounded.n > all.n;
    t->exact_drop += !lost && limits.dropped_sections > 0;
    t->kept_less += !lost && bounded.sections + bounded.bytes < all.sections + all.bytes;
    free(bounded.keys);
    free(all.keys);
    free(s.steps);
}

static void random_differential(const char *detector, uint64_t seed)
{
    tally t = { 0, 0, 0, 0, 0, 0 };
    for (unsigned i = 0; i < RANDOM_STREAMS; i++)
        compare_random_stream(detector, seed + i, &t);
    print_message("%s: %u of %u streams lost something to a bound (%u needed a dropped "
                  "section, %u had more races), %u dropped sections none of which was "
                  "needed, %u kept less without losing anything, %u with a detached "
                  "thread gone\n",
                  detector, t.lost, RANDOM_STREAMS, t.missed, t.more, t.exact_drop,
                  t.kept_less, t.with_gone);
    assert_true(t.lost > RANDOM_STREAMS / 20);
    assert_true(t.missed > 0);
    assert_true(t.more > 0);
    assert_true(t.kept_less > RANDOM_STREAMS / 20);
    assert_true(t.with_gone > RANDOM_STREAMS / 20);
}

static void test_sdp_bounded_includes_unbounded(void **state)
{
    (void)state;
    random_differential("sdp", 0xb0d5000000ull);
}

static void test_wdp_bounded_includes_unbounded(void **state)
{
    (void)state;
    random_differential("wdp", 0xb0d6000000ull);
}

static void test_wcp_dc_bounded_include_unbounded(void **state)
{
    (void)state;
    random_differential("wcp", 0xb0d7000000ull);
    random_differential("dc", 0xb0d8000000ull);
}

/* ---- a section held across a long loop ------------------------------------------ */

#define LONG_LOOP 200000u
#define LOCK 1u

static rp_event access(rp_event_kind kind, uint64_t id, uint64_t addr)
{
    rp_event e = { id, addr, 0, 0, 1, (uint8_t)kind };
    return e;
}

static void test_log_merges_repeats(void **state)
{
    (void)state;
    rp_cs_limits limits = { 0, 1000, 0, 0, 0, 0 };
    rp_cs_log log;
    memset(&log, 0, sizeof log);
    /* x++ over 50 counters, again and again: 100 distinct accesses. */
    for (uint64_t i = 0; i < LONG_LOOP; i++) {
        rp_event r = access(RP_EV_READ, 2 * i + 1, BYTE0 + i % 50);
        rp_event w = access(RP_EV_WRITE, 2 * i + 2, BYTE0 + i % 50);
        cslog_record(&log, &r, &limits);
        cslog_record(&log, &w, &limits);
    }
    assert_false(log.full);
    assert_true(log.cap <= 256);
    assert_int_equal(limits.full_logs, 0);
    /* Each access's first id is its first time and its last id, over the
     * entries not merged yet, its last time. */
    for (uint64_t x = 0; x < 50; x++) {
        uint64_t first = UINT64_MAX, last = 0;
        for (uint32_t i = 0; i < log.n; i++) {
            const rp_cs_logged *a = &log.entries[i];
            if (a->addr != BYTE0 + x || !a->is_write)
                continue;
            first = a->first_id < first ? a->first_id : first;
            last = a->last_id > last ? a->last_id : last;
        }
        assert_int_equal(first, 2 * x + 2);
        assert_int_equal(last, 2 * (LONG_LOOP - 50 + x) + 2);
    }
    cslog_free(&log);
}

static void test_log_stops_at_the_bound(void **state)
{
    (void)state;
    rp_cs_limits limits = { 0, 1000, 0, 0, 0, 0 };
    rp_cs_log log;
    memset(&log, 0, sizeof log);
    for (uint64_t i = 0; i < LONG_LOOP; i++) {
        rp_event w = access(RP_EV_WRITE, i + 1, BYTE0 + i);
        cslog_record(&log, &w, &limits);
        assert_true(log.cap <= 1000);
    }
    assert_true(log.full);
    assert_int_equal(limits.full_logs, 1);
    assert_int_equal(log.entries[0].addr, BYTE0);
    cslog_free(&log);
}

/* Thread 1 holds the lock across a loop writing LONG_LOOP distinct bytes;
 * thread 0 takes the lock before and after. */
static void test_long_section_stays_bounded(void **state)
{
    static const char *const detectors[] = { "sdp", "wdp", "wcp", "dc" };
    (void)state;
    stream s = { NULL, 0, 0 };
    push(&s, RP_EV_FORK, 0, 1, 0);
    push(&s, RP_EV_ACQUIRE, 1, LOCK, 0);
    for (uint32_t i = 0; i < LONG_LOOP; i++)
        push(&s, RP_EV_WRITE, 1, 0x100000u + i, 1);
    push(&s, RP_EV_RELEASE, 1, LOCK, 0);
    push(&s, RP_EV_ACQUIRE, 0, LOCK, 0);
    push(&s, RP_EV_READ, 0, 0x100000u + 5, 1);
    push(&s, RP_EV_RELEASE, 0, LOCK, 0);
    for (unsigned i = 0; i < sizeof detectors / sizeof detectors[0]; i++) {
        rp_cs_limits limits = { 0, 1000, 0, 0, 0, 0 };
        outcome o = run(detectors[i], &s, &limits, true);
        print_message("%s: %llu pairs kept, %llu dropped, %llu full logs\n", detectors[i],
                      (unsigned long long)o.bytes, (unsigned long long)limits.dropped_bytes,
                      (unsigned long long)limits.full_logs);
        assert_int_equal(limits.full_logs, 1);
        assert_true(o.bytes <= 1000);
        free(o.keys);
    }
    free(s.steps);
}

/* ---- detached threads ---------------------------------------------------------- */

#define WORKERS 4
#define ROUNDS 1000u

/* Workers started one after the other, never joined: each takes the lock
 * ROUNDS times, writing a shared counter, with the main thread taking it
 * in between (it polls, as detached_threads.c does), then ends. */
static stream detached_workers(void)
{
    stream s = { NULL, 0, 0 };
    for (rp_tid_t w = 1; w <= WORKERS; w++) {
        push(&s, RP_EV_FORK, 0, w, 0);
        for (uint32_t i = 0; i < ROUNDS; i++) {
            rp_tid_t t = i % 2 == 0 ? w : 0;
            push(&s, RP_EV_ACQUIRE, t, LOCK, 0);
            push(&s, RP_EV_READ, t, BYTE0, 4);
            push(&s, RP_EV_WRITE, t, BYTE0, 4);
            push(&s, RP_EV_RELEASE, t, LOCK, 0);
            push(&s, RP_EV_WRITE, t, 0x2000u + w, 1);
        }
        push_end(&s, w);
    }
    push(&s, RP_EV_WRITE, 0, 0x2000u + 1, 1);
    return s;
}

static void test_ended_threads_hold_nothing_back(void **state)
{
    static const char *const detectors[] = { "sdp", "wdp", "wcp", "dc" };
    (void)state;
    stream s = detached_workers();
    for (unsigned i = 0; i < sizeof detectors / sizeof detectors[0]; i++) {
        rp_cs_limits with_limits = { 0, 0, 0, 0, 0, 0 };
        rp_cs_limits without_limits = { 0, 0, 0, 0, 0, 0 };
        outcome ended = run(detectors[i], &s, &with_limits, true);
        outcome live = run(detectors[i], &s, &without_limits, false);
        outcome all = run(detectors[i], &s, NULL, true);
        print_message("%s: %llu sections kept with thread ends, %llu without, %llu "
                      "unbounded; %zu races\n", detectors[i],
                      (unsigned long long)ended.sections, (unsigned long long)live.sections,
                      (unsigned long long)all.sections, all.n);
        /* wdp has no release → acquire order: the main thread may still
         * consume every worker's section; ended workers hold back nothing. */
        if (strcmp(detectors[i], "wdp") != 0)
            assert_true(ended.sections < 32);
        assert_true(ended.sections + WORKERS * ROUNDS / 4 < live.sections);
        assert_false(lost_something(&with_limits));
        assert_int_equal(ended.n, all.n);
        assert_int_equal(live.n, all.n);
        assert_true(includes(&ended, &all) && includes(&live, &all));
        assert_true(all.n > 0);
        free(ended.keys);
        free(live.keys);
        free(all.keys);
    }
    free(s.steps);
}

#define DONE_LOCK 2u
#define DETACHED_WORKERS 2000u

/* Detached workers started one after the other, each taking the lock once
 * and then telling the main thread it is done (a counter under a second
 * lock, which the main thread reads under it: ordered after the worker,
 * by rule (a) too); the main thread never takes the first lock. */
static stream workers_main_never_locks(void)
{
    stream s = { NULL, 0, 0 };
    for (rp_tid_t w = 1; w <= DETACHED_WORKERS; w++) {
        push(&s, RP_EV_FORK, 0, w, 0);
        push(&s, RP_EV_ACQUIRE, w, LOCK, 0);
        push(&s, RP_EV_WRITE, w, BYTE0, 4);
        push(&s, RP_EV_RELEASE, w, LOCK, 0);
        push(&s, RP_EV_ACQUIRE, w, DONE_LOCK, 0);
        push(&s, RP_EV_WRITE, w, BYTE0 + 8, 4);
        push(&s, RP_EV_RELEASE, w, DONE_LOCK, 0);
        push_end(&s, w);
        push_gone(&s, w);
        push(&s, RP_EV_ACQUIRE, 0, DONE_LOCK, 0);
        push(&s, RP_EV_READ, 0, BYTE0 + 8, 4);
        push(&s, RP_EV_RELEASE, 0, DONE_LOCK, 0);
    }
    return s;
}

/* The main thread consumed none of the workers' sections of the first
 * lock, but its clocks hold every one: they go once their worker is gone
 * (csrules_set_clocks), not at the bound.  (wdp does not order the
 * workers' sections before the main thread here: it keeps them, rightly.) */
static void test_known_sections_go(void **state)
{
    static const char *const detectors[] = { "wcp", "dc" };
    (void)state;
    stream s = workers_main_never_locks();
    for (unsigned i = 0; i < sizeof detectors / sizeof detectors[0]; i++) {
        rp_cs_limits limits = { 0, 0, 0, 0, 0, 0 };
        outcome o = run(detectors[i], &s, &limits, true);
        print_message("%s: %llu sections kept at the end, at most %llu at once\n",
                      detectors[i], (unsigned long long)o.sections,
                      (unsigned long long)o.peak);
        assert_true(o.peak < 64);
        assert_false(lost_something(&limits));
        assert_int_equal(o.n, 0);
        free(o.keys);
    }
    free(s.steps);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sdp_bounded_includes_unbounded),
        cmocka_unit_test(test_wdp_bounded_includes_unbounded),
        cmocka_unit_test(test_wcp_dc_bounded_include_unbounded),
        cmocka_unit_test(test_log_merges_repeats),
        cmocka_unit_test(test_log_stops_at_the_bound),
        cmocka_unit_test(test_long_section_stays_bounded),
        cmocka_unit_test(test_ended_threads_hold_nothing_back),
        cmocka_unit_test(test_known_sections_go),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
