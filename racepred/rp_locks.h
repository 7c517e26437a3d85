/* rp_locks.h — lock acquire/release events, with recursion folded away.
 *
 * The preload reports every successful lock and every unlock of a pthread
 * mutex or reader-writer lock.  A recursive mutex can be locked again by
 * its owner, and a thread may take the read side of an rwlock several
 * times; to the detectors only the outermost lock and the matching last
 * unlock are acquire and release: the inner ones change nothing about who
 * holds the lock.  This module keeps, per lock, the exclusive owner and its
 * depth, and per reader its read depth, and emits events only at depth
 * 0 <-> 1:
 *   exclusive (mutex, rwlock write side)   RP_EV_ACQUIRE / RP_EV_RELEASE
 *   shared (rwlock read side)              RP_EV_ACQUIRE_SHARED /
 *                                          RP_EV_RELEASE_SHARED
 * pthread_rwlock_unlock does not say which side it releases; the state
 * kept here does.
 *
 * For the reports ("Locks held: 1, at address 0x..."), it also keeps the
 * set of locks each thread holds (both sides), interned as a small
 * lockset id that the access helpers put in the top bits of every
 * access's site (rp_site.h), and the stack where each lock was first
 * observed (its first successful lock).
 */
#ifndef RP_LOCKS_H
#define RP_LOCKS_H

#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"
#include "rp_event.h"

void rp_locks_init(void);

/* The real lock call of `vg_tid` on `lock` succeeded. */
void rp_locks_acquired(ThreadId vg_tid, Addr lock, Bool shared);

/* `vg_tid` is about to unlock `lock` (either side). */
void rp_locks_release_pre(ThreadId vg_tid, Addr lock);

/* The lockset id of what `tid` holds now, shifted into site position
 * (rp_site_current_tag for the running thread). */
ULong rp_locks_tag(rp_tid_t tid);

/* The locks of lockset `id`, sorted, `*n` of them; NULL and 0 for the
 * empty set and for RP_SITE_LOCKSET_MAX (a set past the table's end). */
const Addr *rp_locks_lockset(UInt id, UInt *n);

/* Where `lock` was first locked, or NULL if it never was. */
ExeContext *rp_locks_first_observed(Addr lock);

#endif
