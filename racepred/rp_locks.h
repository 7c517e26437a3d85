/* rp_locks.h — mutex acquire/release events, with recursion folded away.
 *
 * The preload reports every successful lock and every unlock of a pthread
 * mutex.  A recursive mutex can be locked again by its owner; to the
 * detectors only the outermost lock and the matching last unlock are
 * acquire and release: the inner ones change nothing about which thread
 * holds the lock.  This module keeps, per mutex, its owner and lock depth,
 * and emits RP_EV_ACQUIRE / RP_EV_RELEASE only at depth 0 <-> 1.
 */
#ifndef RP_LOCKS_H
#define RP_LOCKS_H

#include "pub_tool_basics.h"

void rp_locks_init(void);

/* The real lock call of `vg_tid` on `mutex` succeeded. */
void rp_locks_acquired(ThreadId vg_tid, Addr mutex);

/* `vg_tid` is about to unlock `mutex`. */
void rp_locks_release_pre(ThreadId vg_tid, Addr mutex);

#endif
