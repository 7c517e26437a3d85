/* test_window_filtered.c — witnesses built from a window that the filter
 * of repeats thinned (rp_repeats.h, rp_window.h), as in the tool: location
 * mode, repeated reads and writes dropped, rewritten granules flushed to
 * the window as one record each before another thread's event, a
 * synchronisation or a forget.
 *
 * On random runs made of bursts of one thread on few granules (so that
 * repeats and rewrites are common), with and without critical sections,
 * every witness the window builds for a race of wcp, dc, wdc or lockset is
 * mapped back to the whole run and must pass the validator there:
 *   - a window record of an access passed on is that access;
 *   - a flushed record stands for its thread's events before the event
 *     that flushed it: all of them are in the witness;
 *   - the window's events keep the witness's order; a dropped access
 *     goes right after its thread's previous event in the witness, when a
 *     later event of its thread is there (program order) or its thread
 *     must reach a racing access;
 *   - the run before the cut is its threads' prefixes up to their last
 *     event before the cut.
 * This is the soundness argument of rp_repeats.h made executable.  The
 * test also requires that flushed records took part in witnesses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hb_harness.h"
#include "rp_detector.h"
#include "rp_engine.h"
#include "rp_window.h"
#include "rp_witness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 64
#define MAX_IDS (4 * MAX_EVENTS)
#define RANDOM_RUNS 6000
#define BASE 0x1000u

typedef struct run {
    rp_event ev[MAX_EVENTS];
    uint32_t n;
} run;

static void add(run *r, rp_event_kind kind, rp_tid_t tid, uint64_t obj, uint32_t size)
{
    if (r->n == MAX_EVENTS)
        return;
    r->ev[r->n] = harness_event(kind, tid, obj, size);
    r->ev[r->n].site = r->n + 1;            /* unique: no twins */
    r->n++;
}

/* A burst of thread tid on two of three granules, inside a critical
 * section half of the time, sometimes after a send or a receive. */
static void add_burst(run *r, rp_tid_t tid)
{
    static const uint32_t sizes[] = { 1, 2, 4, 8 };
    bool locked = rnd(2) == 0;
    uint64_t lock = 100 + rnd(2);
    uint64_t granule = BASE + 8 * rnd(2);
    if (locked)
        add(r, RP_EV_ACQUIRE, tid, lock, 0);
    /* Receives more often than sends, so that some repeat and are dropped. */
    if (rnd(4) == 0)
        add(r, rnd(3) == 0 ? RP_EV_SYNC_SEND : RP_EV_SYNC_RECV, tid, 200 + 8 * rnd(2), 0);
    for (unsigned i = rnd(6) + 1; i > 0; i--) {
        uint32_t size = sizes[rnd(4)];
        uint64_t addr = rnd(4) == 0 ? granule + rnd(17 - size)      /* unaligned */
                                    : granule + 8 * rnd(2) + size * rnd(2);
        add(r, rnd(2) == 0 ? RP_EV_WRITE : RP_EV_READ, tid, addr, size);
    }
    if (rnd(12) == 0)
        add(r, RP_EV_FORGET, tid, BASE + 8 * rnd(3), 8);
    if (locked)
        add(r, RP_EV_RELEASE, tid, lock, 0);
}

static void random_run(run *r)
{
    unsigned threads = 2 + rnd(2);
    r->n = 0;
    for (rp_tid_t t = 1; t < threads; t++)
        add(r, RP_EV_FORK, 0, t, 0);
    while (r->n < MAX_EVENTS - 10)
        add_burst(r, rnd(threads));
}

/* What a window id is in the run: an event passed on (pos), or a flushed
 * record of thread tid standing for its events before position bound. */
typedef struct id_info {
    int32_t pos;
    rp_tid_t tid;
    uint32_t bound;
} id_info;

typedef struct state {
    const run *r;
    rp_engine *eng;
    rp_window *w;
    id_info ids[MAX_IDS + 1];
    uint64_t known;             /* ids[1 .. known] are filled */
    uint32_t current;           /* position of the event being fed */
    rp_tid_t rewriter;          /* whose rewrites a flush appends */
    uint64_t witnesses_seen;
    uint64_t recvs_dropped;
    unsigned checked, with_flushed, bad;
} state;

/* The witness being mapped back: events in order, and which are in. */
typedef struct mapped {
    uint32_t seq[MAX_EVENTS];
    uint32_t n;
    bool in[MAX_EVENTS];
    bool used_flushed;
} mapped;

/* Puts event j right after the last event of its thread in the sequence
 * (at the end if there is none). */
static void insert_after_thread(const run *r, mapped *m, uint32_t j)
{
    uint32_t at = m->n;
    for (uint32_t k = m->n; k-- > 0;)
        if (r->ev[m->seq[k]].tid == r->ev[j].tid) {
            at = k + 1;
            break;
        }
    memmove(&m->seq[at + 1], &m->seq[at], (m->n - at) * sizeof m->seq[0]);
    m->seq[at] = j;
    m->n++;
    m->in[j] = true;
}

/* Every event of thread t before position limit is in: the ones not yet
 * in are dropped repeats (the window's events come in its order), each
 * placed right after its thread's previous event. */
static void take_upto(const run *r, mapped *m, rp_tid_t t, uint32_t limit)
{
    for (uint32_t j = 0; j < limit; j++)
        if (r->ev[j].tid == t && !m->in[j])
            insert_after_thread(r, m, j);
}

static void take_id(const state *s, mapped *m, uint64_t id)
{
    const id_info *x = &s->ids[id];
    if (x->pos < 0) {
        take_upto(s->r, m, x->tid, x->bound);
        m->used_flushed = true;
        return;
    }
    take_upto(s->r, m, x->tid, (uint32_t)x->pos);
    assert_false(m->in[x->pos]);
    m->in[x->pos] = true;
    m->seq[m->n++] = (uint32_t)x->pos;
}

static void dump(const run *r)
{
    for (uint32_t i = 0; i < r->n; i++)
        fprintf(stderr, "  %2u t%u %s 0x%llx %u\n", i, r->ev[i].tid,
                rp_event_kind_name((rp_event_kind)r->ev[i].kind),
                (unsigned long long)r->ev[i].obj, r->ev[i].size);
}

/* The window's last new witness of (a, b) (ids), mapped back and checked. */
static void check_witness(state *s, uint64_t a, uint64_t b)
{
    uint64_t cut;
    uint32_t n_ids;
    const uint64_t *ids = rp_window_witness_ids(s->w, &cut, &n_ids);
    static mapped m;
    memset(&m, 0, sizeof m);
    for (uint64_t id = 1; id < cut; id++)
        take_id(s, &m, id);
    for (uint32_t k = 0; k < n_ids; k++)
        take_id(s, &m, ids[k]);
    uint32_t e1 = (uint32_t)s->ids[a].pos, e2 = (uint32_t)s->ids[b].pos;
    take_upto(s->r, &m, s->r->ev[e1].tid, e1);
    take_upto(s->r, &m, s->r->ev[e2].tid, e2);
    rp_witness wit;
    rp_witness_error err;
    witness_init(&wit);
    wit.e1 = e1;
    wit.e2 = e2;
    for (uint32_t k = 0; k < m.n; k++)
        witness_push(&wit, m.seq[k]);
    bool ok = witness_check_log(s->r->ev, s->r->n, &wit, &err);
    witness_free(&wit);
    s->checked++;
    s->with_flushed += m.used_flushed;
    if (!ok && s->bad++ < 3) {
        fprintf(stderr, "witness of %u-%u rejected on the whole run: %s\n", e1, e2,
                err.message);
        fprintf(stderr, "cut %llu, window witness:", (unsigned long long)cut);
        for (uint32_t k = 0; k < n_ids; k++)
            fprintf(stderr, " %llu=%d/t%u<%u", (unsigned long long)ids[k], s->ids[ids[k]].pos,
                    s->ids[ids[k]].tid, s->ids[ids[k]].bound);
        fprintf(stderr, "\nmapped:");
        for (uint32_t k = 0; k < m.n; k++)
            fprintf(stderr, " %u", m.seq[k]);
        fprintf(stderr, "\n");
        dump(s->r);
    }
}

/* Fills the ids given so far: the last is the current event when it was
 * passed on (it is being dispatched, or e_id says so after the call), the
 * others are records flushed before it. */
static void learn_ids(state *s, uint64_t e_id)
{
    uint64_t count = rp_engine_event_count(s->eng);
    assert_true(count <= MAX_IDS);
    for (uint64_t id = s->known + 1; id <= count; id++) {
        bool is_e = id == e_id;
        s->ids[id].pos = is_e ? (int32_t)s->current : -1;
        s->ids[id].tid = is_e ? s->r->ev[s->current].tid : s->rewriter;
        s->ids[id].bound = s->current;
    }
    s->known = count;
}

static void collect(void *ctx, const rp_race *race)
{
    state *s = ctx;
    /* Reported while the current event is dispatched: it has the last id. */
    learn_ids(s, rp_engine_event_count(s->eng));
    if (race->observed || !race->confirmed)
        return;
    uint64_t seen = rp_window_count(s->w, RP_WOUT_CONFIRMED);
    if (seen == s->witnesses_seen)
        return;                 /* an earlier witness of the same sites */
    s->witnesses_seen = seen;
    check_witness(s, race->first.id, race->second.id);
}

/* Feeds r, noting what each window id is. */
static void run_engine(state *s, const run *r, uint32_t margin)
{
    memset(s, 0, sizeof *s);
    s->r = r;
    rp_detector_env env = { .report = collect, .report_ctx = s, .window = RP_WINDOW_MIN,
                            .skip_repeats = true };
    s->eng = rp_engine_create("wcp,dc,wdc,lockset", &env, NULL);
    assert_non_null(s->eng);
    assert_non_null(s->eng->repeats);
    s->w = rp_engine_window(s->eng);
    rp_window_set_margin(s->w, margin);
    rp_window_keep_witness_ids(s->w, true);
    for (uint32_t i = 0; i < r->n; i++) {
        rp_event e = r->ev[i];
        s->current = i;
        s->rewriter = s->eng->repeats->rewriter;
        rp_engine_event(s->eng, &e);
        learn_ids(s, e.id);
    }
    rp_engine_finish(s->eng);
    s->recvs_dropped = s->eng->repeats->recvs_dropped;
    rp_engine_destroy(s->eng);
}

static void test_witnesses_valid_on_the_whole_run(void **state_)
{
    (void)state_;
    static run r;
    static state s;
    unsigned checked = 0, with_flushed = 0, bad = 0;
    uint64_t recvs_dropped = 0;
    rng_state = 0xf117e7edull;
    for (unsigned it = 0; it < RANDOM_RUNS; it++) {
        random_run(&r);
        run_engine(&s, &r, it % 3 == 0 ? RP_WINDOW_MARGIN : it % 4);
        checked += s.checked;
        with_flushed += s.with_flushed;
        bad += s.bad;
        recvs_dropped += s.recvs_dropped;
    }
    fprintf(stderr, "%u witnesses from a filtered window on %u runs, %u using flushed "
            "records, %llu repeated receives dropped; rejected on the whole run: %u\n", checked,
            RANDOM_RUNS, with_flushed, (unsigned long long)recvs_dropped, bad);
    assert_int_equal(bad, 0);
    assert_true(checked > RANDOM_RUNS / 10);
    assert_true(with_flushed > checked / 20);
    assert_true(recvs_dropped > RANDOM_RUNS / 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_witnesses_valid_on_the_whole_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
