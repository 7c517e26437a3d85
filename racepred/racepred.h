/* racepred.h — annotations for programs run under racepred, Valgrind's
 * data race predictor (valgrind --tool=racepred).
 *
 * Installed next to Valgrind's own headers; include it as
 *     #include <valgrind/racepred.h>
 * Outside Valgrind each macro costs a few instructions and does nothing,
 * so annotated code can ship.  Every request is checked by the tool: a
 * null object, a size beyond 2^40 bytes or an unknown request number is
 * reported once, in one line, and ignored.
 *
 *   RACEPRED_HAPPENS_BEFORE(obj)   everything this thread did so far ...
 *   RACEPRED_HAPPENS_AFTER(obj)    ... happens before what this thread
 *                                  does next, once it has passed a
 *                                  HAPPENS_AFTER on the same obj (any
 *                                  address used as a name: a flag, a queue)
 *   RACEPRED_BENIGN_RACE(addr, size)  races on [addr, addr + size) are
 *                                  intended: not reported
 *   RACEPRED_CLEAN_MEMORY(addr, size) [addr, addr + size) is fresh memory
 *                                  (a custom allocator handed it out): its
 *                                  earlier accesses race with nothing later
 *   RACEPRED_IGNORE_BEGIN()        this thread's loads and stores until the
 *   RACEPRED_IGNORE_END()          matching END are not seen at all (the
 *                                  pairs nest)
 *
 * Code annotated for Helgrind (helgrind.h) or DRD (drd.h) needs no change:
 * racepred understands their annotations too (see the manual).
 */
#ifndef RACEPRED_H
#define RACEPRED_H

#include "valgrind.h"

typedef enum {
    /* Public requests start 256 above racepred's base; the numbers below
     * are the preload's own. */
    VG_USERREQ__RACEPRED_HAPPENS_BEFORE = VG_USERREQ_TOOL_BASE('R', 'P') + 256,
    VG_USERREQ__RACEPRED_HAPPENS_AFTER,
    VG_USERREQ__RACEPRED_BENIGN_RACE,
    VG_USERREQ__RACEPRED_CLEAN_MEMORY,
    VG_USERREQ__RACEPRED_IGNORE_BEGIN,
    VG_USERREQ__RACEPRED_IGNORE_END
} Vg_RacepredClientRequest;

#define RACEPRED_HAPPENS_BEFORE(obj)                                         \
    VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__RACEPRED_HAPPENS_BEFORE,     \
                                    (obj), 0, 0, 0, 0)
#define RACEPRED_HAPPENS_AFTER(obj)                                          \
    VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__RACEPRED_HAPPENS_AFTER,      \
                                    (obj), 0, 0, 0, 0)
#define RACEPRED_BENIGN_RACE(addr, size)                                     \
    VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__RACEPRED_BENIGN_RACE,        \
                                    (addr), (size), 0, 0, 0)
#define RACEPRED_CLEAN_MEMORY(addr, size)                                    \
    VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__RACEPRED_CLEAN_MEMORY,       \
                                    (addr), (size), 0, 0, 0)
#define RACEPRED_IGNORE_BEGIN()                                              \
    VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__RACEPRED_IGNORE_BEGIN,       \
                                    0, 0, 0, 0, 0)
#define RACEPRED_IGNORE_END()                                                \
    VALGRIND_DO_CLIENT_REQUEST_STMT(VG_USERREQ__RACEPRED_IGNORE_END,         \
                                    0, 0, 0, 0, 0)

#endif
