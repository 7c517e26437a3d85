/* test_cs_granules.c — rule (a) of the critical-section rules
 * (rp_csrules.h) keeps its clocks per granule, in parts shared by the
 * bytes that have the same clock; the rule itself is per byte.  This test
 * drives the rules with random streams (3 threads, 3 locks, nested and
 * non-LIFO sections, accesses of 1 to 20 bytes anywhere in 40 bytes that
 * straddle 6 granules, forgets of 1 to 24 bytes, release clocks drawn
 * from a small set so that parts split and merge) and checks, at every
 * access, the clock csrules_access joins against a model that keeps
 * L^r_{l,x} and L^w_{l,x} for every lock and byte as the papers define
 * them; and, after every event, the count of (lock, byte) pairs kept.
 */
#include "rp_csrules.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#define STREAMS 2000
#define EVENTS 120
#define N_THREADS 3
#define N_LOCKS 3
#define N_BYTES 40
#define BYTE0 0x1003u   /* not granule-aligned: accesses straddle granules */
#define LOCK0 0x10u

static uint64_t rng_state;

static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng_state >> 33) % n);
}

/* The model: per lock and byte, the joins of the release clocks of the
 * sections that read / wrote it; per thread, its open sections and the
 * bytes each read and wrote. */
typedef struct model {
    rp_vc read[N_LOCKS][N_BYTES], write[N_LOCKS][N_BYTES];
    bool open[N_THREADS][N_LOCKS];
    bool did_read[N_THREADS][N_LOCKS][N_BYTES], did_write[N_THREADS][N_LOCKS][N_BYTES];
} model;

static model m;

static void model_init(void)
{
    for (unsigned l = 0; l < N_LOCKS; l++)
        for (unsigned x = 0; x < N_BYTES; x++) {
            vc_init(&m.read[l][x]);
            vc_init(&m.write[l][x]);
        }
    memset(m.open, 0, sizeof m.open);
    memset(m.did_read, 0, sizeof m.did_read);
    memset(m.did_write, 0, sizeof m.did_write);
}

static void model_free(void)
{
    for (unsigned l = 0; l < N_LOCKS; l++)
        for (unsigned x = 0; x < N_BYTES; x++) {
            vc_free(&m.read[l][x]);
            vc_free(&m.write[l][x]);
        }
}

static bool is_clear(const rp_vc *vc)
{
    for (uint32_t t = 0; t < vc->len; t++)
        if (vc_get(vc, t) != 0)
            return false;
    return true;
}

/* (lock, byte) pairs with a clock: those a released section touched and
 * no forget cleared since. */
static uint64_t model_kept(void)
{
    uint64_t n = 0;
    for (unsigned l = 0; l < N_LOCKS; l++)
        for (unsigned x = 0; x < N_BYTES; x++)
            n += !is_clear(&m.read[l][x]) || !is_clear(&m.write[l][x]);
    return n;
}

/* A release clock from a small set (entries 1..3), so that equal clocks
 * are frequent and parts merge; never all zero, so that model_kept can
 * tell a published byte. */
static void random_clock(rp_vc *vc)
{
    vc_clear(vc);
    for (rp_tid_t t = 0; t < N_THREADS; t++)
        vc_set(vc, t, 1 + rnd(3));
}

static void do_access(rp_csrules *cs, rp_tid_t t, uint64_t seq)
{
    uint32_t size = 1 + rnd(rnd(4) == 0 ? 20 : 8);
    uint32_t at = rnd(N_BYTES - size + 1);
    bool is_write = rnd(2) == 0;
    rp_event e = { seq, BYTE0 + at, seq, t, size,
                   (uint8_t)(is_write ? RP_EV_WRITE : RP_EV_READ) };
    rp_vc got, want;
    vc_init(&got);
    vc_init(&want);
    csrules_access(cs, &e, &got, NULL);
    for (unsigned l = 0; l < N_LOCKS; l++) {
        if (!m.open[t][l])
            continue;
        for (uint32_t x = at; x < at + size; x++) {
            vc_join(&want, &m.write[l][x]);
            if (is_write)
                vc_join(&want, &m.read[l][x]);
            (is_write ? m.did_write : m.did_read)[t][l][x] = true;
        }
    }
    assert_true(vc_leq(&got, &want) && vc_leq(&want, &got));
    vc_free(&got);
    vc_free(&want);
}

static void do_release(rp_csrules *cs, rp_tid_t t, unsigned l)
{
    rp_vc rel;
    vc_init(&rel);
    random_clock(&rel);
    csrules_release(cs, t, LOCK0 + l, &rel);
    for (unsigned x = 0; x < N_BYTES; x++) {
        if (m.did_read[t][l][x])
            vc_join(&m.read[l][x], &rel);
        if (m.did_write[t][l][x])
            vc_join(&m.write[l][x], &rel);
        m.did_read[t][l][x] = m.did_write[t][l][x] = false;
    }
    m.open[t][l] = false;
    vc_free(&rel);
}

/* Fresh memory: its bytes conflict with nothing before (rp_csrules.h);
 * the open sections' logs keep their accesses, as the rules do. */
static void do_forget(rp_csrules *cs)
{
    uint32_t size = 1 + rnd(24);
    uint32_t at = rnd(N_BYTES - size + 1);
    csrules_forget(cs, BYTE0 + at, size);
    for (unsigned l = 0; l < N_LOCKS; l++)
        for (uint32_t x = at; x < at + size; x++) {
            vc_clear(&m.read[l][x]);
            vc_clear(&m.write[l][x]);
        }
}

static void run_stream(void)
{
    rp_csrules *cs = csrules_create(false);
    model_init();
    for (uint64_t i = 1; i <= EVENTS; i++) {
        rp_tid_t t = rnd(N_THREADS);
        unsigned l = rnd(N_LOCKS), what = rnd(10);
        if (what < 2 && !m.open[t][l]) {
            csrules_acquire(cs, t, LOCK0 + l, 0);
            m.open[t][l] = true;
        } else if (what < 4 && m.open[t][l]) {
            do_release(cs, t, l);
        } else if (what == 4) {
            do_forget(cs);
        } else {
            do_access(cs, t, i);
        }
        assert_int_equal(csrules_kept_bytes(cs), model_kept());
    }
    csrules_destroy(cs);
    model_free();
}

static void test_granule_parts_equal_bytes(void **state)
{
    (void)state;
    rng_state = 20261125;
    for (unsigned s = 0; s < STREAMS; s++)
        run_stream();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_granule_parts_equal_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
