/* rp_predict.c — random traces and brute-force predictable races
 * (rp_predict.h). */
#include "rp_predict.h"

#include "rp_detector.h"
#include "rp_engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXE PREDICT_MAXE
#define MAXT 4
#define NBYTES 4
#define BYTE0 0x100u
#define NONE UINT32_MAX

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

static rp_event mk(uint32_t i, rp_tid_t tid, rp_event_kind kind, uint64_t obj, uint32_t size)
{
    rp_event e = { i + 1, obj, i + 1, tid, size, (uint8_t)kind };
    return e;
}

/* ---- generator -------------------------------------------------------------- */

typedef struct gen_thread {
    int status;             /* 0 not started, 1 running, 2 joined */
    int holds[2];           /* 0 free, 1 exclusive, 2 shared */
} gen_thread;

static uint32_t gen_trace(rp_event *ev, uint32_t *n_threads, bool shared)
{
    uint32_t nt = 2 + rnd(3), nl = rnd(3), nv = 1 + rnd(3), want = 2 + rnd(MAXE - 1), n = 0;
    gen_thread th[MAXT];
    int excl[2] = { -1, -1 }, nshared[2] = { 0, 0 };
    memset(th, 0, sizeof th);
    for (uint32_t t = 0; t < nt; t++)
        th[t].status = t == 0 || rnd(3) != 0 ? 1 : 0;
    rp_tid_t t = 0;
    for (unsigned tries = 0; n < want && tries < 300; tries++) {
        if (rnd(3) == 0 || th[t].status != 1)
            t = rnd(nt);
        if (th[t].status != 1)
            continue;
        uint32_t l = nl ? rnd(nl) : 0, op = rnd(100);
        bool holding = th[t].holds[0] || th[t].holds[1];
        if (nl != 0 && holding && op < 30) {                    /* release */
            if (!th[t].holds[l])
                l = 1 - l;
            if (l >= nl || !th[t].holds[l])
                continue;
            if (th[t].holds[l] == 2) {
                nshared[l]--;
                ev[n] = mk(n, t, RP_EV_RELEASE_SHARED, 1 + l, 0);
            } else {
                excl[l] = -1;
                ev[n] = mk(n, t, RP_EV_RELEASE, 1 + l, 0);
            }
            th[t].holds[l] = 0;
        } else if (nl != 0 && op < 55) {                        /* acquire */
            if (th[t].holds[l] || excl[l] >= 0)
                continue;
            if (shared && rnd(4) == 0) {
                th[t].holds[l] = 2;
                nshared[l]++;
                ev[n] = mk(n, t, RP_EV_ACQUIRE_SHARED, 1 + l, 0);
            } else {
                if (nshared[l])
                    continue;
                th[t].holds[l] = 1;
                excl[l] = (int)t;
                ev[n] = mk(n, t, RP_EV_ACQUIRE, 1 + l, 0);
            }
        } else if (op < 88) {                                   /* access */
            uint32_t v = rnd(nv), size = (rnd(6) == 0 && v + 1 < NBYTES) ? 2 : 1;
            ev[n] = mk(n, t, rnd(2) ? RP_EV_WRITE : RP_EV_READ, BYTE0 + v, size);
        } else if (op < 92) {                                   /* fork */
            rp_tid_t c = rnd(nt);
            if (th[c].status != 0)
                continue;
            th[c].status = 1;
            ev[n] = mk(n, t, RP_EV_FORK, c, 0);
        } else if (op < 95) {                                   /* join */
            rp_tid_t c = rnd(nt);
            if (c == t || c == 0 || th[c].status != 1 || th[c].holds[0] || th[c].holds[1])
                continue;
            th[c].status = 2;
            ev[n] = mk(n, t, RP_EV_JOIN, c, 0);
        } else if (op < 98) {                                   /* hard edge */
            ev[n] = mk(n, t, rnd(2) ? RP_EV_SYNC_SEND : RP_EV_SYNC_RECV, 7, 0);
        } else {
            ev[n] = mk(n, t, RP_EV_FORGET, BYTE0 + rnd(nv), 1);
        }
        n++;
    }
    uint32_t used = 0;
    for (uint32_t i = 0; i < n; i++) {
        used |= 1u << ev[i].tid;
        if (ev[i].kind == RP_EV_FORK || ev[i].kind == RP_EV_JOIN)
            used |= 1u << ev[i].obj;
    }
    *n_threads = (uint32_t)__builtin_popcount(used);
    return n;
}

/* ---- brute force ------------------------------------------------------------ */

typedef struct bf {
    const rp_event *ev;
    uint32_t n;
    uint32_t tcount[MAXT], tev[MAXT][MAXE], tpos[MAXE], fork_at[MAXT];
    uint32_t rf[MAXE][NBYTES], match[MAXE];
    bool pred[MAXE][MAXE];
    uint64_t seen[1 << 16];
} bf;

static bool touches(const rp_event *e, uint32_t b)
{
    return e->obj <= BYTE0 + b && BYTE0 + b < e->obj + e->size;
}

static bool writes(const rp_event *e)
{
    return e->kind == RP_EV_WRITE || e->kind == RP_EV_FORGET;
}

static bool conflicting(const rp_event *a, const rp_event *b)
{
    if (!rp_event_is_access(a) || !rp_event_is_access(b) || a->tid == b->tid)
        return false;
    if (a->kind != RP_EV_WRITE && b->kind != RP_EV_WRITE)
        return false;
    return a->obj < b->obj + b->size && b->obj < a->obj + a->size;
}

/* Conflicting and sharing a byte that no forget (fresh memory) refreshed
 * between them: the candidates of every detector (rp_offline.h). */
static bool live_conflict(const rp_event *ev, uint32_t a, uint32_t b)
{
    if (!conflicting(&ev[a], &ev[b]))
        return false;
    for (uint32_t byte = 0; byte < NBYTES; byte++) {
        if (!touches(&ev[a], byte) || !touches(&ev[b], byte))
            continue;
        bool forgotten = false;
        for (uint32_t j = a + 1; j < b; j++)
            if (ev[j].kind == RP_EV_FORGET && touches(&ev[j], byte))
                forgotten = true;
        if (!forgotten)
            return true;
    }
    return false;
}

static void bf_facts(bf *o, const rp_event *ev, uint32_t n)
{
    uint32_t last[NBYTES] = { NONE, NONE, NONE, NONE };
    memset(o->tcount, 0, sizeof o->tcount);
    o->ev = ev;
    o->n = n;
    for (uint32_t t = 0; t < MAXT; t++)
        o->fork_at[t] = NONE;
    for (uint32_t i = 0; i < n; i++) {
        const rp_event *e = &ev[i];
        o->tpos[i] = o->tcount[e->tid];
        o->tev[e->tid][o->tcount[e->tid]++] = i;
        if (e->kind == RP_EV_FORK)
            o->fork_at[e->obj] = i;
        o->match[i] = NONE;
        for (uint32_t b = 0; b < NBYTES; b++) {
            o->rf[i][b] = last[b];
            if (writes(e) && touches(e, b))
                last[b] = i;
        }
        if (e->kind == RP_EV_RELEASE || e->kind == RP_EV_RELEASE_SHARED)
            for (uint32_t j = i; j-- > 0;)
                if (ev[j].tid == e->tid && ev[j].obj == e->obj &&
                    (ev[j].kind == RP_EV_ACQUIRE || ev[j].kind == RP_EV_ACQUIRE_SHARED)) {
                    o->match[j] = i;
                    break;
                }
    }
}

static bool done(const bf *o, const uint32_t *pre, uint32_t i)
{
    return o->tpos[i] < pre[o->ev[i].tid];
}

static bool enabled(const bf *o, const uint32_t *pre, const uint32_t *lw, uint32_t i)
{
    const rp_event *ev = o->ev, *e = &ev[i];
    switch (e->kind) {
    case RP_EV_ACQUIRE:
    case RP_EV_ACQUIRE_SHARED:
        for (uint32_t j = 0; j < o->n; j++)
            if (ev[j].obj == e->obj && done(o, pre, j) &&
                (o->match[j] == NONE || !done(o, pre, o->match[j])) &&
                (ev[j].kind == RP_EV_ACQUIRE ||
                 (ev[j].kind == RP_EV_ACQUIRE_SHARED && e->kind == RP_EV_ACQUIRE)))
                return false;
        return true;
    case RP_EV_JOIN:
        return pre[e->obj] == o->tcount[e->obj];
    case RP_EV_SYNC_RECV:
        for (uint32_t j = 0; j < i; j++)
            if (ev[j].kind == RP_EV_SYNC_SEND && ev[j].obj == e->obj && !done(o, pre, j))
                return false;
        return true;
    case RP_EV_READ:
        for (uint32_t b = 0; b < NBYTES; b++)
            if (touches(e, b) && lw[b] != o->rf[i][b])
                return false;
        return true;
    default:
        return true;
    }
}

static bool seen_insert(bf *o, uint64_t key)
{
    uint32_t mask = (1u << 16) - 1, h = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & mask;
    for (;; h = (h + 1) & mask) {
        if (o->seen[h] == key + 1)
            return false;
        if (o->seen[h] == 0) {
            o->seen[h] = key + 1;
            return true;
        }
    }
}

static void explore(bf *o, const uint32_t *pre, const uint32_t *lw)
{
    uint64_t key = 0;
    for (uint32_t t = 0; t < MAXT; t++)
        key = key << 4 | pre[t];
    for (uint32_t b = 0; b < NBYTES; b++)
        key = key << 4 | (lw[b] == NONE ? 15 : lw[b]);
    if (!seen_insert(o, key))
        return;
    uint32_t next[MAXT], nn = 0;
    for (uint32_t t = 0; t < MAXT; t++)
        if (pre[t] < o->tcount[t] && (o->fork_at[t] == NONE || done(o, pre, o->fork_at[t])))
            next[nn++] = o->tev[t][pre[t]];
    for (uint32_t x = 0; x < nn; x++)
        for (uint32_t y = 0; y < nn; y++)
            if (next[x] < next[y] && conflicting(&o->ev[next[x]], &o->ev[next[y]]))
                o->pred[next[x]][next[y]] = true;
    for (uint32_t x = 0; x < nn; x++) {
        uint32_t i = next[x], pre2[MAXT], lw2[NBYTES];
        if (!enabled(o, pre, lw, i))
            continue;
        memcpy(pre2, pre, sizeof pre2);
        memcpy(lw2, lw, sizeof lw2);
        pre2[o->ev[i].tid]++;
        for (uint32_t b = 0; b < NBYTES; b++)
            if (writes(&o->ev[i]) && touches(&o->ev[i], b))
                lw2[b] = i;
        explore(o, pre2, lw2);
    }
}

static void brute_force(bf *o, const rp_event *ev, uint32_t n)
{
    uint32_t pre[MAXT] = { 0, 0, 0, 0 }, lw[NBYTES] = { NONE, NONE, NONE, NONE };
    bf_facts(o, ev, n);
    memset(o->pred, 0, sizeof o->pred);
    memset(o->seen, 0, sizeof o->seen);
    explore(o, pre, lw);
    for (uint32_t a = 0; a < n; a++)
        for (uint32_t b = a + 1; b < n; b++)
            o->pred[a][b] = o->pred[a][b] && live_conflict(ev, a, b);
}

/* ---- the detector ------------------------------------------------------------- */

typedef struct collected {
    uint8_t got[MAXE][MAXE];    /* 0 none, bit 0 reported, bit 1 confirmed, bit 2 observed */
} collected;

static void collect(void *ctx, const rp_race *race)
{
    collected *c = ctx;
    uint64_t a = race->first.id - 1, b = race->second.id - 1;
    if (a < b && b < MAXE)
        c->got[a][b] = 1 | (race->confirmed ? 2 : 0) | (race->observed ? 4 : 0);
}

static void dump(const rp_event *ev, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        fprintf(stderr, "  %2u T%u %s obj=%#llx size=%u\n", i + 1, ev[i].tid,
                rp_event_kind_name((rp_event_kind)ev[i].kind), (unsigned long long)ev[i].obj,
                ev[i].size);
}

void predict_run(const char *detector, uint64_t seed, unsigned count, bool complete_two_threads,
                 predict_totals *tot)
{
    static bf o;
    static collected c;
    rp_event ev[MAXE];
    memset(tot, 0, sizeof *tot);
    rng_state = seed;
    for (unsigned it = 0; it < count; it++) {
        uint32_t nt;
        bool shared = it % 2 == 1;
        uint32_t n = gen_trace(ev, &nt, shared);
        brute_force(&o, ev, n);
        memset(&c, 0, sizeof c);
        rp_detector_env env = { .report = collect, .report_ctx = &c, .all_pairs = true };
        rp_engine *eng = rp_engine_create(detector, &env, NULL);
        for (uint32_t i = 0; i < n; i++) {
            rp_event e = ev[i];
            rp_engine_event(eng, &e);
        }
        rp_engine_finish(eng);
        rp_engine_destroy(eng);
        bool bad = false, check_complete = complete_two_threads && nt == 2 && !shared;
        tot->traces++;
        tot->two_thread += check_complete;
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = a + 1; b < n; b++) {
                uint8_t g = c.got[a][b];
                tot->predictable += o.pred[a][b];
                if (g) {
                    tot->reported++;
                    tot->confirmed += (g & 2) != 0;
                    tot->observed += (g & 4) != 0;
                }
                if (g && (!o.pred[a][b] || !(g & 2))) {
                    fprintf(stderr, "%s: pair %u-%u reported (%s) but %s\n", detector, a + 1,
                            b + 1, g & 2 ? "confirmed" : "unconfirmed",
                            o.pred[a][b] ? "predictable" : "NOT predictable");
                    bad = true;
                }
                if (check_complete && o.pred[a][b] && !g) {
                    fprintf(stderr, "%s: two-thread trace: predictable pair %u-%u missed\n",
                            detector, a + 1, b + 1);
                    bad = true;
                }
            }
        if (bad) {
            tot->failures++;
            if (tot->failures <= 5)
                dump(ev, n);
        }
    }
}

static bf oracle_state;

void predict_seed(uint64_t seed)
{
    rng_state = seed;
}

uint32_t predict_trace(rp_event *ev, bool shared)
{
    uint32_t n_threads;
    return gen_trace(ev, &n_threads, shared);
}

void predict_oracle(const rp_event *ev, uint32_t n)
{
    brute_force(&oracle_state, ev, n);
}

bool predict_pair(uint32_t a, uint32_t b)
{
    return a < b && b < oracle_state.n && oracle_state.pred[a][b];
}
