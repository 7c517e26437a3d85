/* test_engine_cover.c — hb run by a detector that covers it
 * (rp_detector_ops.covers_hb, rp_engine_merge_reports).
 *
 * With merged reports, "hb,X" for X in wcp, dc, wdc runs X alone and
 * names hb on X's observed races.  On random runs (location mode, the
 * filter of repeats on, as in the tool) this checks, per event and
 * code-location pair:
 *   - the merged reports are exactly X's own reports (X alone);
 *   - hb is named exactly on the observed ones, which then carry hb's
 *     name, and each such pair is an HB race (hb in all-pairs mode on the
 *     same run, the oracle);
 *   - every pair hb alone reports is reported, naming hb.
 * Sites repeat (few per run) so that pairs merge and twins form.
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

#define MAX_EVENTS 72
#define RANDOM_RUNS 4000
#define BASE 0x1000u
#define N_SITES 6

typedef struct report {
    uint64_t second_id;
    uint64_t first_pos, second_pos;   /* positions in the run */
    uint64_t first_site, second_site;
    rp_tid_t first_tid;
    bool first_write, second_write;
    bool observed;
    uint32_t found_by;
    const char *detector;
} report;

typedef struct reports {
    report r[4 * MAX_EVENTS * MAX_EVENTS];
    unsigned n;
    rp_engine *eng;                   /* for rp_engine_found_by */
    const size_t *position_of;        /* id - 1 → position in the run */
    size_t current;                   /* position of the event being run */
} reports;

typedef struct run {
    rp_event ev[MAX_EVENTS];
    size_t position_of[MAX_EVENTS];
    unsigned n;
} run;

static void add(run *r, rp_event_kind kind, rp_tid_t tid, uint64_t obj, uint32_t size)
{
    if (r->n == MAX_EVENTS)
        return;
    r->ev[r->n] = harness_event(kind, tid, obj, size);
    if (kind == RP_EV_READ || kind == RP_EV_WRITE)
        r->ev[r->n].site = 1 + rnd(N_SITES);
    r->n++;
}

/* A burst of one thread: accesses on two granules, sometimes under a lock
 * it takes and releases, sometimes after a send or receive. */
static void add_burst(run *r, rp_tid_t tid)
{
    static const uint32_t sizes[] = { 1, 2, 4, 8 };
    unsigned lock = rnd(2);
    bool take = rnd(2) == 0;
    if (take)
        add(r, RP_EV_ACQUIRE, tid, 100 + lock, 0);
    if (rnd(6) == 0)
        add(r, rnd(2) ? RP_EV_SYNC_SEND : RP_EV_SYNC_RECV, tid, 200, 0);
    for (unsigned i = rnd(5) + 1; i > 0; i--) {
        uint32_t size = sizes[rnd(4)];
        uint64_t addr = rnd(4) == 0 ? BASE + rnd(17 - size)         /* unaligned */
                                    : BASE + 8 * rnd(2) + size * rnd(8 / size);
        add(r, rnd(3) == 0 ? RP_EV_WRITE : RP_EV_READ, tid, addr, size);
    }
    if (rnd(10) == 0)
        add(r, RP_EV_FORGET, tid, BASE + 8 * rnd(2), 8);
    if (take)
        add(r, RP_EV_RELEASE, tid, 100 + lock, 0);
}

static void random_run(run *r)
{
    unsigned threads = 2 + rnd(3);
    r->n = 0;
    for (rp_tid_t t = 1; t < threads; t++)
        add(r, RP_EV_FORK, 0, t, 0);
    while (r->n < MAX_EVENTS - 16)
        add_burst(r, rnd(threads));
    if (rnd(2) == 0)
        add(r, RP_EV_JOIN, 0, 1, 0);
    add_burst(r, 0);
}

static void collect(void *ctx, const rp_race *race)
{
    reports *out = ctx;
    assert_true(out->n < sizeof out->r / sizeof out->r[0]);
    report *p = &out->r[out->n++];
    p->second_id = race->second.id;
    p->first_pos = out->position_of != NULL ? out->position_of[race->first.id - 1]
                                            : race->first.id - 1;
    /* Online, a race is reported during its second access. */
    p->second_pos = out->position_of != NULL ? out->current : race->second.id - 1;
    p->first_site = race->first.site;
    p->first_tid = race->first.tid;
    p->second_site = race->second.site;
    p->first_write = race->first.is_write;
    p->second_write = race->second.is_write;
    p->observed = race->observed;
    p->found_by = out->eng != NULL ? rp_engine_found_by(out->eng) : 0;
    p->detector = race->detector;
}

/* Runs r through `detectors` (merged, filtered, or all-pairs for the
 * oracle) into *out. */
static void detect(const char *detectors, run *r, bool all_pairs, reports *out)
{
    rp_detector_env env = { .report = collect, .report_ctx = out, .all_pairs = all_pairs,
                            .window = 0, .skip_repeats = !all_pairs };
    out->n = 0;
    out->eng = rp_engine_create(detectors, &env, NULL);
    out->position_of = all_pairs ? NULL : r->position_of;
    assert_non_null(out->eng);
    rp_engine_merge_reports(out->eng);
    for (unsigned i = 0; i < r->n; i++) {
        rp_event e = r->ev[i];
        out->current = i;
        rp_engine_event(out->eng, &e);
        if (e.id != 0)
            r->position_of[e.id - 1] = i;
    }
    rp_engine_finish(out->eng);
    rp_engine_destroy(out->eng);
    out->eng = NULL;
}

static bool same_pair(const report *a, const report *b)
{
    return a->second_id == b->second_id && a->first_site == b->first_site
        && a->second_site == b->second_site && a->first_write == b->first_write
        && a->second_write == b->second_write;
}

static const report *find_pair(const reports *in, const report *p)
{
    for (unsigned i = 0; i < in->n; i++)
        if (same_pair(&in->r[i], p))
            return &in->r[i];
    return NULL;
}

/* Online, twins (instances of one instruction in one epoch) share a cell
 * named by the latest instance, which may not touch the racy bytes: the
 * oracle's pair may have any instance of the same thread and site first. */
static bool is_hb_race(const reports *oracle, const report *p)
{
    for (unsigned i = 0; i < oracle->n; i++)
        if (oracle->r[i].second_pos == p->second_pos && oracle->r[i].first_tid == p->first_tid
            && oracle->r[i].first_site == p->first_site)
            return true;
    return false;
}

static void print_run(const char *detectors, const run *r, const char *what)
{
    fprintf(stderr, "%s: %s\n", detectors, what);
    for (unsigned i = 0; i < r->n; i++)
        fprintf(stderr, "  t%u %s 0x%llx %u site %llu\n", r->ev[i].tid,
                rp_event_kind_name((rp_event_kind)r->ev[i].kind),
                (unsigned long long)r->ev[i].obj, r->ev[i].size,
                (unsigned long long)r->ev[i].site);
}

static void print_report(const char *what, const report *p)
{
    fprintf(stderr, "%s: events %llu and %llu, sites %llu and %llu, found by %#x%s\n", what,
            (unsigned long long)p->first_pos, (unsigned long long)p->second_pos,
            (unsigned long long)p->first_site, (unsigned long long)p->second_site,
            p->found_by, p->observed ? ", observed" : "");
}

static uint32_t bit_of(const char *name)
{
    for (unsigned i = 0; i < rp_detector_count(); i++)
        if (strcmp(rp_detector_at(i)->name, name) == 0)
            return 1u << i;
    fail_msg("no detector %s", name);
    return 0;
}

/* The checks of the header on one run; false (after printing) on a
 * failure.  Counts the merged reports naming hb. */
static bool check_run(const char *x, run *r, reports *scratch[4], unsigned *named_hb)
{
    char both[16];
    snprintf(both, sizeof both, "hb,%s", x);
    reports *merged = scratch[0], *alone = scratch[1], *hb = scratch[2], *oracle = scratch[3];
    detect(both, r, false, merged);
    detect(x, r, false, alone);
    detect("hb", r, false, hb);
    detect("hb", r, true, oracle);
    uint32_t hb_bit = bit_of("hb"), x_bit = bit_of(x);
    for (unsigned i = 0; i < merged->n; i++) {
        const report *m = &merged->r[i];
        const char *bad = NULL;
        if (find_pair(alone, m) == NULL)
            bad = "a merged report that X alone does not make";
        else if ((m->found_by & x_bit) == 0)
            bad = "X not named";
        else if (((m->found_by & hb_bit) != 0) != m->observed)
            bad = "hb named on an unobserved race, or not on an observed one";
        else if (m->observed && strcmp(m->detector, "hb") != 0)
            bad = "an observed race not under hb's name";
        else if (m->observed && !is_hb_race(oracle, m))
            bad = "an observed race that is not an HB race";
        if (bad != NULL) {
            print_report("merged", m);
            print_run(both, r, bad);
            return false;
        }
        *named_hb += m->observed;
    }
    for (unsigned i = 0; i < alone->n; i++)
        if (find_pair(merged, &alone->r[i]) == NULL) {
            print_run(both, r, "a report of X alone missing");
            return false;
        }
    for (unsigned i = 0; i < hb->n; i++) {
        const report *m = find_pair(merged, &hb->r[i]);
        if (m == NULL || (m->found_by & hb_bit) == 0) {
            print_report("hb alone", &hb->r[i]);
            for (unsigned j = 0; j < merged->n; j++)
                print_report("merged", &merged->r[j]);
            print_run(both, r, "a pair hb alone reports missing, or without hb");
            return false;
        }
    }
    return true;
}

static void check_cover(const char *x, uint64_t seed)
{
    static run r;
    reports *scratch[4];
    for (unsigned i = 0; i < 4; i++)
        scratch[i] = calloc(1, sizeof *scratch[i]);
    unsigned named_hb = 0;
    rng_state = seed;
    for (unsigned i = 0; i < RANDOM_RUNS; i++) {
        random_run(&r);
        assert_true(check_run(x, &r, scratch, &named_hb));
    }
    /* The runs must exercise the claim. */
    assert_true(named_hb > RANDOM_RUNS);
    for (unsigned i = 0; i < 4; i++)
        free(scratch[i]);
}

static void test_wcp_covers_hb(void **state)
{
    (void)state;
    check_cover("wcp", 0x5eed1u);
}

static void test_dc_covers_hb(void **state)
{
    (void)state;
    check_cover("dc", 0x5eed2u);
}

static void test_wdc_covers_hb(void **state)
{
    (void)state;
    check_cover("wdc", 0x5eed3u);
}

/* Not covering: lockset filters pairs, so hb still runs beside it and
 * names only its own races. */
static void test_lockset_does_not_cover_hb(void **state)
{
    (void)state;
    static run r;
    reports *merged = calloc(1, sizeof *merged);
    r.n = 0;
    add(&r, RP_EV_FORK, 0, 1, 0);
    add(&r, RP_EV_WRITE, 0, BASE, 4);
    add(&r, RP_EV_WRITE, 1, BASE, 4);
    detect("hb,lockset", &r, false, merged);
    assert_int_equal(merged->n, 1);
    assert_int_equal(merged->r[0].found_by, bit_of("hb") | bit_of("lockset"));
    free(merged);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_wcp_covers_hb),
        cmocka_unit_test(test_dc_covers_hb),
        cmocka_unit_test(test_wdc_covers_hb),
        cmocka_unit_test(test_lockset_does_not_cover_hb),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
