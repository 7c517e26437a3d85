/* rp_engine.c — fans the event stream out to the enabled detectors
 * (rp_engine.h).
 *
 * Each enabled detector gets a table of its callbacks indexed by event kind,
 * built once, so dispatching an event is one indexed load and a call per
 * detector; with a single detector its table (NULL entries replaced by a
 * no-op) is copied into the engine for the inline rp_engine_event.  Races go straight to the environment's report function.
 */
#include "rp_engine.h"

#include "rp_shim.h"
#include "rp_window.h"

/* With a window, predictive detectors report to the engine, which tries a
 * witness for each unconfirmed, unobserved race before forwarding it. */
struct rp_engine_confirm {
    rp_detector_env env;        /* what the detectors see */
    rp_race_fn report;          /* the front end's */
    void *report_ctx;
    rp_window *window;
    bool hb_too;                /* hb runs: observed races are its to report */
};

static void confirm_and_report(void *ctx, const rp_race *race)
{
    struct rp_engine_confirm *c = ctx;
    /* One report per race: when hb runs beside predictive detectors, the
     * races this run shows (HB-unordered) are hb's to report; the others
     * add only the predicted ones. */
    if (race->observed && c->hb_too && rp_strcmp(race->detector, "hb") != 0)
        return;
    if (race->observed || race->confirmed) {
        c->report(c->report_ctx, race);
        return;
    }
    rp_race r = *race;
    r.witness = NULL;
    rp_window_confirm(c->window, &r);
    c->report(c->report_ctx, &r);
}

struct rp_engine_detector {
    const rp_detector_ops *ops;
    void *self;
    rp_event_fn on_event[RP_EV_KIND_COUNT];
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

static void setup_detector(rp_engine_detector *d, const rp_detector_ops *ops,
                           const rp_detector_env *env)
{
    d->ops = ops;
    d->self = ops->create(env);
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

rp_engine *rp_engine_create(const char *detectors, const rp_detector_env *env,
                            char **bad_name)
{
    unsigned n;
    const rp_detector_ops **found = resolve(detectors, &n, bad_name);
    if (found == NULL)
        return NULL;
    rp_engine *eng = rp_calloc("rp.engine", 1, sizeof *eng);
    eng->detectors = rp_calloc("rp.engine.detectors", n, sizeof *eng->detectors);
    eng->n_detectors = n;
    bool predictive = false;
    for (unsigned i = 0; i < n; i++)
        predictive |= found[i]->predictive;
    if (predictive && env->window != 0) {
        struct rp_engine_confirm *c = rp_calloc("rp.engine.confirm", 1, sizeof *c);
        c->env = *env;
        c->env.report = confirm_and_report;
        c->env.report_ctx = c;
        c->report = env->report;
        c->report_ctx = env->report_ctx;
        c->window = eng->window = rp_window_create(env->window);
        for (unsigned i = 0; i < n; i++)
            c->hb_too |= rp_strcmp(found[i]->name, "hb") == 0;
        eng->confirm = c;
        env = &c->env;
    }
    for (unsigned i = 0; i < n; i++) {
        setup_detector(&eng->detectors[i], found[i], env);
        eng->needs_branches |= found[i]->needs_branches;
    }
    bool repeat_safe = env->skip_repeats && !env->all_pairs;
    for (unsigned i = 0; i < n; i++)
        repeat_safe &= found[i]->repeat_safe;
    if (repeat_safe)
        eng->repeats = repeats_create();
    eng->single = n == 1 && eng->window == NULL;
    if (eng->single) {
        eng->single_self = eng->detectors[0].self;
        for (unsigned k = 0; k < RP_EV_KIND_COUNT; k++) {
            rp_event_fn fn = eng->detectors[0].on_event[k];
            eng->single_fn[k] = fn != NULL ? fn : ignore_event;
        }
    }
    rp_free(found);
    return eng;
}

void rp_engine_destroy(rp_engine *eng)
{
    if (eng == NULL)
        return;
    for (unsigned i = 0; i < eng->n_detectors; i++)
        eng->detectors[i].ops->destroy(eng->detectors[i].self);
    rp_free(eng->detectors);
    rp_window_destroy(eng->window);
    repeats_destroy(eng->repeats);
    rp_free(eng->confirm);
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
}

void rp_engine_window_only(rp_engine *eng, rp_event *e)
{
    e->id = ++eng->n_events;
    rp_window_append(eng->window, e);
}

void rp_engine_finish(rp_engine *eng)
{
    for (unsigned i = 0; i < eng->n_detectors; i++)
        if (eng->detectors[i].ops->finish != NULL)
            eng->detectors[i].ops->finish(eng->detectors[i].self);
}

uint64_t rp_engine_event_count(const rp_engine *eng)
{
    return eng->n_events;
}

uint64_t rp_engine_repeats_dropped(const rp_engine *eng)
{
    return eng->repeats != NULL ? eng->repeats->dropped : 0;
}

struct rp_window *rp_engine_window(const rp_engine *eng)
{
    return eng->window;
}
