/* test_forget_rules.c — fresh memory (RP_EV_FORGET) ends the conflicts of
 * the critical-section rules: sections that touched a byte before it was
 * allocated again do not order sections that touch it after.
 *
 *   1 T0 acq(l)   2 T0 w(x)   3 T0 w(y)   4 T0 rel(l)
 *  [5 T1 forget(x)]
 *   6 T1 acq(l)   7 T1 r(x)   8 T1 rel(l)   9 T1 w(y)
 *
 * Without the forget, the write–read conflict on x orders T0's release
 * before T1's r(x) in wcp, dc, wdc and sdp (rule (a) / rule 1), hence
 * w(y) 3 before w(y) 9: no race.  With it, x before and after are two
 * variables, nothing orders the sections, and (3, 9) is a predicted race
 * (the lock hand-over orders it by HB).  The same with a forget of 256 KiB
 * whose inside (not its first or last granule) holds x, in its third
 * 64 KiB chunk: the rules look for a lock's bytes chunk by chunk.
 */
#include "rp_detector.h"
#include "rp_engine.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define LOCK 0x10u
#define X 0x100u
#define Y 0x200u
#define CHUNK_BYTES 0x10000u
/* x inside a forget of four chunks, in the third */
#define FAR_X (0x1000000u + 2 * CHUNK_BYTES + 0x40u)
#define FAR_FORGET 0x1000000u

typedef struct seen {
    bool y_pair;       /* the pair (w(y) 3, w(y) 9) */
    bool x_pair;       /* any pair on x */
} seen;

typedef struct run_ctx {
    seen seen;
    uint64_t x;
} run_ctx;

static void collect(void *ctx, const rp_race *race)
{
    run_ctx *r = ctx;
    if (race->addr == Y && race->first.id == 3 && !race->observed)
        r->seen.y_pair = true;
    if (race->addr == r->x)
        r->seen.x_pair = true;
}

/* The trace above with x at `x` and the forget of [forget, forget + size). */
static seen run_at(const char *detector, bool with_forget, uint64_t x, uint64_t forget,
                   uint32_t size)
{
    const rp_event events[] = {
        { 1, LOCK, 1, 0, 0, RP_EV_ACQUIRE }, { 2, x, 2, 0, 1, RP_EV_WRITE },
        { 3, Y, 3, 0, 1, RP_EV_WRITE },      { 4, LOCK, 4, 0, 0, RP_EV_RELEASE },
        { 5, forget, 5, 1, size, RP_EV_FORGET }, { 6, LOCK, 6, 1, 0, RP_EV_ACQUIRE },
        { 7, x, 7, 1, 1, RP_EV_READ },       { 8, LOCK, 8, 1, 0, RP_EV_RELEASE },
        { 9, Y, 9, 1, 1, RP_EV_WRITE },
    };
    run_ctx s = { { false, false }, x };
    rp_detector_env env = { .report = collect, .report_ctx = &s, .all_pairs = true };
    rp_engine *eng = rp_engine_create(detector, &env, NULL);
    assert_non_null(eng);
    for (unsigned i = 0; i < sizeof events / sizeof events[0]; i++) {
        rp_event e = events[i];
        if (e.kind != RP_EV_FORGET || with_forget)
            rp_engine_event(eng, &e);
    }
    rp_engine_finish(eng);
    rp_engine_destroy(eng);
    return s.seen;
}

static seen run(const char *detector, bool with_forget)
{
    return run_at(detector, with_forget, X, X, 1);
}

static void test_forget_of_chunks_ends_section_conflicts(void **state)
{
    static const char *const detectors[] = { "wcp", "dc", "wdc", "sdp" };
    (void)state;
    for (unsigned i = 0; i < sizeof detectors / sizeof detectors[0]; i++) {
        seen without = run_at(detectors[i], false, FAR_X, FAR_FORGET, 4 * CHUNK_BYTES);
        seen with = run_at(detectors[i], true, FAR_X, FAR_FORGET, 4 * CHUNK_BYTES);
        assert_false(without.y_pair);
        assert_true(with.y_pair);
        assert_false(with.x_pair);
    }
}

static void test_forget_ends_section_conflicts(void **state)
{
    static const char *const detectors[] = { "wcp", "dc", "wdc", "sdp" };
    (void)state;
    for (unsigned i = 0; i < sizeof detectors / sizeof detectors[0]; i++) {
        seen without = run(detectors[i], false);
        seen with = run(detectors[i], true);
        print_message("%s: race on y without forget %d, with %d\n", detectors[i],
                      without.y_pair, with.y_pair);
        assert_false(without.y_pair);
        assert_true(with.y_pair);
        assert_false(with.x_pair);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_forget_ends_section_conflicts),
        cmocka_unit_test(test_forget_of_chunks_ends_section_conflicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
