/* test_touched.c — the touched bytes of a log and their last writers
 * (rp_sort.h), which the witness passes index bytes by.
 *
 *   - touched_bytes on random logs (overlapping reads and writes of 1 to 16
 *     bytes, forgets and synchronisation, which touch nothing) against a
 *     per-byte bitmap: sorted, each byte once, exactly the accessed ones;
 *     also with an access of 300 bytes and with addresses above 2^56, the
 *     two cases that do not pack into one key per access;
 *   - the last writers (rp_lastw) after each event against the same walk
 *     over the bitmap's bytes, also with accesses spread over 4 KiB pages
 *     (a lookup bisects one page's bytes).
 */
#include "rp_event.h"
#include "rp_sort.h"
#include "rp_shim.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define LOGS 500
#define MAX_EVENTS 200
#define SPAN 512u
#define MAX_STRIDE 64u      /* addresses base + k * stride, k < SPAN */
#define EXTENT (SPAN * MAX_STRIDE + 300)

static uint64_t rng_state;

static unsigned rnd(unsigned n)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((rng_state >> 33) % n);
}

static rp_event random_event(uint64_t base, uint32_t stride, uint32_t i, bool wide)
{
    static const uint8_t kinds[] = { RP_EV_READ, RP_EV_WRITE, RP_EV_READ, RP_EV_WRITE,
                                     RP_EV_FORGET, RP_EV_ACQUIRE };
    rp_event e;
    memset(&e, 0, sizeof e);
    e.id = i + 1;
    e.tid = rnd(3);
    e.kind = kinds[rnd(sizeof kinds)];
    e.size = wide && rnd(20) == 0 ? 300 : 1 + rnd(rnd(4) == 0 ? 16 : 8);
    e.obj = base + (uint64_t)rnd(SPAN) * stride;
    if (e.kind == RP_EV_ACQUIRE) {
        e.obj = 7;
        e.size = 0;
    }
    return e;
}

/* Runs one random log; the expectation is a bitmap over [base, base + EXTENT).
 * A stride spreads the accesses over several 4 KiB pages. */
static void check_log(uint64_t base, uint32_t stride, bool wide)
{
    rp_event log[MAX_EVENTS];
    uint32_t n = 1 + rnd(MAX_EVENTS);
    static bool hit[EXTENT];
    memset(hit, 0, sizeof hit);
    for (uint32_t i = 0; i < n; i++) {
        log[i] = random_event(base, stride, i, wide);
        if (rp_event_is_access(&log[i]))
            for (uint32_t b = 0; b < log[i].size; b++)
                hit[log[i].obj - base + b] = true;
    }
    size_t count;
    uint64_t *t = touched_bytes(log, n, &count);
    size_t k = 0;
    for (uint64_t x = 0; x < EXTENT; x++)
        if (hit[x]) {
            assert_true(k < count);
            assert_true(t[k] == base + x);
            k++;
        }
    assert_int_equal(k, count);

    static uint32_t want[EXTENT];
    memset(want, 0, sizeof want);
    rp_lastw lw;
    lastw_init(&lw, t, count);
    for (uint32_t i = 0; i < n; i++) {
        const rp_event *e = &log[i];
        if (e->kind == RP_EV_READ) {
            const uint32_t *w = lastw_of(&lw, e->obj);
            for (uint32_t b = 0; b < e->size; b++)
                assert_int_equal(w[b], want[e->obj - base + b]);
        } else if (e->kind == RP_EV_WRITE || e->kind == RP_EV_FORGET) {
            lastw_write(&lw, e->obj, e->size, i);
            for (uint32_t b = 0; b < e->size; b++)
                want[e->obj - base + b] = i + 1;
        }
    }
    lastw_free(&lw);
    rp_free(t);
}

static void test_touched_bytes_and_writers(void **state)
{
    (void)state;
    rng_state = 77;
    for (unsigned l = 0; l < LOGS; l++) {
        check_log(0x10000, 1, false);
        check_log(0x10000, 1, true);
        check_log(0x10ff0, 1 + rnd(MAX_STRIDE), true);
        check_log(0x0300000000000000ull, 1, false);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_touched_bytes_and_writers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
