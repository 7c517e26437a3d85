/* rp_annotations.h — the user annotations racepred understands: those of
 * its own header racepred.h, and those of Valgrind's helgrind.h and drd.h,
 * so that code annotated for Helgrind or DRD works unchanged.
 *
 *   request                                   becomes
 *   RACEPRED_HAPPENS_BEFORE, ANNOTATE_HAPPENS_BEFORE (helgrind.h, drd.h),
 *   ANNOTATE_SEM_POST_PRE (drd.h)             RP_EV_SYNC_SEND(obj)
 *   RACEPRED_HAPPENS_AFTER, ANNOTATE_HAPPENS_AFTER,
 *   ANNOTATE_SEM_WAIT_POST (drd.h)            RP_EV_SYNC_RECV(obj)
 *   RACEPRED_CLEAN_MEMORY, VALGRIND_HG_CLEAN_MEMORY,
 *   ANNOTATE_NEW_MEMORY (drd.h)               RP_EV_FORGET(range)
 *   RACEPRED_BENIGN_RACE, ANNOTATE_BENIGN_RACE(_SIZED), DRD_IGNORE_VAR,
 *   VALGRIND_HG_DISABLE_CHECKING              races on the range are not
 *                                             reported (rp_errors)
 *   DRD_STOP_IGNORING_VAR, VALGRIND_HG_ENABLE_CHECKING   reported again
 *   RACEPRED_IGNORE_BEGIN/END, ANNOTATE_IGNORE_READS/WRITES_BEGIN/END
 *   (drd.h)                                   the thread's loads and/or
 *                                             stores are not seen
 *   ANNOTATE_RWLOCK_ACQUIRED/RELEASED (drd.h) a lock acquire / release
 *   DRD_GET_VALGRIND_THREADID, DRD_GET_DRD_THREADID   answered
 *   ANNOTATE_THREAD_NAME, ANNOTATE_RWLOCK_CREATE/DESTROY,
 *   ANNOTATE_SEM_INIT_PRE/DESTROY_POST/WAIT_PRE, DRD_TRACE_VAR   accepted,
 *                                             no effect
 * Arguments are checked: a null object, a size beyond 2^40 bytes, an END
 * without BEGIN, or an unknown request number in racepred's range is
 * reported once per request kind, in one line, and ignored.  Other
 * helgrind.h and drd.h requests are left to Valgrind, which says once that
 * the tool did not handle them.
 */
#ifndef RP_ANNOTATIONS_H
#define RP_ANNOTATIONS_H

#include "pub_tool_basics.h"

/* Handles the request if it is an annotation; False otherwise. */
Bool rp_annotations_handle(ThreadId tid, UWord *arg, UWord *ret);

/* A request number in racepred's range that nothing knows: says so once. */
void rp_annotations_unknown(UWord request);

#endif
