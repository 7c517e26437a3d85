/* test_bintrace.c — binary recorded traces (racepred/core/rp_bintrace.h):
 * random event sequences survive an encode/decode round trip with their
 * site and thread tables; a small valid trace cut at every offset, bytes
 * flipped in it, and random garbage are rejected with an offset and a
 * message, never a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rp_bintrace.h"
#include "rp_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint8_t *data;
    size_t len, cap;
} bytes;

static void to_bytes(void *ctx, const uint8_t *data, size_t len)
{
    bytes *b = ctx;
    if (b->len + len > b->cap) {
        b->cap = (b->len + len) * 2;
        b->data = realloc(b->data, b->cap);
        assert_non_null(b->data);
    }
    memcpy(b->data + b->len, data, len);
    b->len += len;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* The locks a random stream holds, for releasing only held ones, as the
 * tool does. */
typedef struct {
    rp_tid_t tid;
    uint64_t obj;
    bool shared;
} held_lock;

typedef struct {
    held_lock locks[64];
    size_t n;
} held_set;

static void held_remove(held_set *h, size_t i)
{
    h->locks[i] = h->locks[--h->n];
}

/* Index of the lock of that kind `tid` holds (any lock when obj is 0), or
 * h->n. */
static size_t held_find(const held_set *h, rp_tid_t tid, uint64_t obj, bool shared)
{
    size_t i;
    for (i = 0; i < h->n; i++)
        if (h->locks[i].tid == tid && h->locks[i].shared == shared
            && (obj == 0 || h->locks[i].obj == obj))
            break;
    return i;
}

/* Makes ev follow the lock discipline the reader checks: a release names
 * a lock its thread holds (else it becomes an acquire), an exclusive
 * acquire takes the lock from whoever held it. */
static void follow_lock_discipline(held_set *h, rp_event *ev)
{
    bool shared = ev->kind == RP_EV_ACQUIRE_SHARED || ev->kind == RP_EV_RELEASE_SHARED;
    size_t i;

    if (ev->kind == RP_EV_RELEASE || ev->kind == RP_EV_RELEASE_SHARED) {
        i = held_find(h, ev->tid, 0, shared);
        if (i < h->n) {
            ev->obj = h->locks[i].obj;
            held_remove(h, i);
            return;
        }
        ev->kind = shared ? RP_EV_ACQUIRE_SHARED : RP_EV_ACQUIRE;
    }
    if (ev->kind == RP_EV_ACQUIRE) {
        for (i = 0; i < h->n; i++)
            if (h->locks[i].obj == ev->obj && !h->locks[i].shared)
                held_remove(h, i--);
    } else if (ev->kind != RP_EV_ACQUIRE_SHARED
               || held_find(h, ev->tid, ev->obj, true) < h->n) {
        return;
    }
    if (h->n < sizeof h->locks / sizeof h->locks[0])
        h->locks[h->n++] = (held_lock){ ev->tid, ev->obj, shared };
}

/* A random stream in the tool's shape: threads appear densely (a FORK
 * names the next one), any kind, sizes common and odd, any obj and site;
 * releases only of held locks; a thread joined (never the root) has no
 * later event. */
static rp_event *random_events(size_t n, uint32_t *n_threads)
{
    static const uint32_t sizes[] = { 0, 1, 2, 4, 8, 16, 32, 3, 4096, UINT32_MAX };
    rp_event *ev = calloc(n, sizeof *ev);
    bool *joined = calloc(n + 1, sizeof *joined);
    held_set held = { .n = 0 };
    *n_threads = 1;
    for (size_t i = 0; i < n; i++) {
        ev[i].id = i + 1;
        do
            ev[i].tid = (rp_tid_t)(rnd() % *n_threads);
        while (joined[ev[i].tid]);
        ev[i].kind = (uint8_t)(rnd() % RP_EV_KIND_COUNT);
        ev[i].size = sizes[rnd() % 10];
        ev[i].obj = rnd() % 4 == 0 ? rnd() : 0x4000000 + rnd() % 4096;
        ev[i].site = rnd() % 3 == 0 ? 0 : 0x108000 + rnd() % 512;
        if (ev[i].kind == RP_EV_FORK)
            ev[i].obj = (*n_threads)++;
        else if (ev[i].kind == RP_EV_JOIN)
            ev[i].obj = (ev[i].tid + 1) % *n_threads;
        if (ev[i].kind == RP_EV_JOIN && (ev[i].obj == 0 || joined[ev[i].obj]))
            ev[i].kind = RP_EV_READ;
        else if (ev[i].kind == RP_EV_JOIN)
            joined[ev[i].obj] = true;
        if (rp_event_is_access(&ev[i]) && ev[i].size > RP_BT_MAX_ACCESS_SIZE)
            ev[i].size = RP_BT_MAX_ACCESS_SIZE;
        follow_lock_discipline(&held, &ev[i]);
    }
    free(joined);
    return ev;
}

typedef struct {
    rp_bt_encoder *enc;
} site_ctx;

static void write_site(void *ctx, uint64_t site)
{
    char location[64];
    snprintf(location, sizeof location, "fn_%llx (file.c:%llu)",
             (unsigned long long)site, (unsigned long long)(site % 1000));
    rp_bt_encode_site(ctx, site, location);
}

static bytes encode(const rp_event *ev, size_t n, uint32_t n_threads)
{
    bytes b = { NULL, 0, 0 };
    rp_bt_encoder enc;
    rp_bt_encoder_init(&enc, to_bytes, &b);
    for (size_t i = 0; i < n; i++)
        rp_bt_encode_event(&enc, &ev[i]);
    rp_bt_encoder_sites(&enc, write_site, &enc);
    for (uint32_t t = 0; t < n_threads && t < enc.n_threads; t++)
        rp_bt_encode_thread(&enc, t, t == 0 ? "the root thread" : "created at main (x.c:1)");
    rp_bt_encoder_finish(&enc);
    rp_bt_encoder_free(&enc);
    return b;
}

static void test_round_trip(void **state)
{
    (void)state;
    for (int round = 0; round < 50; round++) {
        size_t n = (size_t)(rnd() % 5000);
        uint32_t n_threads;
        rp_event *ev = random_events(n, &n_threads);
        bytes b = encode(ev, n, n_threads);
        rp_bt_reader r;
        rp_event e;
        assert_true(rp_bt_is_binary(b.data, b.len));
        assert_true(rp_bt_reader_init(&r, b.data, b.len));
        for (size_t i = 0; i < n; i++) {
            assert_int_equal(rp_bt_next(&r, &e), RP_BT_EVENT);
            assert_int_equal(e.id, ev[i].id);
            assert_int_equal(e.kind, ev[i].kind);
            assert_int_equal(e.tid, ev[i].tid);
            assert_int_equal(e.size, ev[i].size);
            assert_int_equal(e.obj, ev[i].obj);
            assert_int_equal(e.site, ev[i].site);
        }
        assert_int_equal(rp_bt_next(&r, &e), RP_BT_END);
        for (size_t i = 0; i < n; i++) {
            char want[64];
            if (ev[i].site == 0)
                continue;
            snprintf(want, sizeof want, "fn_%llx (file.c:%llu)",
                     (unsigned long long)ev[i].site,
                     (unsigned long long)(ev[i].site % 1000));
            assert_string_equal(rp_bt_site_location(&r, ev[i].site), want);
        }
        if (n > 0)
            assert_string_equal(rp_bt_thread_description(&r, 0), "the root thread");
        rp_bt_reader_free(&r);
        free(b.data);
        free(ev);
    }
}

/* Reads a whole trace; true if it was accepted.  An error must carry an
 * offset inside the input and a message. */
static bool read_all(const uint8_t *data, size_t len)
{
    rp_bt_reader r;
    rp_event e;
    rp_bt_status s = RP_BT_ERROR;
    if (rp_bt_reader_init(&r, data, len))
        while ((s = rp_bt_next(&r, &e)) == RP_BT_EVENT)
            ;
    if (s == RP_BT_ERROR) {
        assert_true(r.err_offset <= len);
        assert_true(r.message[0] != '\0');
    }
    rp_bt_reader_free(&r);
    return s == RP_BT_END;
}

static void test_truncated_at_every_offset(void **state)
{
    uint32_t n_threads;
    rp_event *ev = random_events(200, &n_threads);
    bytes b = encode(ev, 200, n_threads);
    (void)state;
    assert_true(read_all(b.data, b.len));
    for (size_t cut = 0; cut < b.len; cut++) {
        uint8_t *copy = malloc(cut + 1);   /* exact size: overreads show in valgrind/asan */
        memcpy(copy, b.data, cut);
        assert_false(read_all(copy, cut));
        free(copy);
    }
    free(b.data);
    free(ev);
}

static void test_flipped_bytes_never_crash(void **state)
{
    uint32_t n_threads;
    rp_event *ev = random_events(300, &n_threads);
    bytes b = encode(ev, 300, n_threads);
    (void)state;
    for (int i = 0; i < 20000; i++) {
        uint8_t *copy = malloc(b.len);
        memcpy(copy, b.data, b.len);
        for (int k = 0; k < 1 + (int)(rnd() % 4); k++)
            copy[rnd() % b.len] ^= (uint8_t)(1u << (rnd() % 8));
        read_all(copy, b.len);
        free(copy);
    }
    free(b.data);
    free(ev);
}

static void test_garbage(void **state)
{
    (void)state;
    for (int i = 0; i < 20000; i++) {
        size_t len = (size_t)(rnd() % 300);
        uint8_t *g = malloc(len + RP_BT_MAGIC_LEN + 1);
        size_t off = i % 2 == 0 ? RP_BT_MAGIC_LEN + 1 : 0;
        memcpy(g, RP_BT_MAGIC "\x01", RP_BT_MAGIC_LEN + 1);
        for (size_t k = 0; k < len; k++)
            g[off + k] = (uint8_t)rnd();
        assert_false(read_all(g, off + len));
        free(g);
    }
}

static void test_specific_errors(void **state)
{
    static const uint8_t overlong[] = "\x89RPTRACE\x01\x10\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01";
    static const uint8_t huge_string[] = "\x89RPTRACE\x01\x0f\x01\xff\xff\xff\xff\x0f";
    static const uint8_t new_thread_2[] = "\x89RPTRACE\x01\x10\x02\x00\x00";
    static const uint8_t bad_version[] = "\x89RPTRACE\x07";
    rp_bt_reader r;
    rp_event e;
    (void)state;
    assert_true(rp_bt_reader_init(&r, overlong, sizeof overlong - 1));
    assert_int_equal(rp_bt_next(&r, &e), RP_BT_ERROR);
    assert_non_null(strstr(r.message, "64 bits"));
    rp_bt_reader_free(&r);
    assert_true(rp_bt_reader_init(&r, huge_string, sizeof huge_string - 1));
    assert_int_equal(rp_bt_next(&r, &e), RP_BT_ERROR);
    assert_non_null(strstr(r.message, "runs past the end"));
    assert_int_equal(r.err_offset, 11);
    rp_bt_reader_free(&r);
    assert_true(rp_bt_reader_init(&r, new_thread_2, sizeof new_thread_2 - 1));
    assert_int_equal(rp_bt_next(&r, &e), RP_BT_ERROR);
    assert_string_equal(r.message, "thread 2 appears before thread 0");
    rp_bt_reader_free(&r);
    assert_false(rp_bt_reader_init(&r, bad_version, sizeof bad_version - 1));
    assert_string_equal(r.message, "unsupported version 7");
    rp_bt_reader_free(&r);
}

/* Encodes ev and reads it back: NULL if the reader accepted it, else its
 * message (static), with *offset set. */
static const char *read_back(const rp_event *ev, size_t n, size_t *offset)
{
    static char message[RP_BT_MESSAGE_MAX];
    bytes b = encode(ev, n, 2);
    rp_bt_reader r;
    rp_event e;
    rp_bt_status s;
    assert_true(rp_bt_reader_init(&r, b.data, b.len));
    while ((s = rp_bt_next(&r, &e)) == RP_BT_EVENT)
        ;
    *offset = r.err_offset;
    snprintf(message, sizeof message, "%s", r.message);
    rp_bt_reader_free(&r);
    free(b.data);
    return s == RP_BT_END ? NULL : message;
}

#define EV(kind, tid, obj) { 0, (obj), 0, (tid), 0, (kind) }

/* A release by a thread that does not hold the lock is refused, as the
 * text reader refuses it; a lock taken over by another thread's acquire
 * (the tool missed an unlock) can only be released by the new holder. */
static void test_unheld_release_rejected(void **state)
{
    const rp_event unheld[] = { EV(RP_EV_WRITE, 0, 8), EV(RP_EV_RELEASE, 0, 0x30) };
    const rp_event other[] = { EV(RP_EV_ACQUIRE, 0, 0x30), EV(RP_EV_RELEASE, 1, 0x30) };
    const rp_event twice[] = { EV(RP_EV_ACQUIRE, 0, 0x30), EV(RP_EV_RELEASE, 0, 0x30),
                               EV(RP_EV_RELEASE, 0, 0x30) };
    const rp_event taken[] = { EV(RP_EV_ACQUIRE, 0, 0x30), EV(RP_EV_ACQUIRE, 1, 0x30),
                               EV(RP_EV_RELEASE, 1, 0x30), EV(RP_EV_RELEASE, 0, 0x30) };
    const rp_event reader[] = { EV(RP_EV_ACQUIRE_SHARED, 0, 0x30),
                                EV(RP_EV_ACQUIRE_SHARED, 1, 0x30),
                                EV(RP_EV_RELEASE_SHARED, 1, 0x30),
                                EV(RP_EV_RELEASE_SHARED, 0, 0x30),
                                EV(RP_EV_RELEASE_SHARED, 0, 0x30) };
    const rp_event mixed[] = { EV(RP_EV_ACQUIRE_SHARED, 0, 0x30), EV(RP_EV_RELEASE, 0, 0x30) };
    size_t off;
    (void)state;
    assert_null(read_back(unheld, 1, &off));
    assert_string_equal(read_back(unheld, 2, &off),
                        "release of lock 0x30, which thread 0 does not hold");
    /* The release's tag: after the magic, the version and the 4-byte write. */
    assert_int_equal(off, RP_BT_MAGIC_LEN + 1 + 4);
    assert_string_equal(read_back(other, 2, &off),
                        "release of lock 0x30, which thread 1 does not hold");
    assert_null(read_back(twice, 2, &off));
    assert_non_null(read_back(twice, 3, &off));
    assert_null(read_back(taken, 3, &off));
    assert_string_equal(read_back(taken, 4, &off),
                        "release of lock 0x30, which thread 0 does not hold");
    assert_null(read_back(reader, 4, &off));
    assert_string_equal(read_back(reader, 5, &off),
                        "read-side release of lock 0x30, which thread 0 does not hold");
    assert_non_null(read_back(mixed, 2, &off));
}

/* A joined thread has no later event and is joined once, as the text
 * reader says: the detectors free its clocks at the join. */
static void test_events_after_join_rejected(void **state)
{
    const rp_event after[] = { EV(RP_EV_FORK, 0, 1), EV(RP_EV_WRITE, 1, 8),
                               EV(RP_EV_JOIN, 0, 1), EV(RP_EV_WRITE, 1, 8) };
    const rp_event twice[] = { EV(RP_EV_FORK, 0, 1), EV(RP_EV_FORK, 0, 2),
                               EV(RP_EV_JOIN, 2, 1), EV(RP_EV_JOIN, 0, 1) };
    size_t off;
    (void)state;
    assert_null(read_back(after, 3, &off));
    assert_string_equal(read_back(after, 4, &off), "event of thread 1 after it was joined");
    assert_null(read_back(twice, 3, &off));
    assert_string_equal(read_back(twice, 4, &off), "thread 1 joined twice");
}

/* Fuzzing (tests/fuzz): a 4 GiB access made every detector allocate per
 * byte; the reader now rejects accesses over RP_BT_MAX_ACCESS_SIZE. */
static void test_huge_access_rejected(void **state)
{
    static const uint8_t huge_write[] = "\x89RPTRACE\x01\xf1\x00\xff\xff\xff\xff\x0f\x20\x02";
    rp_bt_reader r;
    rp_event e;
    (void)state;
    assert_true(rp_bt_reader_init(&r, huge_write, sizeof huge_write - 1));
    assert_int_equal(rp_bt_next(&r, &e), RP_BT_ERROR);
    assert_int_equal(r.err_offset, 9);
    assert_string_equal(r.message, "access of 4294967295 bytes (at most 65536)");
    rp_bt_reader_free(&r);
}

static unsigned huge_forget_races;

static void count_race(void *ctx, const rp_race *race)
{
    (void)ctx;
    assert_int_equal(race->first.id, 1);
    assert_int_equal(race->second.id, 2);
    huge_forget_races++;
}

/* A forget of 4 GiB - 1 (a legal event: a large heap block) made the
 * offline detectors' conflict index (rp_offline.c) allocate a list per
 * byte of it: out of memory.  Now its cost does not depend on its size. */
static void test_huge_forget_offline(void **state)
{
    rp_detector_env env = { .report = count_race, .all_pairs = true };
    rp_engine *eng = rp_engine_create("syncp,m2,osr", &env, NULL);
    rp_event ev[] = {
        { 0, 0x1010, 1, 0, 8, RP_EV_WRITE },
        { 0, 0x1010, 2, 1, 8, RP_EV_WRITE },
        { 0, 0x1000, 0, 0, UINT32_MAX, RP_EV_FORGET },
        { 0, 0x1010, 3, 0, 8, RP_EV_WRITE },
    };
    (void)state;
    assert_non_null(eng);
    huge_forget_races = 0;
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++)
        rp_engine_event(eng, &ev[i]);
    rp_engine_finish(eng);
    rp_engine_destroy(eng);
    assert_int_equal(huge_forget_races, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_truncated_at_every_offset),
        cmocka_unit_test(test_flipped_bytes_never_crash),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_specific_errors),
        cmocka_unit_test(test_unheld_release_rejected),
        cmocka_unit_test(test_events_after_join_rejected),
        cmocka_unit_test(test_huge_access_rejected),
        cmocka_unit_test(test_huge_forget_offline),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
