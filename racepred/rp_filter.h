/* rp_filter.h — which client code is instrumented.
 *
 * The C library and the dynamic linker synchronise their own data with
 * means racepred does not model (futex-based internal locks, the
 * loader lock, atomics behind lazy binding, the thread-stack cache, stdio
 * locks).  Instrumenting them reports races inside glibc that are not
 * races, on every multithreaded program.  Helgrind hides them by
 * suppressing every race whose top frame is in libc (default.supp);
 * racepred does not instrument that code at all: none of its loads,
 * stores or atomics become events.
 *
 * The trade-off: an access libc makes on the program's behalf (memcpy or
 * memset into a shared buffer, fread into it) is invisible, so a race
 * through such a call goes unreported, and synchronisation performed only
 * inside libc (semaphores, condition variables, barriers) is invisible too
 * until the preload wraps those calls.
 *
 * Replacement allocators (jemalloc, tcmalloc, mimalloc) are ignored by
 * default for the same reason: their fast paths use relaxed and acquire
 * atomics, which on x86 are plain loads and stores, never seen as
 * synchronisation.  On redis with jemalloc instrumented, 20 of 21 race
 * contexts were such false alarms, and memory use was 2.6 times higher
 * (docs/reliability.md).
 *
 * The set is a comma-separated list of glob patterns (`*`, `?`) matched
 * against the soname of the object the code belongs to, falling back to
 * its file name; --ignore-objects=none instruments everything.
 */
#ifndef RP_FILTER_H
#define RP_FILTER_H

#include "pub_tool_basics.h"

#define RP_FILTER_DEFAULT \
    "ld-linux*.so*,libc.so*,libjemalloc.so*,libtcmalloc*.so*,libmimalloc.so*"

/* Checks and stores the pattern list; False when it is malformed. */
Bool rp_filter_set(const HChar *patterns);

/* Whether the instruction at `guest_addr` is to be instrumented. */
Bool rp_filter_instruments(Addr guest_addr);

#endif
