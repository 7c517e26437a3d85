/* test_hb_random.c — differential test of the hb detector against a
 * brute-force happens-before oracle on random small traces.
 *
 * The oracle is a boolean matrix: program order, release → every later
 * acquire of the lock by another thread (exclusive release → exclusive or
 * shared acquire; shared release → exclusive acquire), send → every later
 * receive on the object by another thread, fork → every event of the child,
 * every event of the child → join, and fork → join of the same child (the
 * child's life lies between them even when it has no event; the Python
 * reference of the vectors omits this edge, no vector depends on it); then
 * Floyd–Warshall closure.  A pair
 * i < j races iff both are accesses of different threads, at least one a
 * write, sharing a byte that no forget between them cleared, and unordered.
 *
 * Two generators, both producing well-formed runs with a fixed seed:
 *   text traces (2-4 threads, 0-2 locks, 1-3 variables, optional fork/join),
 *     written in the trace format and read with rp_trace, as in the vectors;
 *   byte traces (2-3 threads, accesses of 1-16 bytes at any offset in three
 *     granules, reader-writer locks, send/receive, forget).
 * All-pairs mode must equal the oracle exactly; location mode must report
 * only oracle pairs and at least one pair per racy variable (text) or per
 * racy byte (byte traces).  On mismatch the trace is printed.
 *
 * Location mode is checked twice on every trace of both generators and of
 * a third one made for it (bursts of one thread on few granules, epochs
 * changed by locks): as is, and behind the engine's filter of repeated
 * accesses (rp_repeats.h), which the tool always uses and which drops most
 * of these bursts' accesses.  Both must be sound and covering.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hb_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 48
#define TEXT_TRACES 12000
#define BYTE_TRACES 6000
#define BYTE_BASE 0x1000u

/* ---- oracle ------------------------------------------------------------ */

typedef struct oracle {
    bool hb[MAX_EVENTS][MAX_EVENTS];
    bool race[MAX_EVENTS][MAX_EVENTS];
} oracle;

static bool is_access(const rp_event *e)
{
    return e->kind == RP_EV_READ || e->kind == RP_EV_WRITE;
}

static bool releases_to(const rp_event *rel, const rp_event *acq)
{
    if (rel->obj != acq->obj || rel->tid == acq->tid)
        return false;
    if (rel->kind == RP_EV_RELEASE)
        return acq->kind == RP_EV_ACQUIRE || acq->kind == RP_EV_ACQUIRE_SHARED;
    if (rel->kind == RP_EV_RELEASE_SHARED)
        return acq->kind == RP_EV_ACQUIRE;
    return rel->kind == RP_EV_SYNC_SEND && acq->kind == RP_EV_SYNC_RECV;
}

static bool direct_edge(const rp_event *ev, size_t i, size_t j)
{
    const rp_event *a = &ev[i], *b = &ev[j];
    if (a->tid == b->tid)
        return true;
    if (releases_to(a, b))
        return true;
    if (a->kind == RP_EV_FORK && a->obj == b->tid)
        return true;
    if (a->kind == RP_EV_FORK && b->kind == RP_EV_JOIN && a->obj == b->obj)
        return true;
    return b->kind == RP_EV_JOIN && b->obj == a->tid;
}

static bool byte_shared_and_kept(const rp_event *ev, size_t i, size_t j)
{
    for (uint64_t byte = ev[i].obj; byte < ev[i].obj + ev[i].size; byte++) {
        if (byte < ev[j].obj || byte >= ev[j].obj + ev[j].size)
            continue;
        bool forgotten = false;
        for (size_t k = i + 1; k < j; k++)
            if (ev[k].kind == RP_EV_FORGET && byte >= ev[k].obj
                && byte < ev[k].obj + ev[k].size)
                forgotten = true;
        if (!forgotten)
            return true;
    }
    return false;
}

static void compute_oracle(const rp_event *ev, size_t n, oracle *o)
{
    memset(o, 0, sizeof *o);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            o->hb[i][j] = direct_edge(ev, i, j);
    for (size_t k = 0; k < n; k++)
        for (size_t i = 0; i < n; i++)
            if (o->hb[i][k])
                for (size_t j = 0; j < n; j++)
                    if (o->hb[k][j])
                        o->hb[i][j] = true;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            o->race[i][j] = is_access(&ev[i]) && is_access(&ev[j]) && ev[i].tid != ev[j].tid
                            && (ev[i].kind == RP_EV_WRITE || ev[j].kind == RP_EV_WRITE)
                            && !o->hb[i][j] && byte_shared_and_kept(ev, i, j);
}

/* ---- checking ---------------------------------------------------------- */

static void print_events(const rp_event *ev, size_t n)
{
    static const char *const kinds[] = { "r", "w", "acq", "rel", "acq_sh", "rel_sh", "fork",
                                         "join", "br", "send", "recv", "forget" };
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "  %2zu: T%u %s obj=%#llx size=%u\n", i + 1, ev[i].tid,
                kinds[ev[i].kind], (unsigned long long)ev[i].obj, ev[i].size);
}

static bool all_pairs_match(rp_event *ev, size_t n, const oracle *o)
{
    race_log log = { NULL, 0, 0 };
    harness_run("hb", true, ev, n, &log);
    bool reported[MAX_EVENTS][MAX_EVENTS];
    memset(reported, 0, sizeof reported);
    bool ok = true;
    for (size_t k = 0; k < log.count; k++) {
        const rp_race *r = &log.races[k];
        if (reported[r->first.id - 1][r->second.id - 1])
            ok = false;
        reported[r->first.id - 1][r->second.id - 1] = true;
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            if (reported[i][j] != o->race[i][j]) {
                fprintf(stderr, "all-pairs %zu-%zu: reported %d, oracle %d\n", i + 1, j + 1,
                        reported[i][j], o->race[i][j]);
                ok = false;
            }
    free(log.races);
    return ok;
}

/* Events after which a thread's HB epoch is a new one. */
static bool ends_epoch(const rp_event *e)
{
    return e->kind == RP_EV_RELEASE || e->kind == RP_EV_RELEASE_SHARED
           || e->kind == RP_EV_FORK || e->kind == RP_EV_SYNC_SEND;
}

/* Whether the reported pair (first, second) stands for an oracle race: a
 * location-mode cell stands for every instance of one instruction in one
 * epoch of its thread (rp_allpairs.h, twins) and names the latest, so some
 * instance f' — same thread, site and kind, in first's epoch — must race
 * with second. */
static bool twin_races(const rp_event *ev, const oracle *o, size_t first, size_t second)
{
    for (size_t f = first + 1; f-- > 0;) {
        if (ev[f].tid != ev[first].tid)
            continue;
        if (ends_epoch(&ev[f]))
            return false;
        if (ev[f].kind == ev[first].kind && ev[f].site == ev[first].site && o->race[f][second])
            return true;
    }
    return false;
}

/* How location mode runs: as the engine is given events, with its filter
 * of repeated accesses (rp_repeats.h), or as the tool runs hb: filtered,
 * and races known by their earlier access's site (sites_suffice: cells
 * name the latest access of their context, granules share cell sets). */
typedef enum run_mode { RUN_PLAIN, RUN_FILTERED, RUN_SHARED } run_mode;

static const char *const mode_names[] = { "", " (filtered)", " (shared)" };

/* Location mode: only oracle pairs (up to twins), and every racy unit
 * (variable or byte) is covered by some report; when filtered, dropped
 * events have no id, so ids are mapped back to positions. */
static bool location_mode_sound_and_covering(rp_event *ev, size_t n, const oracle *o,
                                             bool per_byte, run_mode mode)
{
    race_log log = { NULL, 0, 0 };
    size_t *position_of = NULL;
    if (mode != RUN_PLAIN) {
        harness_run_filtered("hb", mode == RUN_SHARED, ev, n, &log, &position_of);
    } else {
        harness_run("hb", false, ev, n, &log);
        position_of = malloc((n + 1) * sizeof *position_of);
        for (size_t i = 0; i < n; i++)
            position_of[i] = i;
    }
    bool ok = true;
    for (size_t k = 0; k < log.count; k++) {
        const rp_race *r = &log.races[k];
        size_t first = position_of[r->first.id - 1], second = position_of[r->second.id - 1];
        if (!twin_races(ev, o, first, second)) {
            fprintf(stderr, "location mode%s: non-race %zu-%zu\n", mode_names[mode], first + 1,
                    second + 1);
            ok = false;
        }
    }
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            if (!o->race[i][j])
                continue;
            bool covered = false;
            for (size_t k = 0; k < log.count && !covered; k++) {
                const rp_race *r = &log.races[k];
                if (per_byte)
                    covered = r->addr <= ev[j].obj + ev[j].size - 1
                              && ev[j].obj <= r->addr + r->size - 1
                              && r->addr <= ev[i].obj + ev[i].size - 1
                              && ev[i].obj <= r->addr + r->size - 1;
                else
                    covered = r->addr == ev[i].obj;
            }
            if (!covered) {
                fprintf(stderr, "location mode%s: race %zu-%zu not covered\n", mode_names[mode],
                        i + 1, j + 1);
                ok = false;
            }
        }
    free(position_of);
    free(log.races);
    return ok;
}

/* The same in every run mode. */
static bool location_modes_sound_and_covering(rp_event *ev, size_t n, const oracle *o,
                                              bool per_byte)
{
    return location_mode_sound_and_covering(ev, n, o, per_byte, RUN_PLAIN)
           && location_mode_sound_and_covering(ev, n, o, per_byte, RUN_FILTERED)
           && location_mode_sound_and_covering(ev, n, o, per_byte, RUN_SHARED);
}

/* ---- text traces ------------------------------------------------------- */

typedef struct text_gen {
    char text[4096];
    size_t len;
    unsigned n_threads, n_locks, n_vars;
    bool started[4], joined[4];
    int holder[2];
} text_gen;

static void emit(text_gen *g, unsigned tid, const char *op)
{
    g->len += (size_t)snprintf(g->text + g->len, sizeof g->text - g->len, "T%u %s\n", tid + 1, op);
}

static bool holds_lock(const text_gen *g, unsigned t)
{
    for (unsigned l = 0; l < g->n_locks; l++)
        if (g->holder[l] == (int)t)
            return true;
    return false;
}

static bool try_fork_or_join(text_gen *g, unsigned t)
{
    char op[32];
    unsigned c = rnd(g->n_threads);
    if (c == t)
        return false;
    if (!g->started[c]) {
        g->started[c] = true;
        snprintf(op, sizeof op, "fork(T%u)", c + 1);
        emit(g, t, op);
        return true;
    }
    if (!g->joined[c] && !holds_lock(g, c) && c != 0) {
        g->joined[c] = true;
        snprintf(op, sizeof op, "join(T%u)", c + 1);
        emit(g, t, op);
        return true;
    }
    return false;
}

static bool try_lock_op(text_gen *g, unsigned t)
{
    char op[32];
    if (g->n_locks == 0)
        return false;
    unsigned l = rnd(g->n_locks);
    if (g->holder[l] == (int)t) {
        g->holder[l] = -1;
        snprintf(op, sizeof op, "rel(l%u)", l);
    } else if (g->holder[l] == -1) {
        g->holder[l] = (int)t;
        snprintf(op, sizeof op, "acq(l%u)", l);
    } else {
        return false;
    }
    emit(g, t, op);
    return true;
}

static void generate_text(text_gen *g, unsigned n_events)
{
    memset(g, 0, sizeof *g);
    g->n_threads = 2 + rnd(3);
    g->n_locks = rnd(3);
    g->n_vars = 1 + rnd(3);
    g->holder[0] = g->holder[1] = -1;
    bool fork_join = rnd(3) == 0;
    for (unsigned t = 0; t < g->n_threads; t++)
        g->started[t] = !fork_join || t == 0;
    for (unsigned produced = 0; produced < n_events;) {
        unsigned t = rnd(g->n_threads);
        if (!g->started[t] || g->joined[t])
            continue;
        unsigned choice = rnd(10);
        bool done = false;
        if (choice < 2 && fork_join)
            done = try_fork_or_join(g, t);
        else if (choice < 5)
            done = try_lock_op(g, t);
        if (!done) {
            char op[32];
            snprintf(op, sizeof op, "%c(v%u)", rnd(2) ? 'w' : 'r', rnd(g->n_vars));
            emit(g, t, op);
        }
        produced++;
    }
}

static void test_random_text_traces(void **state)
{
    (void)state;
    rng_state = 0x2545F4914F6CDD1Dull;
    static oracle o;
    unsigned racy = 0;
    for (unsigned iter = 0; iter < TEXT_TRACES; iter++) {
        text_gen g;
        generate_text(&g, 2 + rnd(15));
        rp_trace t;
        rp_trace_error err;
        bool parsed = rp_trace_parse(g.text, g.len, &t, &err);
        if (!parsed)
            fprintf(stderr, "generated trace rejected, line %u: %s\n%s", err.line, err.message,
                    g.text);
        assert_true(parsed);
        compute_oracle(t.events, t.n_events, &o);
        bool ok = all_pairs_match(t.events, t.n_events, &o)
                  && location_modes_sound_and_covering(t.events, t.n_events, &o, false);
        if (!ok)
            fprintf(stderr, "trace %u:\n%s", iter, g.text);
        assert_true(ok);
        for (size_t i = 0; i < t.n_events; i++)
            for (size_t j = 0; j < t.n_events; j++)
                racy += o.race[i][j];
        rp_trace_free(&t);
    }
    fprintf(stderr, "%u text traces, %u race pairs in total\n", TEXT_TRACES, racy);
}

/* ---- byte traces ------------------------------------------------------- */

typedef struct byte_gen {
    rp_event ev[MAX_EVENTS];
    size_t n;
    unsigned n_threads;
    int writer[2];             /* exclusive holder or -1 */
    unsigned readers[2];       /* bit set of shared holders */
} byte_gen;

static void push(byte_gen *g, rp_event_kind kind, unsigned t, uint64_t obj, uint32_t size)
{
    g->ev[g->n++] = harness_event(kind, t, obj, size);
}

/* An empty trace of two or three threads, no lock held. */
static void start_gen(byte_gen *g)
{
    memset(g, 0, sizeof *g);
    g->n_threads = 2 + rnd(2);
    g->writer[0] = g->writer[1] = -1;
}

static bool try_rwlock_op(byte_gen *g, unsigned t)
{
    unsigned l = rnd(2);
    if (g->writer[l] == (int)t) {
        g->writer[l] = -1;
        push(g, RP_EV_RELEASE, t, l, 0);
    } else if (g->readers[l] & (1u << t)) {
        g->readers[l] &= ~(1u << t);
        push(g, RP_EV_RELEASE_SHARED, t, l, 0);
    } else if (g->writer[l] == -1 && rnd(2) == 0) {
        g->readers[l] |= 1u << t;
        push(g, RP_EV_ACQUIRE_SHARED, t, l, 0);
    } else if (g->writer[l] == -1 && g->readers[l] == 0) {
        g->writer[l] = (int)t;
        push(g, RP_EV_ACQUIRE, t, l, 0);
    } else {
        return false;
    }
    return true;
}

/* A forget of a few bytes (a stack frame), or now and then a large one
 * that ends or starts inside the bytes (a freed block: emptied cell arrays
 * go back to the pool), or one of their whole shadow chunk (freed). */
static void push_forget(byte_gen *g, unsigned t)
{
    unsigned kind = rnd(8);
    if (kind == 0)
        push(g, RP_EV_FORGET, t, BYTE_BASE + rnd(24) - 4096, 4096 + rnd(12));
    else if (kind == 1)
        push(g, RP_EV_FORGET, t, BYTE_BASE + rnd(24), 4096);
    else if (kind == 2)
        push(g, RP_EV_FORGET, t, 0, 65536);
    else
        push(g, RP_EV_FORGET, t, BYTE_BASE + rnd(24), 1 + rnd(12));
}

static void generate_bytes(byte_gen *g, unsigned n_events)
{
    start_gen(g);
    while (g->n < n_events) {
        unsigned t = rnd(g->n_threads);
        unsigned choice = rnd(20);
        if (choice < 4 && try_rwlock_op(g, t))
            continue;
        if (choice == 4)
            push(g, rnd(2) ? RP_EV_SYNC_SEND : RP_EV_SYNC_RECV, t, 100 + rnd(2), 0);
        else if (choice == 5)
            push_forget(g, t);
        else {
            static const uint32_t sizes[] = { 1, 1, 2, 4, 8, 8, 3, 16 };
            uint32_t size = sizes[rnd(8)];
            push(g, rnd(2) ? RP_EV_WRITE : RP_EV_READ, t, BYTE_BASE + rnd(25 - size) , size);
        }
    }
}

static void test_random_byte_traces(void **state)
{
    (void)state;
    rng_state = 0x9E3779B97F4A7C15ull;
    static oracle o;
    unsigned racy = 0;
    for (unsigned iter = 0; iter < BYTE_TRACES; iter++) {
        byte_gen g;
        generate_bytes(&g, 2 + rnd(24));
        compute_oracle(g.ev, g.n, &o);
        bool ok = all_pairs_match(g.ev, g.n, &o)
                  && location_modes_sound_and_covering(g.ev, g.n, &o, true);
        if (!ok) {
            fprintf(stderr, "byte trace %u:\n", iter);
            print_events(g.ev, g.n);
        }
        assert_true(ok);
        for (size_t i = 0; i < g.n; i++)
            for (size_t j = 0; j < g.n; j++)
                racy += o.race[i][j];
    }
    fprintf(stderr, "%u byte traces, %u race pairs in total\n", BYTE_TRACES, racy);
}

/* ---- epoch traces: made for the filter of repeats ----------------------- */

/* Bursts of one thread's accesses to three granules, mostly aligned and
 * within a granule, some of 16 bytes or unaligned across two, so that most
 * accesses meet their own thread's cells of the current epoch; locks change
 * epochs and order threads, forgets clear bytes. */
static void generate_epochs(byte_gen *g, unsigned n_events)
{
    start_gen(g);
    while (g->n < n_events) {
        unsigned t = rnd(g->n_threads);
        unsigned choice = rnd(12);
        if (choice < 3 && try_rwlock_op(g, t))
            continue;
        if (choice == 3) {
            push(g, RP_EV_FORGET, t, BYTE_BASE + rnd(24), 1 + rnd(8));
            continue;
        }
        for (unsigned burst = 1 + rnd(6); burst > 0 && g->n < n_events; burst--) {
            uint32_t size = 1u << rnd(5);
            uint64_t addr = size == 16 ? BYTE_BASE + 8 * rnd(2)
                                       : BYTE_BASE + 8 * rnd(3) + size * rnd(8 / size);
            if (rnd(8) == 0)
                addr = BYTE_BASE + rnd(25 - size);
            push(g, rnd(3) == 0 ? RP_EV_WRITE : RP_EV_READ, t, addr, size);
        }
    }
}

static void test_filtered_epoch_traces(void **state)
{
    (void)state;
    rng_state = 0xD1B54A32D192ED03ull;
    static oracle o;
    for (unsigned iter = 0; iter < BYTE_TRACES; iter++) {
        byte_gen g;
        generate_epochs(&g, 2 + rnd(MAX_EVENTS - 2));
        compute_oracle(g.ev, g.n, &o);
        bool ok = location_modes_sound_and_covering(g.ev, g.n, &o, true);
        if (!ok) {
            fprintf(stderr, "epoch trace %u:\n", iter);
            print_events(g.ev, g.n);
        }
        assert_true(ok);
    }
}

/* ---- loop traces: granules with equal cell lists ---------------------- */

/* Threads run loops over four granules: an iteration reads or writes one
 * granule with two to four instructions (sites), each on its own bytes,
 * or byte by byte with one instruction (twins), so that granules end with
 * equal cell lists, which share sets when sites suffice; lock operations
 * and forgets between loops. */
static void generate_loops(byte_gen *g, unsigned n_events)
{
    start_gen(g);
    while (g->n < n_events) {
        unsigned t = rnd(g->n_threads);
        unsigned choice = rnd(10);
        if (choice < 2 && try_rwlock_op(g, t))
            continue;
        if (choice == 2) {
            push_forget(g, t);
            continue;
        }
        bool bytewise = rnd(4) == 0;
        unsigned parts = bytewise ? 8 : 2 + rnd(3);
        uint32_t width = bytewise ? 1 : parts == 2 ? 4 : 2;
        rp_event_kind kind = rnd(3) == 0 ? RP_EV_WRITE : RP_EV_READ;
        for (unsigned gi = rnd(4), left = 1 + rnd(4); gi < 4 && left > 0; gi++, left--)
            for (unsigned k = 0; k < parts && g->n < n_events; k++) {
                push(g, kind, t, BYTE_BASE + 8 * gi + width * k, width);
                g->ev[g->n - 1].site = 0x100 + 16 * (kind == RP_EV_WRITE) + (bytewise ? 8 : k);
            }
    }
}

/* What a location-mode report says of a race, but for its earlier
 * access's event: that is the latest of its site, thread and epoch when
 * sites suffice. */
static uint64_t report_key(const rp_race *r)
{
    return r->first.site << 40 ^ (uint64_t)r->first.tid << 36 ^ (uint64_t)r->first.is_write << 35
           ^ (uint64_t)r->observed << 34 ^ r->second.id;
}

static int compare_keys(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Sorted, deduplicated report keys of a filtered run. */
static size_t run_keys(rp_event *ev, size_t n, bool sites_suffice, uint64_t *keys)
{
    race_log log = { NULL, 0, 0 };
    size_t *position_of = NULL;
    harness_run_filtered("hb", sites_suffice, ev, n, &log, &position_of);
    for (size_t i = 0; i < log.count; i++)
        keys[i] = report_key(&log.races[i]);
    qsort(keys, log.count, sizeof *keys, compare_keys);
    size_t unique = 0;
    for (size_t i = 0; i < log.count; i++)
        if (unique == 0 || keys[i] != keys[unique - 1])
            keys[unique++] = keys[i];
    free(position_of);
    free(log.races);
    return unique;
}

/* Sharing cells changes what a race names as its earlier event, nothing
 * else: the same sites, threads, kinds and second accesses. */
static bool shared_reports_match(rp_event *ev, size_t n)
{
    static uint64_t exact[MAX_EVENTS * MAX_EVENTS], shared[MAX_EVENTS * MAX_EVENTS];
    size_t n_exact = run_keys(ev, n, false, exact);
    size_t n_shared = run_keys(ev, n, true, shared);
    if (n_exact == n_shared && memcmp(exact, shared, n_exact * sizeof *exact) == 0)
        return true;
    fprintf(stderr, "shared cells: %zu reports, exact: %zu\n", n_shared, n_exact);
    return false;
}

static void test_shared_cell_traces(void **state)
{
    (void)state;
    rng_state = 0x2545F4914F6CDD1Dull;
    static oracle o;
    for (unsigned iter = 0; iter < BYTE_TRACES; iter++) {
        byte_gen g;
        generate_loops(&g, 2 + rnd(MAX_EVENTS - 2));
        compute_oracle(g.ev, g.n, &o);
        bool ok = location_modes_sound_and_covering(g.ev, g.n, &o, true)
                  && shared_reports_match(g.ev, g.n);
        if (!ok) {
            fprintf(stderr, "loop trace %u:\n", iter);
            print_events(g.ev, g.n);
        }
        assert_true(ok);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_text_traces),
        cmocka_unit_test(test_random_byte_traces),
        cmocka_unit_test(test_filtered_epoch_traces),
        cmocka_unit_test(test_shared_cell_traces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
