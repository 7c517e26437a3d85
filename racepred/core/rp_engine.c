/* rp_engine.c — fans the event stream out to the enabled detectors
 * (rp_engine.h).
 *
 * Each enabled detector gets a table of its callbacks indexed by event kind,
 * built once, so dispatching an event is one indexed load and a call per
 * detector; with a single detector its table (NULL entries replaced by a
 * no-op) is copied into the engine for the inline rp_engine_event.
 *
 * Races come back to the engine (each detector reports through its own
 * source, which knows the detector), which tries a witness for each
 * unconfirmed, unobserved one when it keeps a window, and forwards them to
 * the front end — with merging on, once per code-location pair and event,
 * naming every detector that reported the pair.
 */
#include "rp_engine.h"

#include "rp_array.h"
#include "rp_shim.h"
#include "rp_window.h"

/* A race as one detector reported it, waiting for the end of the event. */
typedef struct pending_race {
    rp_race race;
    uint32_t found_by;
} pending_race;

struct rp_engine_reports {
    rp_race_fn report;          /* the front end's */
    void *report_ctx;
    rp_window *window;          /* NULL: no witnesses tried */
    bool merge;                 /* several detectors, merging on */
    pending_race *pending;
    uint32_t n_pending, cap_pending;
    uint32_t found_by;          /* of the race being forwarded */
};

/* What a detector's env.report_ctx points at. */
struct rp_engine_source {
    struct rp_engine_reports *reports;
    uint32_t bit;               /* 1 << the detector's registry index */
    /* When it stands in for hb (covers_hb): its observed races are hb's
     * too, reported under hb's name as hb would have reported them. */
    uint32_t observed_bit;
    const char *observed_name;
};

/* Observed beats confirmed beats neither (the report's status). */
static int strength(const rp_race *race)
{
    return race->observed ? 2 : race->confirmed ? 1 : 0;
}

static void forward(struct rp_engine_reports *r, const rp_race *race, uint32_t found_by)
{
    r->found_by = found_by;
    r->report(r->report_ctx, race);
    r->found_by = 0;
}

/* Tries a witness for a race neither observed nor confirmed (window kept);
 * true if it is observed or confirmed now.  race->witness is valid until
 * the next try. */
static bool try_confirm(struct rp_engine_reports *r, rp_race *race)
{
    if (strength(race) > 0)
        return true;
    race->witness = NULL;
    if (r->window == NULL)
        return false;
    rp_window_confirm(r->window, race);
    return race->confirmed;
}

static void collect(void *ctx, const rp_race *race)
{
    struct rp_engine_source *src = ctx;
    struct rp_engine_reports *r = src->reports;
    rp_race copy = *race;
    uint32_t found_by = src->bit;
    copy.witness = NULL;
    if (race->observed && src->observed_bit != 0) {
        copy.detector = src->observed_name;
        found_by |= src->observed_bit;
    }
    if (!r->merge) {
        try_confirm(r, &copy);
        forward(r, &copy, found_by);
        return;
    }
    r->pending = rp_array_reserve_from("rp.engine.pending", r->pending, r->n_pending,
                                       &r->cap_pending, sizeof *r->pending, 8);
    r->pending[r->n_pending].race = copy;
    r->pending[r->n_pending].found_by = found_by;
    r->n_pending++;
}

/* The code-location pair of a race, as the front end deduplicates it. */
static bool same_pair(const rp_race *a, const rp_race *b)
{
    return a->first.site == b->first.site && a->second.site == b->second.site
        && a->first.is_write == b->first.is_write && a->second.is_write == b->second.is_write;
}

/* Forwards pending[head] merged with every later pending race of its pair
 * (marked done): found by all of their detectors, with the strongest
 * status any of them has or a witness gives.  Each candidate of the pair
 * is tried until one is confirmed (their earlier accesses may differ). */
static void forward_pair(struct rp_engine_reports *r, uint32_t head, bool *done)
{
    uint32_t best = head;
    uint32_t found_by = 0;
    for (uint32_t i = head; i < r->n_pending; i++) {
        if (done[i] || !same_pair(&r->pending[head].race, &r->pending[i].race))
            continue;
        done[i] = true;
        found_by |= r->pending[i].found_by;
        if (strength(&r->pending[i].race) > strength(&r->pending[best].race))
            best = i;
    }
    for (uint32_t i = head; strength(&r->pending[best].race) == 0 && i < r->n_pending; i++)
        if (same_pair(&r->pending[head].race, &r->pending[i].race)
            && try_confirm(r, &r->pending[i].race))
            best = i;
    forward(r, &r->pending[best].race, found_by);
}

/* End of an event (or of the stream): one report per code-location pair.
 * The races of one event are a handful, so pairs are found by scanning. */
static void flush(struct rp_engine_reports *r)
{
    if (r->n_pending == 0)
        return;
    bool *done = rp_calloc("rp.engine.done", r->n_pending, sizeof *done);
    for (uint32_t i = 0; i < r->n_pending; i++)
        if (!done[i])
            forward_pair(r, i, done);
    rp_free(done);
    r->n_pending = 0;
}

struct rp_engine_detector {
    const rp_detector_ops *ops;
    void *self;
    rp_event_fn on_event[RP_EV_KIND_COUNT];
    rp_detector_env env;            /* what the detector sees */
    struct rp_engine_source *source; /* its own allocation: detectors keep
                                      * the pointer, the array may move */
};

static void ignore_event(void *self, const rp_event *e)
{
    (void)self;
    (void)e;
}

static const char *const kind_names[RP_EV_KIND_COUNT] = {
    [RP_EV_READ] = "read",
    [RP_EV_WRITE] = "write",
    [RP_EV_ACQUIRE] = "acquire",
    [RP_EV_RELEASE] = "release",
    [RP_EV_ACQUIRE_SHARED] = "acquire_shared",
    [RP_EV_RELEASE_SHARED] = "release_shared",
    [RP_EV_FORK] = "fork",
    [RP_EV_JOIN] = "join",
    [RP_EV_BRANCH] = "branch",
    [RP_EV_SYNC_SEND] = "sync_send",
    [RP_EV_SYNC_RECV] = "sync_recv",
    [RP_EV_FORGET] = "forget",
};

const char *rp_event_kind_name(rp_event_kind kind)
{
    return (unsigned)kind < RP_EV_KIND_COUNT ? kind_names[kind] : "unknown";
}

static char *copy_name(const char *start, size_t len)
{
    char *name = rp_malloc("rp.engine.name", len + 1);
    rp_memcpy(name, start, len);
    name[len] = '\0';
    return name;
}

/* Looks up each comma-separated name into found[]; stops and returns false
 * (with *bad_name set if wanted) on an unknown, repeated or empty name. */
static bool resolve_list(const char *list, const rp_detector_ops **found, unsigned *n_found,
                         char **bad_name)
{
    const char *start = list;
    *n_found = 0;
    for (;;) {
        const char *end = start;
        while (*end != '\0' && *end != ',')
            end++;
        char *name = copy_name(start, (size_t)(end - start));
        const rp_detector_ops *ops = rp_detector_find(name);
        for (unsigned i = 0; ops != NULL && i < *n_found; i++)
            if (found[i] == ops)
                ops = NULL;
        if (ops == NULL) {
            if (bad_name != NULL)
                *bad_name = name;
            else
                rp_free(name);
            return false;
        }
        rp_free(name);
        found[(*n_found)++] = ops;
        if (*end == '\0')
            return true;
        start = end + 1;
    }
}

static const rp_detector_ops **resolve(const char *list, unsigned *n_found, char **bad_name)
{
    const rp_detector_ops **found =
        rp_calloc("rp.engine.list", rp_detector_count(), sizeof *found);
    if (bad_name != NULL)
        *bad_name = NULL;
    if (!resolve_list(list, found, n_found, bad_name)) {
        rp_free(found);
        return NULL;
    }
    return found;
}

bool rp_engine_check_list(const char *detectors, char **bad_name)
{
    unsigned n;
    const rp_detector_ops **found = resolve(detectors, &n, bad_name);
    rp_free(found);
    return found != NULL;
}

static void setup_detector(rp_engine_detector *d, const rp_detector_ops *ops)
{
    d->ops = ops;
    d->self = ops->create(&d->env);
    d->on_event[RP_EV_READ] = ops->read;
    d->on_event[RP_EV_WRITE] = ops->write;
    d->on_event[RP_EV_ACQUIRE] = ops->acquire;
    d->on_event[RP_EV_RELEASE] = ops->release;
    d->on_event[RP_EV_ACQUIRE_SHARED] = ops->acquire_shared;
    d->on_event[RP_EV_RELEASE_SHARED] = ops->release_shared;
    d->on_event[RP_EV_FORK] = ops->fork;
    d->on_event[RP_EV_JOIN] = ops->join;
    d->on_event[RP_EV_BRANCH] = ops->branch;
    d->on_event[RP_EV_SYNC_SEND] = ops->sync_send;
    d->on_event[RP_EV_SYNC_RECV] = ops->sync_recv;
    d->on_event[RP_EV_FORGET] = ops->forget;
}

static uint32_t registry_bit(const rp_detector_ops *ops)
{
    for (unsigned i = 0; i < rp_detector_count(); i++)
        if (rp_detector_at(i) == ops)
            return 1u << i;
    return 0;
}

/* With one detector, no window and no reports to merge at the end of
 * each event, events go straight to it. */
static void set_single(rp_engine *eng)
{
    eng->single = eng->n_detectors == 1 && eng->window == NULL && !eng->reports->merge;
    if (!eng->single)
        return;
    eng->single_self = eng->detectors[0].self;
    for (unsigned k = 0; k < RP_EV_KIND_COUNT; k++) {
        rp_event_fn fn = eng->detectors[0].on_event[k];
        eng->single_fn[k] = fn != NULL ? fn : ignore_event;
    }
}

rp_engine *rp_engine_create(const char *detectors, const rp_detector_env *env,
                            char **bad_name)
{
    unsigned n;
    const rp_detector_ops **found = resolve(detectors, &n, bad_name);
    if (found == NULL)
        return NULL;
    rp_assert(rp_detector_count() <= 32);
    rp_engine *eng = rp_calloc("rp.engine", 1, sizeof *eng);
    eng->detectors = rp_calloc("rp.engine.detectors", n, sizeof *eng->detectors);
    eng->n_detectors = n;
    struct rp_engine_reports *r = rp_calloc("rp.engine.reports", 1, sizeof *r);
    r->report = env->report;
    r->report_ctx = env->report_ctx;
    eng->reports = r;
    bool predictive = false;
    for (unsigned i = 0; i < n; i++)
        predictive |= found[i]->predictive;
    if (predictive && env->window != 0)
        r->window = eng->window = rp_window_create(env->window);
    for (unsigned i = 0; i < n; i++) {
        rp_engine_detector *d = &eng->detectors[i];
        d->source = rp_calloc("rp.engine.source", 1, sizeof *d->source);
        d->source->reports = r;
        d->source->bit = registry_bit(found[i]);
        d->env = *env;
        d->env.sites_suffice = env->sites_suffice && eng->window == NULL;
        d->env.report = collect;
        d->env.report_ctx = d->source;
        setup_detector(d, found[i]);
        eng->needs_branches |= found[i]->needs_branches;
    }
    bool repeat_safe = env->skip_repeats && !env->all_pairs;
    for (unsigned i = 0; i < n; i++)
        repeat_safe &= found[i]->repeat_safe;
    if (repeat_safe)
        eng->repeats = repeats_create();
    set_single(eng);
    rp_free(found);
    return eng;
}

/* A detector that covers hb, or NULL. */
static rp_engine_detector *covering_hb(rp_engine *eng)
{
    for (unsigned i = 0; i < eng->n_detectors; i++)
        if (eng->detectors[i].ops->covers_hb)
            return &eng->detectors[i];
    return NULL;
}

/* With merged reports hb adds nothing a covering detector does not report
 * (rp_detector_ops.covers_hb): its cells are a subset of the covering
 * detector's — whatever an access evicts under the smaller order it
 * evicts under HB — so every partner hb finds, the covering detector finds
 * and calls observed.  hb goes, and the covering detector's observed
 * races name hb too: the default hb,wcp then keeps one shadow, one cell
 * set and one race check per access instead of two.  Its observed races
 * that hb itself would not have paired (hb evicted that partner for a
 * later one) are HB races all the same. */
static void drop_covered_hb(rp_engine *eng)
{
    const rp_detector_ops *hb = rp_detector_find("hb");
    rp_engine_detector *cover = covering_hb(eng);
    if (hb == NULL || cover == NULL || cover->env.all_pairs)
        return;
    for (unsigned i = 0; i < eng->n_detectors; i++) {
        if (eng->detectors[i].ops != hb)
            continue;
        hb->destroy(eng->detectors[i].self);
        rp_free(eng->detectors[i].source);
        for (unsigned j = i; j + 1 < eng->n_detectors; j++)
            eng->detectors[j] = eng->detectors[j + 1];
        eng->n_detectors--;
        covering_hb(eng)->source->observed_bit = registry_bit(hb);
        covering_hb(eng)->source->observed_name = hb->name;
        return;
    }
}

void rp_engine_merge_reports(rp_engine *eng)
{
    eng->reports->merge = eng->n_detectors > 1;
    if (eng->reports->merge)
        drop_covered_hb(eng);
}

uint32_t rp_engine_found_by(const rp_engine *eng)
{
    return eng->reports->found_by;
}

void rp_engine_destroy(rp_engine *eng)
{
    if (eng == NULL)
        return;
    for (unsigned i = 0; i < eng->n_detectors; i++) {
        eng->detectors[i].ops->destroy(eng->detectors[i].self);
        rp_free(eng->detectors[i].source);
    }
    rp_free(eng->detectors);
    rp_window_destroy(eng->window);
    repeats_destroy(eng->repeats);
    rp_free(eng->reports->pending);
    rp_free(eng->reports);
    rp_free(eng);
}

bool rp_engine_needs_branches(const rp_engine *eng)
{
    return eng->needs_branches;
}

void rp_engine_dispatch(rp_engine *eng, rp_event *e)
{
    rp_assert(e->kind < RP_EV_KIND_COUNT);
    if (eng->window != NULL)
        rp_window_append(eng->window, e);
    for (unsigned i = 0; i < eng->n_detectors; i++) {
        rp_event_fn fn = eng->detectors[i].on_event[e->kind];
        if (fn != NULL)
            fn(eng->detectors[i].self, e);
    }
    flush(eng->reports);
}

static void append_rewrite(void *ctx, rp_tid_t tid, uint64_t addr, uint32_t size)
{
    rp_engine *eng = ctx;
    rp_event e = { .id = ++eng->n_events, .obj = addr, .tid = tid, .size = size,
                   .kind = RP_EV_WRITE };
    rp_window_append(eng->window, &e);
}

void rp_engine_flush_rewrites(rp_engine *eng)
{
    repeats_flush_rewrites(eng->repeats, append_rewrite, eng);
}

void rp_engine_list_rewrite(rp_engine *eng, rp_tid_t tid, rp_repeat_slot *s, uint64_t addr)
{
    if (eng->repeats->n_rewritten != 0 && eng->repeats->rewriter != tid)
        rp_engine_flush_rewrites(eng);
    if (repeats_list_rewrite(eng->repeats, tid, s, addr))
        rp_engine_flush_rewrites(eng);
}

bool rp_engine_drop_granules(rp_engine *eng, rp_tid_t tid, uint64_t addr, uint32_t size,
                             bool is_write, bool mark)
{
    if (!repeats_granules_repeat(eng->repeats, tid, addr, size, is_write))
        return false;
    if (is_write && mark)
        for (uint64_t a = addr; a < addr + size; a = (a | (RP_SHADOW_GRANULE_SIZE - 1)) + 1)
            rp_engine_dropped_write(eng, tid,
                                    repeats_slot_of(eng->repeats, tid, a, 1, is_write), a);
    return true;
}

void rp_engine_thread_end(rp_engine *eng, rp_tid_t tid)
{
    if (eng->repeats != NULL && eng->repeats->n_rewritten != 0
        && eng->repeats->rewriter == tid)
        rp_engine_flush_rewrites(eng);
    for (unsigned i = 0; i < eng->n_detectors; i++)
        if (eng->detectors[i].ops->thread_end != NULL)
            eng->detectors[i].ops->thread_end(eng->detectors[i].self, tid);
}

void rp_engine_thread_gone(rp_engine *eng, rp_tid_t tid)
{
    for (unsigned i = 0; i < eng->n_detectors; i++)
        if (eng->detectors[i].ops->thread_gone != NULL)
            eng->detectors[i].ops->thread_gone(eng->detectors[i].self, tid);
}

rp_tid_t rp_engine_last_writer(const rp_engine *eng, uint64_t addr)
{
    for (unsigned i = 0; i < eng->n_detectors; i++)
        if (eng->detectors[i].ops->last_writer != NULL)
            return eng->detectors[i].ops->last_writer(eng->detectors[i].self, addr);
    return RP_NO_WRITER;
}

void rp_engine_seen_parts(const rp_engine *eng, uint64_t addr, uint64_t size, rp_range_fn fn,
                          void *ctx)
{
    if (eng->repeats == NULL)
        fn(ctx, addr, size);
    else
        repeats_seen_parts(eng->repeats, addr, size, fn, ctx);
}

void rp_engine_kept(const rp_engine *eng, rp_history_stats *stats)
{
    rp_memset(stats, 0, sizeof *stats);
    for (unsigned i = 0; i < eng->n_detectors; i++)
        if (eng->detectors[i].ops->kept != NULL)
            eng->detectors[i].ops->kept(eng->detectors[i].self, stats);
}

void rp_engine_finish(rp_engine *eng)
{
    for (unsigned i = 0; i < eng->n_detectors; i++)
        if (eng->detectors[i].ops->finish != NULL)
            eng->detectors[i].ops->finish(eng->detectors[i].self);
    flush(eng->reports);
}

uint64_t rp_engine_event_count(const rp_engine *eng)
{
    return eng->n_events;
}

uint64_t rp_engine_repeats_dropped(const rp_engine *eng)
{
    return eng->repeats != NULL ? eng->repeats->dropped : 0;
}

uint64_t rp_engine_recvs_dropped(const rp_engine *eng)
{
    return eng->repeats != NULL ? eng->repeats->recvs_dropped : 0;
}

struct rp_window *rp_engine_window(const rp_engine *eng)
{
    return eng->window;
}
