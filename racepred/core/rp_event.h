/* rp_event.h — the event stream: the one interface between the front ends
 * (the Valgrind tool, the trace readers of racepred-analyze) and the
 * detectors.
 *
 * A run is a sequence of events in the order they were observed.  Valgrind
 * serialises client threads, so the observed order is a valid interleaving.
 * Every event carries:
 *   id    its 1-based position in the stream (trace position in the papers);
 *   tid   racepred's own thread number: dense from 0, never reused (Valgrind
 *         recycles ThreadIds, racepred does not);
 *   obj   what the event is about (see below);
 *   site  an opaque handle the front end chose for the code location (the
 *         guest instruction address in the tool, the trace line number in
 *         racepred-analyze); detectors only store and return it.
 *
 *   kind                obj                 meaning
 *   RP_EV_READ/WRITE    first byte address  plain access of `size` bytes
 *   RP_EV_ACQUIRE       lock                exclusive acquire (mutex, wrlock)
 *   RP_EV_RELEASE       lock                exclusive release
 *   RP_EV_ACQUIRE_SHARED lock               rwlock read-side acquire
 *   RP_EV_RELEASE_SHARED lock               rwlock read-side release
 *   RP_EV_FORK          child tid           the child starts after this
 *   RP_EV_JOIN          joined tid          the joined thread ended before this
 *   RP_EV_BRANCH        0                   a conditional branch (seed 001)
 *   RP_EV_SYNC_SEND     sync object         hard happens-before source (cond
 *                                           signal, sem post, barrier entry,
 *                                           atomic RMW, annotations)
 *   RP_EV_SYNC_RECV     sync object         hard happens-before sink: ordered
 *                                           after every earlier SEND on obj
 *   RP_EV_FORGET        first byte address  `size` bytes are fresh memory
 *                                           (allocated, or a new stack area):
 *                                           no earlier access races with a
 *                                           later one
 */
#ifndef RP_EVENT_H
#define RP_EVENT_H

#include <stdint.h>

typedef uint32_t rp_tid_t;

typedef enum rp_event_kind {
    RP_EV_READ,
    RP_EV_WRITE,
    RP_EV_ACQUIRE,
    RP_EV_RELEASE,
    RP_EV_ACQUIRE_SHARED,
    RP_EV_RELEASE_SHARED,
    RP_EV_FORK,
    RP_EV_JOIN,
    RP_EV_BRANCH,
    RP_EV_SYNC_SEND,
    RP_EV_SYNC_RECV,
    RP_EV_FORGET,
    RP_EV_KIND_COUNT
} rp_event_kind;

typedef struct rp_event {
    uint64_t id;
    uint64_t obj;
    uint64_t site;
    rp_tid_t tid;
    uint32_t size;
    uint8_t kind;
} rp_event;

static inline int rp_event_is_access(const rp_event *e)
{
    return e->kind == RP_EV_READ || e->kind == RP_EV_WRITE;
}

const char *rp_event_kind_name(rp_event_kind kind);

#endif
