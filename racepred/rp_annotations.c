/* rp_annotations.c — helgrind.h, drd.h and racepred.h annotations; see
 * rp_annotations.h. */
#include "pub_tool_basics.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_tooliface.h"

#include "helgrind.h"
#include "drd.h"
#include "racepred.h"
#include "rp_annotations.h"
#include "rp_errors.h"
#include "rp_locks.h"
#include "rp_threads.h"
#include "rp_tool.h"

/* The kinds of bad request, each reported once. */
typedef enum {
    RP_BAD_NULL_OBJECT,
    RP_BAD_RANGE,
    RP_BAD_IGNORE_END,
    RP_BAD_UNKNOWN,
    RP_BAD_KIND_COUNT
} rp_bad_kind;

static Bool bad_reported[RP_BAD_KIND_COUNT];

static void say_bad_once(rp_bad_kind kind, const HChar *request, UWord a1,
                         UWord a2)
{
    if (bad_reported[kind])
        return;
    bad_reported[kind] = True;
    switch (kind) {
    case RP_BAD_NULL_OBJECT:
        VG_(umsg)("racepred: warning: %s with a null object: ignored "
                  "(reported once)\n", request);
        break;
    case RP_BAD_RANGE:
        VG_(umsg)("racepred: warning: %s with a bad range (address %#lx, "
                  "size %lu): ignored (reported once)\n", request, a1, a2);
        break;
    case RP_BAD_IGNORE_END:
        VG_(umsg)("racepred: warning: %s without a matching begin: ignored "
                  "(reported once)\n", request);
        break;
    default:
        VG_(umsg)("racepred: warning: unknown client request %#lx in "
                  "racepred's range (a racepred.h from another version?): "
                  "ignored (reported once)\n", a1);
        break;
    }
}

void rp_annotations_unknown(UWord request)
{
    say_bad_once(RP_BAD_UNKNOWN, NULL, request, 0);
}

static void sync_edge(ThreadId tid, rp_event_kind kind, const HChar *request,
                      UWord obj)
{
    if (obj == 0) {
        say_bad_once(RP_BAD_NULL_OBJECT, request, 0, 0);
        return;
    }
    rp_tool_emit(kind, rp_threads_of_vg(tid), obj, 0, 0);
}

static Bool range_ok(const HChar *request, UWord addr, UWord size)
{
    if (addr != 0 && rp_tool_range_plausible(addr, size))
        return True;
    say_bad_once(RP_BAD_RANGE, request, addr, size);
    return False;
}

static void clean_memory(ThreadId tid, const HChar *request, UWord addr,
                         UWord size)
{
    if (!range_ok(request, addr, size))
        return;
    rp_tool_emit_range(RP_EV_FORGET, rp_threads_of_vg(tid), addr, size, 0);
}

static void benign(const HChar *request, UWord addr, UWord size, Bool on)
{
    if (!range_ok(request, addr, size))
        return;
    if (on)
        rp_errors_ignore_range(addr, size);
    else
        rp_errors_track_range(addr, size);
}

static void ignore(ThreadId tid, const HChar *request, UInt kinds, Bool begin)
{
    if (!rp_threads_ignore(tid, kinds, begin))
        say_bad_once(RP_BAD_IGNORE_END, request, 0, 0);
}

/* DRD's RWLOCK annotations name a user-built lock; is_w says which side. */
static void rwlock(ThreadId tid, UWord lock, UWord is_w, Bool acquired)
{
    if (lock == 0) {
        say_bad_once(RP_BAD_NULL_OBJECT, acquired ? "ANNOTATE_RWLOCK_ACQUIRED"
                                                  : "ANNOTATE_RWLOCK_RELEASED", 0, 0);
        return;
    }
    if (acquired)
        rp_locks_acquired(tid, lock, is_w == 0);
    else
        rp_locks_release_pre(tid, lock);
}

static Bool handle_racepred(ThreadId tid, UWord *arg)
{
    switch (arg[0]) {
    case VG_USERREQ__RACEPRED_HAPPENS_BEFORE:
        sync_edge(tid, RP_EV_SYNC_SEND, "RACEPRED_HAPPENS_BEFORE", arg[1]);
        return True;
    case VG_USERREQ__RACEPRED_HAPPENS_AFTER:
        sync_edge(tid, RP_EV_SYNC_RECV, "RACEPRED_HAPPENS_AFTER", arg[1]);
        return True;
    case VG_USERREQ__RACEPRED_BENIGN_RACE:
        benign("RACEPRED_BENIGN_RACE", arg[1], arg[2], True);
        return True;
    case VG_USERREQ__RACEPRED_CLEAN_MEMORY:
        clean_memory(tid, "RACEPRED_CLEAN_MEMORY", arg[1], arg[2]);
        return True;
    case VG_USERREQ__RACEPRED_IGNORE_BEGIN:
        ignore(tid, "RACEPRED_IGNORE_BEGIN", RP_IGNORE_READS | RP_IGNORE_WRITES, True);
        return True;
    case VG_USERREQ__RACEPRED_IGNORE_END:
        ignore(tid, "RACEPRED_IGNORE_END", RP_IGNORE_READS | RP_IGNORE_WRITES, False);
        return True;
    default:
        return False;
    }
}

/* helgrind.h, and the requests drd.h numbers in Helgrind's range (its
 * HAPPENS_BEFORE/AFTER and NEW_MEMORY share Helgrind's numbers). */
static Bool handle_helgrind_range(ThreadId tid, UWord *arg)
{
    switch (arg[0]) {
    case _VG_USERREQ__HG_USERSO_SEND_PRE:
        sync_edge(tid, RP_EV_SYNC_SEND, "ANNOTATE_HAPPENS_BEFORE", arg[1]);
        return True;
    case _VG_USERREQ__HG_USERSO_RECV_POST:
        sync_edge(tid, RP_EV_SYNC_RECV, "ANNOTATE_HAPPENS_AFTER", arg[1]);
        return True;
    case VG_USERREQ__HG_CLEAN_MEMORY:   /* drd.h's ANNOTATE_NEW_MEMORY too */
        clean_memory(tid, "VALGRIND_HG_CLEAN_MEMORY", arg[1], arg[2]);
        return True;
    case _VG_USERREQ__HG_ARANGE_MAKE_UNTRACKED:
        benign("ANNOTATE_BENIGN_RACE", arg[1], arg[2], True);
        return True;
    case _VG_USERREQ__HG_ARANGE_MAKE_TRACKED:
        benign("VALGRIND_HG_ENABLE_CHECKING", arg[1], arg[2], False);
        return True;
    case VG_USERREQ__DRD_ANNOTATE_RWLOCK_ACQUIRED:
        rwlock(tid, arg[1], arg[2], True);
        return True;
    case VG_USERREQ__DRD_ANNOTATE_RWLOCK_RELEASED:
        rwlock(tid, arg[1], arg[2], False);
        return True;
    case VG_USERREQ__DRD_ANNOTATE_RWLOCK_CREATE:
    case VG_USERREQ__DRD_ANNOTATE_RWLOCK_DESTROY:
    case VG_USERREQ__HELGRIND_ANNOTATION_UNIMP:
        return True;
    default:
        return False;
    }
}

/* drd.h's own range. */
static Bool handle_drd(ThreadId tid, UWord *arg, UWord *ret)
{
    switch (arg[0]) {
    case VG_USERREQ__DRD_GET_VALGRIND_THREAD_ID:
        *ret = tid;
        return True;
    case VG_USERREQ__DRD_GET_DRD_THREAD_ID:
        *ret = rp_threads_of_vg(tid) + 1;
        return True;
    case VG_USERREQ__DRD_START_SUPPRESSION:
        benign("DRD_IGNORE_VAR", arg[1], arg[2], True);
        return True;
    case VG_USERREQ__DRD_FINISH_SUPPRESSION:
        benign("DRD_STOP_IGNORING_VAR", arg[1], arg[2], False);
        return True;
    /* The argument says whether to record: 0 begins ignoring. */
    case VG_USERREQ__DRD_RECORD_LOADS:
        ignore(tid, arg[1] ? "ANNOTATE_IGNORE_READS_END" : "ANNOTATE_IGNORE_READS_BEGIN",
               RP_IGNORE_READS, arg[1] == 0);
        return True;
    case VG_USERREQ__DRD_RECORD_STORES:
        ignore(tid, arg[1] ? "ANNOTATE_IGNORE_WRITES_END" : "ANNOTATE_IGNORE_WRITES_BEGIN",
               RP_IGNORE_WRITES, arg[1] == 0);
        return True;
    case VG_USERREQ__DRD_ANNOTATE_SEM_POST_PRE:
        sync_edge(tid, RP_EV_SYNC_SEND, "ANNOTATE_SEM_POST_PRE", arg[1]);
        return True;
    case VG_USERREQ__DRD_ANNOTATE_SEM_WAIT_POST:
        sync_edge(tid, RP_EV_SYNC_RECV, "ANNOTATE_SEM_WAIT_POST", arg[1]);
        return True;
    case VG_USERREQ__DRD_START_TRACE_ADDR:
    case VG_USERREQ__DRD_STOP_TRACE_ADDR:
    case VG_USERREQ__DRD_SET_THREAD_NAME:
    case VG_USERREQ__DRD_ANNOTATION_UNIMP:
    case VG_USERREQ__DRD_ANNOTATE_SEM_INIT_PRE:
    case VG_USERREQ__DRD_ANNOTATE_SEM_DESTROY_POST:
    case VG_USERREQ__DRD_ANNOTATE_SEM_WAIT_PRE:
    case VG_USERREQ__DRD_IGNORE_MUTEX_ORDERING:
        return True;
    default:
        return False;
    }
}

Bool rp_annotations_handle(ThreadId tid, UWord *arg, UWord *ret)
{
    Bool handled;

    /* Annotations return nothing but the two thread-id queries. */
    *ret = 0;
    if (VG_IS_TOOL_USERREQ('H', 'G', arg[0]))
        handled = handle_helgrind_range(tid, arg);
    else if (VG_IS_TOOL_USERREQ('D', 'R', arg[0]))
        handled = handle_drd(tid, arg, ret);
    else if (VG_IS_TOOL_USERREQ('R', 'P', arg[0]))
        handled = handle_racepred(tid, arg);
    else
        return False;
    return handled;
}
