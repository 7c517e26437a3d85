/* rp_clientreq.c — every client request racepred receives, in one place.
 *
 * Two families:
 *   racepred's own protocol with the preload (rp_intercepts*.c); their
 *   numbers and arguments are listed in rp_clientreq.h, and each becomes a
 *   call of the module that owns the concern (threads, locks, heap) or
 *   directly an event;
 *   the user annotations of racepred.h, helgrind.h and drd.h, handled by
 *   rp_annotations.c.
 * A number in racepred's range that is neither is reported once and
 * ignored.
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_tooliface.h"

#include "rp_annotations.h"
#include "rp_barriers.h"
#include "rp_clientreq.h"
#include "rp_heap.h"
#include "rp_instrument.h"
#include "rp_locks.h"
#include "rp_tasks.h"
#include "rp_threads.h"
#include "rp_tool.h"

static Bool preload_seen;

static Bool handle_client_request(ThreadId tid, UWord *arg, UWord *ret)
{
    if (rp_annotations_handle(tid, arg, ret))
        return True;
    if (!VG_IS_TOOL_USERREQ('R', 'P', arg[0]))
        return False;

    switch ((rp_userreq)arg[0]) {
    case RP_USERREQ_PRELOAD_HELLO:
        preload_seen = True;
        rp_instrument_set_announce_sites((const Addr *)arg[1], (const Addr *)arg[2]);
        rp_threads_self(tid, arg[3]);
        break;
    case RP_USERREQ_THREAD_CREATED:
        rp_threads_created(tid, arg[1], arg[2] != 0);
        break;
    case RP_USERREQ_THREAD_HANDS:
        rp_threads_hands(tid, True, arg[1], arg[2]);
        break;
    case RP_USERREQ_THREAD_HANDED:
        rp_threads_hands(tid, False, 0, 0);
        break;
    case RP_USERREQ_THREAD_DETACH:
        rp_threads_detach(tid, arg[1], arg[2] != 0);
        break;
    case RP_USERREQ_JOIN_PRE:
        rp_threads_join_pre(tid, arg[1]);
        break;
    case RP_USERREQ_JOIN_DONE:
        rp_threads_join_done(tid, arg[1]);
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
        rp_heap_block_resized(tid, arg[1], arg[2], arg[3]);
        break;
    case RP_USERREQ_HEAP_BLOCK_FREE:
        rp_heap_block_free(tid, arg[1], arg[2]);
        break;
    case RP_USERREQ_HEAP_BLOCK_MOVED:
        rp_heap_block_moved(tid, arg[1], arg[2], arg[3], arg[4], arg[5]);
        break;
    case RP_USERREQ_SYNC_SEND:
        rp_tool_emit(RP_EV_SYNC_SEND, rp_threads_of_vg(tid), arg[1], 0, 0);
        break;
    case RP_USERREQ_SYNC_RECV:
        rp_tool_emit(RP_EV_SYNC_RECV, rp_threads_of_vg(tid), arg[1], 0, 0);
        break;
    case RP_USERREQ_BARRIER_INIT:
        rp_barriers_init_barrier(arg[1], arg[2]);
        break;
    case RP_USERREQ_BARRIER_ARRIVE:
        *ret = rp_barriers_arrive(tid, arg[1]);
        return True;
    case RP_USERREQ_BARRIER_DEPART:
        rp_barriers_depart(tid, arg[1], arg[2]);
        break;
    case RP_USERREQ_BARRIER_DESTROY:
        rp_barriers_destroy(arg[1]);
        break;
    case RP_USERREQ_SWITCHES:
        *ret = rp_threads_switches;
        return True;
    case RP_USERREQ_TASK_CREATE:
        *ret = rp_tasks_create(tid, arg[1], arg[2], arg[3]);
        return True;
    case RP_USERREQ_TASK_BEGIN_KEY:
        *ret = rp_tasks_begin_key(tid, arg[1]);
        return True;
    case RP_USERREQ_TASK_DEPEND:
        rp_tasks_depend(arg[1], arg[2], arg[3] != 0);
        break;
    case RP_USERREQ_TASK_BEGIN:
        rp_tasks_begin(tid, arg[1]);
        break;
    case RP_USERREQ_TASK_END:
        rp_tasks_end(tid, arg[1], arg[2] != 0);
        break;
    case RP_USERREQ_TASK_WAIT:
        rp_tasks_wait(tid);
        break;
    case RP_USERREQ_TASK_WAIT_DEPEND:
        rp_tasks_wait_depend(tid, arg[1], arg[2] != 0);
        break;
    case RP_USERREQ_TASKS_DONE:
        rp_tasks_all_done(tid);
        break;
    case RP_USERREQ_TASK_UNFOLLOWED:
        rp_tasks_unfollowed();
        break;
    default:
        /* In racepred's range but neither the preload's nor racepred.h's:
         * handled here, so that Valgrind does not stop the program. */
        rp_annotations_unknown(arg[0]);
        break;
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
