/* test_repeats.c — the engine's filter of repeated accesses (rp_repeats.h).
 *
 * First what it drops: a repeat of the same thread in the same span, and
 * nothing once another thread touched the granule, the thread synchronised,
 * the memory was forgotten, or the access is not covered (a write after a
 * read, other bytes, two granules).
 *
 * Then the claim that makes dropping safe, differentially, on random runs
 * made of bursts of one thread on few granules (so that repeats are
 * common): see check_detector.  Accesses are of 1, 2, 4 or 8 bytes, a quarter of
 * them unaligned (some over both granules); a report's byte range is the bytes
 * both accesses share, one run of bytes either way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hb_harness.h"
#include "rp_detector.h"
#include "rp_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 64
#define RANDOM_RUNS 3000
#define BASE 0x1000u

/* ---- what it drops -------------------------------------------------------- */

static bool feed(rp_repeats *r, rp_event e)
{
    if ((e.kind == RP_EV_READ || e.kind == RP_EV_WRITE)
        && repeats_is_repeat(r, e.tid, e.obj, e.size, e.kind == RP_EV_WRITE))
        return true;
    if (e.kind == RP_EV_SYNC_RECV && repeats_recv_is_repeat(r, &e))
        return true;
    repeats_note(r, &e);
    return false;
}

static void test_drops_only_covered_repeats(void **state)
{
    (void)state;
    rp_repeats *r = repeats_create();
    assert_false(feed(r, harness_event(RP_EV_READ, 0, BASE, 4)));
    assert_true(feed(r, harness_event(RP_EV_READ, 0, BASE, 4)));
    assert_true(feed(r, harness_event(RP_EV_READ, 0, BASE + 1, 2)));
    assert_false(feed(r, harness_event(RP_EV_READ, 0, BASE + 4, 4)));    /* other bytes */
    assert_false(feed(r, harness_event(RP_EV_WRITE, 0, BASE, 4)));       /* stronger */
    assert_true(feed(r, harness_event(RP_EV_WRITE, 0, BASE, 2)));
    assert_true(feed(r, harness_event(RP_EV_READ, 0, BASE, 8)));         /* bytes 0-7 read */
    assert_false(feed(r, harness_event(RP_EV_READ, 0, BASE + 6, 4)));    /* two granules */
    assert_true(feed(r, harness_event(RP_EV_READ, 0, BASE + 6, 4)));     /* both parts read */
    assert_false(feed(r, harness_event(RP_EV_READ, 0, BASE + 7, 4)));    /* byte 10 was not */
    assert_true(feed(r, harness_event(RP_EV_READ, 0, BASE + 5, 6)));
    assert_false(feed(r, harness_event(RP_EV_WRITE, 0, BASE + 7, 2)));   /* read, not written */
    assert_true(feed(r, harness_event(RP_EV_WRITE, 0, BASE + 7, 2)));
    assert_false(feed(r, harness_event(RP_EV_READ, 0, BASE + 12, 8)));   /* over 3 granules */
    assert_int_equal(r->dropped, 7);
    repeats_destroy(r);
}

/* Ranges (a memcpy's, a read()'s: rp_libc.h) repeat when every granule's
 * part does, whatever their length. */
static void test_ranges_repeat_granule_by_granule(void **state)
{
    (void)state;
    rp_repeats *r = repeats_create();
    assert_false(feed(r, harness_event(RP_EV_WRITE, 0, BASE + 32, 24)));
    assert_true(feed(r, harness_event(RP_EV_READ, 0, BASE + 34, 20)));
    assert_true(feed(r, harness_event(RP_EV_WRITE, 0, BASE + 32, 24)));
    assert_false(feed(r, harness_event(RP_EV_READ, 0, BASE + 30, 30)));  /* bytes 30, 31 */
    assert_true(feed(r, harness_event(RP_EV_READ, 0, BASE + 30, 30)));
    assert_false(feed(r, harness_event(RP_EV_WRITE, 0, BASE + 30, 26))); /* 30, 31 read only */
    assert_false(feed(r, harness_event(RP_EV_READ, 1, BASE + 32, 24)));  /* other thread */
    assert_false(feed(r, harness_event(RP_EV_READ, 0, BASE + 40, 8)));   /* thread 1 passed */
    assert_int_equal(r->dropped, 3);
    repeats_destroy(r);
}

/* The shadow's cache holds RP_SHADOW_CACHE_ENTRIES chunks, direct-mapped:
 * granules whose chunks share an entry evict each other, and a repeat
 * must be found through the map all the same (the cached-only test may
 * miss it, never call a non-repeat one). */
static void test_repeats_found_past_the_shadow_cache(void **state)
{
    (void)state;
    rp_repeats *r = repeats_create();
    uint64_t a = BASE, b = BASE + RP_SHADOW_CACHE_ENTRIES * RP_SHADOW_CHUNK_BYTES;
    assert_false(feed(r, harness_event(RP_EV_WRITE, 0, a, 8)));
    assert_false(feed(r, harness_event(RP_EV_WRITE, 0, b, 8)));          /* a's cache entry */
    bool answered;
    repeats_set_current(r, 0);
    assert_null(repeats_slot_cached(r, a, 8, true, &answered));
    assert_false(answered);                                              /* evicted */
    assert_true(feed(r, harness_event(RP_EV_READ, 0, a, 4)));
    assert_non_null(repeats_slot_cached(r, a, 8, true, &answered));      /* refilled */
    assert_true(answered);
    assert_true(feed(r, harness_event(RP_EV_WRITE, 0, b, 8)));
    repeats_set_current(r, 1);
    assert_null(repeats_slot_cached(r, b, 8, true, &answered));          /* thread 1: none */
    assert_true(answered);
    repeats_destroy(r);
}

/* The front end's test (repeats_slot_cached, the running thread's stamp
 * kept in one field) against the engine's (repeats_slot_of, the table),
 * on random runs of three threads that switch at random: the same slot
 * whenever the granule's chunk is cached, which is when the test says it
 * answered (the front end does not ask again then), through new spans, stamps that
 * wrap (a small counter start makes them wrap within a run), threads
 * that start after the switch to them, and forgets. */
static void test_current_stamp_follows_the_table(void **state)
{
    (void)state;
    srand(7);
    for (int run = 0; run < 200; run++) {
        rp_repeats *r = repeats_create();
        r->last_stamp = (uint16_t)(RP_REPEATS_REWRITTEN - 1 - (uint32_t)(rand() % 64));
        rp_tid_t current = (rp_tid_t)(rand() % 3);
        repeats_set_current(r, current);
        for (int step = 0; step < 2000; step++) {
            int what = rand() % 100;
            uint64_t addr = BASE + (uint64_t)(rand() % 256);
            uint32_t size = 1u << (rand() % 4);
            bool is_write = rand() % 2 == 0;
            rp_tid_t tid = rand() % 4 == 0 ? (rp_tid_t)(rand() % 3) : current;
            if (what < 5) {
                current = (rp_tid_t)(rand() % 3);
                repeats_set_current(r, current);
            } else if (what < 12) {
                feed(r, harness_event(RP_EV_ACQUIRE, tid, 99, 0));
            } else if (what < 14) {
                repeats_forget(r, addr, size);
            } else {
                feed(r, harness_event(is_write ? RP_EV_WRITE : RP_EV_READ, tid, addr, size));
            }
            uint64_t probe = BASE + (uint64_t)(rand() % 256);
            uint32_t probe_size = 1u << (rand() % 4);
            bool answered;
            rp_repeat_slot *cached = repeats_slot_cached(r, probe, probe_size, is_write,
                                                         &answered);
            rp_repeat_slot *found = repeats_slot_of(r, current, probe, probe_size, is_write);
            bool in_cache = repeats_within_granule(probe, probe_size)
                            && repeats_cached_slot(r, probe >> RP_SHADOW_GRANULE_BITS) != NULL;
            assert_true(answered == in_cache);
            if (cached != NULL || repeats_cached_slot(r, probe >> RP_SHADOW_GRANULE_BITS) != NULL)
                assert_ptr_equal(cached, found);
        }
        repeats_destroy(r);
    }
}

static void test_other_thread_sync_and_forget_end_repeats(void **state)
{
    (void)state;
    rp_repeats *r = repeats_create();
    assert_false(feed(r, harness_event(RP_EV_WRITE, 0, BASE, 8)));
    assert_false(feed(r, harness_event(RP_EV_READ, 1, BASE, 1)));
    assert_false(feed(r, harness_event(RP_EV_READ, 0, BASE, 1)));        /* thread 1 was there */
    assert_true(feed(r, harness_event(RP_EV_READ, 0, BASE, 1)));
    assert_false(feed(r, harness_event(RP_EV_ACQUIRE, 0, 99, 0)));
    assert_false(feed(r, harness_event(RP_EV_READ, 0, BASE, 1)));        /* new span */
    assert_false(feed(r, harness_event(RP_EV_FORGET, 0, BASE, 8)));
    assert_false(feed(r, harness_event(RP_EV_READ, 0, BASE, 1)));        /* fresh memory */
    rp_event fork = harness_event(RP_EV_FORK, 1, 0, 0);
    assert_false(feed(r, fork));
    assert_false(feed(r, harness_event(RP_EV_READ, 0, BASE, 1)));        /* the child's span moved */
    repeats_destroy(r);
}

/* When the 15-bit stamp counter wraps, a stamp handed out again must not
 * find the granules recorded under its first use: thread 0 writes under
 * stamp 1, thread 1 takes every other stamp until the counter wraps and
 * gives it 1 again; its write of thread 0's granule is no repeat.  Later
 * repeats are dropped as before. */
static void test_receive_repeats_until_a_send(void **state)
{
    (void)state;
    rp_repeats *r = repeats_create();
    assert_false(feed(r, harness_event(RP_EV_SYNC_RECV, 0, 200, 0)));
    assert_true(feed(r, harness_event(RP_EV_SYNC_RECV, 0, 200, 0)));
    assert_false(feed(r, harness_event(RP_EV_READ, 0, BASE, 4)));
    assert_true(feed(r, harness_event(RP_EV_SYNC_RECV, 0, 200, 0)));
    assert_true(feed(r, harness_event(RP_EV_READ, 0, BASE, 4)));         /* span goes on */
    assert_false(feed(r, harness_event(RP_EV_SYNC_RECV, 1, 200, 0)));   /* first of t1 */
    assert_false(feed(r, harness_event(RP_EV_SYNC_RECV, 0, 208, 0)));   /* other object */
    assert_true(feed(r, harness_event(RP_EV_SYNC_RECV, 0, 200, 0)));    /* both kept */
    assert_false(feed(r, harness_event(RP_EV_SYNC_SEND, 1, 200, 0)));
    assert_false(feed(r, harness_event(RP_EV_SYNC_RECV, 0, 200, 0)));   /* a send since */
    assert_true(feed(r, harness_event(RP_EV_SYNC_RECV, 0, 200, 0)));
    assert_true(feed(r, harness_event(RP_EV_SYNC_RECV, 0, 208, 0)));    /* no send on 208 */
    assert_false(feed(r, harness_event(RP_EV_SYNC_SEND, 0, 200, 0)));   /* its own send */
    assert_false(feed(r, harness_event(RP_EV_SYNC_RECV, 0, 200, 0)));
    /* Objects that share a way evict each other: passed on, never wrong. */
    assert_true(feed(r, harness_event(RP_EV_SYNC_RECV, 0, 200, 0)));
    uint64_t alias = 200 + 8 * RP_REPEATS_RECV_WAYS;
    assert_false(feed(r, harness_event(RP_EV_SYNC_RECV, 0, alias, 0)));
    assert_false(feed(r, harness_event(RP_EV_SYNC_RECV, 0, 200, 0)));
    assert_int_equal(r->recvs_dropped, 6);
    repeats_destroy(r);
}

static void test_stamps_that_wrap_alias_nothing(void **state)
{
    (void)state;
    rp_repeats *r = repeats_create();
    assert_false(feed(r, harness_event(RP_EV_WRITE, 0, BASE, 8)));
    for (uint32_t i = 0; i < RP_REPEATS_REWRITTEN - 1; i++) {
        feed(r, harness_event(RP_EV_ACQUIRE, 1, 99, 0));
        assert_false(feed(r, harness_event(RP_EV_WRITE, 1, BASE + 64, 8)));
    }
    assert_int_equal(r->last_stamp, 1);
    assert_false(feed(r, harness_event(RP_EV_WRITE, 1, BASE, 8)));
    assert_true(feed(r, harness_event(RP_EV_WRITE, 1, BASE, 8)));
    assert_false(feed(r, harness_event(RP_EV_WRITE, 0, BASE, 8)));      /* stamp 2 */
    assert_true(feed(r, harness_event(RP_EV_READ, 0, BASE, 4)));
    repeats_destroy(r);
}

/* ---- the parts of a range accesses reached ----------------------------------- */

#define FAR (16 * RP_SHADOW_CHUNK_BYTES)

typedef struct parts {
    uint64_t addr[8], size[8];
    unsigned n;
} parts;

static void collect_part(void *ctx, uint64_t addr, uint64_t size)
{
    parts *p = ctx;
    assert_true(p->n < 8);
    p->addr[p->n] = addr;
    p->size[p->n++] = size;
}

static parts seen_parts(const rp_repeats *r, uint64_t addr, uint64_t size)
{
    parts p = { .n = 0 };
    repeats_seen_parts(r, addr, size, collect_part, &p);
    return p;
}

/* Granules of chunks FAR+1 and FAR+3 are accessed: the range [FAR + 10,
 * FAR + 4 chunks - 10) is seen in those granules only, clipped to the
 * range, neighbours one run.  A wrap of the stamps empties the shadow but
 * not what was seen: then whole chunks; a forget that covers a chunk
 * whole makes it unseen, one that covers part of it not.  A forget of
 * part of a granule leaves it seen for a range of its other bytes only. */
static void test_seen_parts_follow_accesses_wraps_and_forgets(void **state)
{
    (void)state;
    rp_repeats *r = repeats_create();
    assert_int_equal(seen_parts(r, FAR, 4 * RP_SHADOW_CHUNK_BYTES).n, 0);
    feed(r, harness_event(RP_EV_WRITE, 0, FAR + RP_SHADOW_CHUNK_BYTES + 100, 4));
    feed(r, harness_event(RP_EV_WRITE, 1, FAR + RP_SHADOW_CHUNK_BYTES + 104, 8));
    feed(r, harness_event(RP_EV_READ, 1, FAR + RP_SHADOW_CHUNK_BYTES + 300, 1));
    feed(r, harness_event(RP_EV_READ, 1, FAR + 4 * RP_SHADOW_CHUNK_BYTES - 12, 1));
    parts p = seen_parts(r, FAR + 10, 4 * RP_SHADOW_CHUNK_BYTES - 20);
    assert_int_equal(p.n, 3);
    assert_int_equal(p.addr[0], FAR + RP_SHADOW_CHUNK_BYTES + 96);
    assert_int_equal(p.size[0], 16);
    assert_int_equal(p.addr[1], FAR + RP_SHADOW_CHUNK_BYTES + 296);
    assert_int_equal(p.size[1], 8);
    assert_int_equal(p.addr[2], FAR + 4 * RP_SHADOW_CHUNK_BYTES - 16);
    assert_int_equal(p.size[2], 6);
    feed(r, harness_event(RP_EV_FORGET, 0, FAR + RP_SHADOW_CHUNK_BYTES + 296, 5));
    p = seen_parts(r, FAR + RP_SHADOW_CHUNK_BYTES + 200, 103);
    assert_int_equal(p.n, 0);
    feed(r, harness_event(RP_EV_READ, 1, FAR + RP_SHADOW_CHUNK_BYTES + 302, 1));
    p = seen_parts(r, FAR + RP_SHADOW_CHUNK_BYTES + 200, 103);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.addr[0], FAR + RP_SHADOW_CHUNK_BYTES + 296);
    assert_int_equal(p.size[0], 7);

    feed(r, harness_event(RP_EV_READ, 1, FAR + 3 * RP_SHADOW_CHUNK_BYTES, 1));
    for (uint32_t i = 0; i < RP_REPEATS_REWRITTEN; i++) {
        feed(r, harness_event(RP_EV_ACQUIRE, 1, 99, 0));
        feed(r, harness_event(RP_EV_WRITE, 1, BASE, 8));
    }
    assert_true(r->last_stamp < 10);
    assert_null(shadow_find(&r->shadow, (FAR + RP_SHADOW_CHUNK_BYTES) >> RP_SHADOW_GRANULE_BITS));
    p = seen_parts(r, FAR, 3 * RP_SHADOW_CHUNK_BYTES + 1);
    assert_int_equal(p.n, 2);
    assert_int_equal(p.addr[0], FAR + RP_SHADOW_CHUNK_BYTES);
    assert_int_equal(p.size[0], RP_SHADOW_CHUNK_BYTES);
    assert_int_equal(p.addr[1], FAR + 3 * RP_SHADOW_CHUNK_BYTES);
    assert_int_equal(p.size[1], 1);

    feed(r, harness_event(RP_EV_FORGET, 0, FAR + RP_SHADOW_CHUNK_BYTES - 8, RP_SHADOW_CHUNK_BYTES + 16));
    feed(r, harness_event(RP_EV_FORGET, 0, FAR + 3 * RP_SHADOW_CHUNK_BYTES + 8, RP_SHADOW_CHUNK_BYTES - 16));
    p = seen_parts(r, FAR, 4 * RP_SHADOW_CHUNK_BYTES);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.addr[0], FAR + 3 * RP_SHADOW_CHUNK_BYTES);
    assert_int_equal(p.size[0], RP_SHADOW_CHUNK_BYTES);
    /* The end of the address space: no overflow. */
    feed(r, harness_event(RP_EV_READ, 0, UINT64_MAX - 7, 8));
    p = seen_parts(r, UINT64_MAX - 2 * RP_SHADOW_CHUNK_BYTES + 1, 2 * RP_SHADOW_CHUNK_BYTES);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.addr[0], UINT64_MAX - 7);
    assert_int_equal(p.size[0], 8);
    repeats_destroy(r);
}

/* ---- random runs ------------------------------------------------------------ */

typedef struct run {
    rp_event ev[MAX_EVENTS];
    unsigned n;
} run;

static void add(run *r, rp_event_kind kind, rp_tid_t tid, uint64_t obj, uint32_t size)
{
    if (r->n < MAX_EVENTS)
        r->ev[r->n++] = harness_event(kind, tid, obj, size);
}

/* One burst of thread tid: accesses on two granules, sometimes a lock
 * taken around them or a send/receive before. */
static void add_burst(run *r, rp_tid_t tid, bool held[][2])
{
    static const uint32_t sizes[] = { 1, 2, 4, 8 };
    unsigned lock = rnd(2);
    bool take = rnd(3) == 0 && !held[tid][lock];
    if (take) {
        add(r, RP_EV_ACQUIRE, tid, 100 + lock, 0);
        held[tid][lock] = true;
    }
    /* Receives more often than sends, on two objects, so that some repeat. */
    if (rnd(4) == 0)
        add(r, rnd(3) == 0 ? RP_EV_SYNC_SEND : RP_EV_SYNC_RECV, tid, 200 + 8 * rnd(2), 0);
    for (unsigned i = rnd(6) + 1; i > 0; i--) {
        uint32_t size = sizes[rnd(4)];
        /* One access in four anywhere in the two granules, unaligned. */
        uint64_t addr = rnd(4) == 0 ? BASE + rnd(17 - size)
                                    : BASE + 8 * rnd(2) + size * rnd(8 / size);
        /* One in eight a range over both (a libc function's). */
        if (rnd(8) == 0) {
            size = 9 + rnd(8);
            addr = BASE + rnd(17 - size);
        }
        add(r, rnd(3) == 0 ? RP_EV_WRITE : RP_EV_READ, tid, addr, size);
    }
    if (rnd(8) == 0)
        add(r, RP_EV_FORGET, tid, BASE + 8 * rnd(2), 8);
    if (take) {
        add(r, RP_EV_RELEASE, tid, 100 + lock, 0);
        held[tid][lock] = false;
    }
}

/* Locks are taken by one thread at a time because each burst releases
 * what it took. */
static void random_run(run *r)
{
    unsigned threads = 2 + rnd(2);
    bool held[3][2] = { { false } };
    r->n = 0;
    for (rp_tid_t t = 1; t < threads; t++)
        add(r, RP_EV_FORK, 0, t, 0);
    while (r->n < MAX_EVENTS - 12)
        add_burst(r, rnd(threads), held);
}

/* Racy bytes with their pairs of threads: bit (byte * 3 + pair). */
typedef struct racy {
    uint64_t bits[2];
} racy;

static unsigned pair_index(rp_tid_t a, rp_tid_t b)
{
    return a + b - 1;      /* {0,1} → 0, {0,2} → 1, {1,2} → 2 */
}

static void collect(void *ctx, const rp_race *race)
{
    racy *out = ctx;
    for (uint64_t b = race->addr; b < race->addr + race->size; b++) {
        unsigned bit = (unsigned)(b - BASE) * 3 + pair_index(race->first.tid, race->second.tid);
        assert_true(bit < 128);
        out->bits[bit / 64] |= (uint64_t)1 << (bit % 64);
    }
}

/* Receives the filter dropped, over all runs. */
static uint64_t recvs_dropped;

static racy detect(const char *detector, const run *r, bool all_pairs, bool skip_repeats)
{
    racy out = { { 0, 0 } };
    rp_detector_env env = { .report = collect, .report_ctx = &out, .all_pairs = all_pairs,
                            .window = 0, .skip_repeats = skip_repeats };
    rp_engine *eng = rp_engine_create(detector, &env, NULL);
    assert_non_null(eng);
    for (unsigned i = 0; i < r->n; i++) {
        rp_event e = r->ev[i];
        rp_engine_event(eng, &e);
    }
    rp_engine_finish(eng);
    if (eng->repeats != NULL)
        recvs_dropped += eng->repeats->recvs_dropped;
    rp_engine_destroy(eng);
    return out;
}

static bool subset(const racy *a, const racy *b)
{
    return (a->bits[0] & ~b->bits[0]) == 0 && (a->bits[1] & ~b->bits[1]) == 0;
}

static void print_run(const char *detector, const run *r, const char *what)
{
    fprintf(stderr, "%s with the filter: %s\n", detector, what);
    for (unsigned i = 0; i < r->n; i++)
        fprintf(stderr, "  t%u %s 0x%llx %u\n", r->ev[i].tid,
                rp_event_kind_name((rp_event_kind)r->ev[i].kind),
                (unsigned long long)r->ev[i].obj, r->ev[i].size);
}

/* Location mode with the filter reports every racy byte and pair of
 * threads that it reports without, and nothing that is not a race of the
 * relation (all-pairs mode, checked exactly elsewhere, is the reference).
 * For relations whose clock moves only at synchronisation (`exact`), the
 * two location modes agree exactly; a relation whose clock grows at an
 * access (WCP, DC, WDC: rule (a)) may keep a cell that the dropped repeat
 * would have evicted, and so report more real races. */
static void check_detector(const char *detector, bool exact)
{
    run r;
    unsigned racy_runs = 0;
    rng_state = 0x9E3779B97F4A7C15ull;
    for (unsigned i = 0; i < RANDOM_RUNS; i++) {
        random_run(&r);
        racy plain = detect(detector, &r, false, false);
        racy filtered = detect(detector, &r, false, true);
        racy all = detect(detector, &r, true, false);
        if (!subset(&plain, &filtered)) {
            print_run(detector, &r, "a racy byte is missing");
            fail();
        }
        if (!subset(&filtered, &all) || (exact && !subset(&filtered, &plain))) {
            print_run(detector, &r, "a racy byte too many");
            fail();
        }
        racy_runs += plain.bits[0] != 0 || plain.bits[1] != 0;
    }
    /* The runs must exercise races and repeated receives, or the
     * comparison proves nothing. */
    assert_true(racy_runs > RANDOM_RUNS / 4);
    assert_true(recvs_dropped > RANDOM_RUNS / 4);
}

static void test_filter_keeps_racy_bytes_hb(void **state)
{
    (void)state;
    check_detector("hb", true);
}

static void test_filter_keeps_racy_bytes_wcp(void **state)
{
    (void)state;
    check_detector("wcp", false);
}

static void test_filter_keeps_racy_bytes_dc(void **state)
{
    (void)state;
    check_detector("dc", false);
}

static void test_filter_keeps_racy_bytes_wdc(void **state)
{
    (void)state;
    check_detector("wdc", false);
}

static void test_filter_keeps_racy_bytes_lockset(void **state)
{
    (void)state;
    check_detector("lockset", true);
}

/* The engine drops repeats only when every detector allows it. */
static void test_engine_filters_only_repeat_safe_sets(void **state)
{
    (void)state;
    run r;
    rng_state = 7;
    random_run(&r);
    const char *lists[] = { "hb", "hb,wcp", "shb", "hb,shb" };
    const bool filtered[] = { true, true, false, false };
    for (unsigned i = 0; i < 4; i++) {
        racy out = { { 0, 0 } };
        rp_detector_env env = { .report = collect, .report_ctx = &out, .skip_repeats = true };
        rp_engine *eng = rp_engine_create(lists[i], &env, NULL);
        for (unsigned k = 0; k < r.n; k++) {
            rp_event e = r.ev[k];
            rp_engine_event(eng, &e);
        }
        assert_int_equal(rp_engine_repeats_dropped(eng) > 0, filtered[i]);
        rp_engine_finish(eng);
        rp_engine_destroy(eng);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_drops_only_covered_repeats),
        cmocka_unit_test(test_ranges_repeat_granule_by_granule),
        cmocka_unit_test(test_repeats_found_past_the_shadow_cache),
        cmocka_unit_test(test_current_stamp_follows_the_table),
        cmocka_unit_test(test_other_thread_sync_and_forget_end_repeats),
        cmocka_unit_test(test_receive_repeats_until_a_send),
        cmocka_unit_test(test_stamps_that_wrap_alias_nothing),
        cmocka_unit_test(test_seen_parts_follow_accesses_wraps_and_forgets),
        cmocka_unit_test(test_filter_keeps_racy_bytes_hb),
        cmocka_unit_test(test_filter_keeps_racy_bytes_wcp),
        cmocka_unit_test(test_filter_keeps_racy_bytes_dc),
        cmocka_unit_test(test_filter_keeps_racy_bytes_wdc),
        cmocka_unit_test(test_filter_keeps_racy_bytes_lockset),
        cmocka_unit_test(test_engine_filters_only_repeat_safe_sets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
