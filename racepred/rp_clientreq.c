/* rp_clientreq.c — every client request racepred understands, in one place.
 *
 * Two families:
 *   racepred's own, from the preload (rp_intercepts.c); their numbers and
 *   arguments are listed in rp_clientreq.h;
 *   the user annotations of Valgrind's helgrind.h that have a meaning in
 *   racepred's event stream, so that code annotated for Helgrind (or DRD,
 *   which accepts them too) needs no change:
 *     ANNOTATE_HAPPENS_BEFORE(obj)   RP_EV_SYNC_SEND(obj)
 *     ANNOTATE_HAPPENS_AFTER(obj)    RP_EV_SYNC_RECV(obj)
 *     VALGRIND_HG_CLEAN_MEMORY(a,n)  RP_EV_FORGET(a, n)
 *     ANNOTATE_BENIGN_RACE_SIZED,    races on the range are not reported
 *     VALGRIND_HG_DISABLE_CHECKING   (rp_errors_ignore_range)
 *     VALGRIND_HG_ENABLE_CHECKING    reported again
 *   Other helgrind.h requests are left unhandled (Valgrind says so once).
 * Each request is turned into a call of the module that owns the concern
 * (threads, locks, heap) or directly into an event.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_tooliface.h"

#include "helgrind.h"
#include "rp_clientreq.h"
#include "rp_errors.h"
#include "rp_heap.h"
#include "rp_locks.h"
#include "rp_threads.h"
#include "rp_tool.h"

static Bool preload_seen;

static Bool handle_helgrind_request(ThreadId tid, UWord *arg, UWord *ret)
{
    switch (arg[0]) {
    case _VG_USERREQ__HG_USERSO_SEND_PRE:
        rp_tool_emit(RP_EV_SYNC_SEND, rp_threads_of_vg(tid), arg[1], 0, 0);
        break;
    case _VG_USERREQ__HG_USERSO_RECV_POST:
        rp_tool_emit(RP_EV_SYNC_RECV, rp_threads_of_vg(tid), arg[1], 0, 0);
        break;
    case VG_USERREQ__HG_CLEAN_MEMORY:
        rp_tool_emit(RP_EV_FORGET, rp_threads_of_vg(tid), arg[1],
                     arg[2] > UINT32_MAX ? UINT32_MAX : (uint32_t)arg[2], 0);
        break;
    case _VG_USERREQ__HG_ARANGE_MAKE_UNTRACKED:
        rp_errors_ignore_range(arg[1], arg[2]);
        break;
    case _VG_USERREQ__HG_ARANGE_MAKE_TRACKED:
        rp_errors_track_range(arg[1], arg[2]);
        break;
    default:
        return False;
    }
    *ret = 0;
    return True;
}

static Bool handle_client_request(ThreadId tid, UWord *arg, UWord *ret)
{
    if (VG_IS_TOOL_USERREQ('H', 'G', arg[0]))
        return handle_helgrind_request(tid, arg, ret);
    if (!VG_IS_TOOL_USERREQ('R', 'P', arg[0]))
        return False;

    switch ((rp_userreq)arg[0]) {
    case RP_USERREQ_PRELOAD_HELLO:
        preload_seen = True;
        break;
    case RP_USERREQ_THREAD_CREATED:
        rp_threads_created(tid, arg[1]);
        break;
    case RP_USERREQ_JOIN_PRE:
        rp_threads_join_pre(tid, arg[1]);
        break;
    case RP_USERREQ_LOCK_ACQUIRED:
        rp_locks_acquired(tid, arg[1], arg[2] != 0);
        break;
    case RP_USERREQ_LOCK_RELEASE_PRE:
        rp_locks_release_pre(tid, arg[1]);
        break;
    case RP_USERREQ_HEAP_BLOCK_NEW:
        rp_heap_block_new(tid, arg[1], arg[2], arg[3]);
        break;
    case RP_USERREQ_HEAP_BLOCK_RESIZED:
        rp_heap_block_resized(arg[1], arg[2]);
        break;
    case RP_USERREQ_HEAP_BLOCK_FREE:
        rp_heap_block_free(arg[1]);
        break;
    case RP_USERREQ_SYNC_SEND:
        rp_tool_emit(RP_EV_SYNC_SEND, rp_threads_of_vg(tid), arg[1], 0, 0);
        break;
    case RP_USERREQ_SYNC_RECV:
        rp_tool_emit(RP_EV_SYNC_RECV, rp_threads_of_vg(tid), arg[1], 0, 0);
        break;
    default:
        return False;
    }
    *ret = 0;
    return True;
}

void rp_clientreq_init(void)
{
    VG_(needs_client_requests)(handle_client_request);
}

/* A missing vgpreload_racepred-<platform>.so is not an error for Valgrind:
 * the run goes on without a single lock or join event, and every
 * synchronised program would look racy.  Say so. */
void rp_clientreq_check_preload(void)
{
    if (!preload_seen)
        VG_(umsg)("racepred: warning: the preload vgpreload_racepred was not "
                  "loaded; pthread calls were not seen and reports are unreliable\n");
}
