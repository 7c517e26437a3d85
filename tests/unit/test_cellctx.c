/* test_cellctx.c — interned contexts of race-pair cells
 * (racepred/core/rp_cellctx.h), against a plain model: every context
 * number with its key, base and holders. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rp_cellctx.h"

#include <stdlib.h>
#include <string.h>

#define MODEL_MAX 4096u
#define KEYS 24u

typedef struct model_ctx {
    rp_cellctx_key key;
    uint64_t base;
    uint32_t holders;
} model_ctx;

typedef struct model {
    model_ctx ctx[MODEL_MAX];
    uint32_t live;
} model;

static uint32_t rnd(uint32_t n)
{
    return (uint32_t)rand() % n;
}

/* A key from a small space, so that keys repeat. */
static rp_cellctx_key key_number(uint32_t k)
{
    rp_cellctx_key key = { 0x400000 + (k % 3) * 4, k % 2, 1 + k % 4, 7, k / 12,
                           (uint8_t)(k % 5 == 0 ? 0 : 1 + k % 8), (k & 1) != 0 };
    return key;
}

static bool same_key(const rp_cellctx_key *a, const rp_cellctx_key *b)
{
    return a->site == b->site && a->tid == b->tid && a->clock == b->clock
           && a->hb_clock == b->hb_clock && a->tag == b->tag && a->twin_size == b->twin_size
           && a->is_write == b->is_write;
}

/* Whether the table of recent contexts has this one (the answer of an
 * intern is always the table's, even when it comes from the context
 * interned last). */
static bool recent_has(const rp_cellctx_table *t, uint32_t number)
{
    for (uint32_t i = 0; i < CELLCTX_RECENT; i++)
        if (t->recent[i] == number)
            return true;
    return false;
}

/* Interning gives a live context of the key that reaches ref, or a fresh
 * one based at ref; interning the key again at once gives the same. */
static uint32_t intern_and_hold(rp_cellctx_table *t, model *m, uint32_t k, uint64_t ref)
{
    rp_cellctx_key key = key_number(k);
    uint32_t number = cellctx_intern(t, &key, ref);
    assert_true(number > 0 && number < MODEL_MAX);
    assert_true(cellctx_has_key(cellctx_get(t, number), &key));
    assert_true(cellctx_reaches(t, number, ref));
    assert_true(recent_has(t, number));
    if (m->ctx[number].holders != 0) {
        assert_true(same_key(&m->ctx[number].key, &key));
    } else {
        assert_int_equal(cellctx_get(t, number)->base_ref, ref);
        m->ctx[number].key = key;
        m->ctx[number].base = ref;
        m->live++;
    }
    assert_int_equal(cellctx_get(t, number)->base_ref, m->ctx[number].base);
    cellctx_hold(t, number);
    m->ctx[number].holders++;
    assert_int_equal(cellctx_intern(t, &key, ref), number);
    return number;
}

static void release_one(rp_cellctx_table *t, model *m, uint32_t number)
{
    cellctx_release(t, number);
    if (--m->ctx[number].holders == 0)
        m->live--;
}

static uint32_t random_held(const model *m)
{
    uint32_t start = 1 + rnd(MODEL_MAX - 1);
    for (uint32_t i = 0; i < MODEL_MAX - 1; i++) {
        uint32_t n = 1 + (start - 1 + i) % (MODEL_MAX - 1);
        if (m->ctx[n].holders != 0)
            return n;
    }
    return 0;
}

static void check_holders(const rp_cellctx_table *t, const model *m)
{
    assert_int_equal(t->live, m->live);
    for (uint32_t i = 1; i < t->n; i++)
        assert_int_equal(cellctx_get(t, i)->holders, m->ctx[i].holders);
}

/* Random interning (references mostly growing by a little, sometimes by
 * more than an offset reaches), holding and releasing. */
static void test_random_against_model(void **state)
{
    (void)state;
    srand(6);
    for (uint32_t run = 0; run < 200; run++) {
        rp_cellctx_table t;
        model *m = calloc(1, sizeof *m);
        cellctx_init(&t);
        uint64_t ref = rnd(1000);
        for (uint32_t step = 0; step < 2000; step++) {
            ref += rnd(10) == 0 ? CELLCTX_OFFSET_LIMIT - 1 + rnd(3) : rnd(50);
            uint32_t held = random_held(m);
            if (held != 0 && rnd(100) < 45)
                release_one(&t, m, held);
            else if (m->live < MODEL_MAX / 2)
                intern_and_hold(&t, m, rnd(KEYS), ref);
        }
        check_holders(&t, m);
        for (uint32_t n = random_held(m); n != 0; n = random_held(m))
            release_one(&t, m, n);
        assert_int_equal(t.live, 0);
        cellctx_fini(&t);
        free(m);
    }
}

/* A key whose context cannot reach a reference gets a new one; the older
 * stays until its last holder lets go, and its number is then reused. */
static void test_a_key_moves_on_when_offsets_do_not_reach(void **state)
{
    (void)state;
    rp_cellctx_table t;
    cellctx_init(&t);
    rp_cellctx_key key = key_number(3);
    uint32_t old = cellctx_intern(&t, &key, 10);
    cellctx_hold(&t, old);
    assert_int_equal(cellctx_intern(&t, &key, 9 + CELLCTX_OFFSET_LIMIT), old);
    uint32_t newer = cellctx_intern(&t, &key, 10 + CELLCTX_OFFSET_LIMIT);
    assert_int_not_equal(newer, old);
    cellctx_hold(&t, newer);
    assert_int_equal(cellctx_get(&t, newer)->base_ref, 10 + CELLCTX_OFFSET_LIMIT);
    assert_int_equal(t.live, 2);
    cellctx_release(&t, old);
    assert_int_equal(t.live, 1);
    rp_cellctx_key other = key_number(4);
    assert_int_equal(cellctx_intern(&t, &other, 20 + CELLCTX_OFFSET_LIMIT), old);
    cellctx_release(&t, newer);
    assert_int_equal(t.live, 1);      /* `other`'s, not held yet */
    cellctx_fini(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_against_model),
        cmocka_unit_test(test_a_key_moves_on_when_offsets_do_not_reach),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
