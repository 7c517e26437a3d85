/* rp_engine.h — runs a set of detectors over one event stream.
 *
 * The engine numbers events (rp_event.id), fans each one out to every
 * enabled detector, and forwards their races to one report function.  Front
 * ends build an rp_event and call rp_engine_event(); that is all they know
 * about detectors.
 */
#ifndef RP_ENGINE_H
#define RP_ENGINE_H

#include "rp_detector.h"

typedef struct rp_engine rp_engine;

/* `detectors` is a comma-separated list of names ("hb", "hb,wcp").  On an
 * unknown or duplicate name returns NULL and points *bad_name at a copy of
 * the offending name (owned by the caller, free with rp_free). */
rp_engine *rp_engine_create(const char *detectors, const rp_detector_env *env,
                            char **bad_name);
void rp_engine_destroy(rp_engine *eng);

/* Checks a detector list without creating anything; same contract. */
bool rp_engine_check_list(const char *detectors, char **bad_name);

/* True when some enabled detector wants RP_EV_BRANCH events. */
bool rp_engine_needs_branches(const rp_engine *eng);

/* Assigns e->id (next position) and dispatches. */
void rp_engine_event(rp_engine *eng, rp_event *e);

/* End of stream: every detector's finish(). */
void rp_engine_finish(rp_engine *eng);

uint64_t rp_engine_event_count(const rp_engine *eng);

#endif
