/* rp_barriers.h — pthread barriers, one round at a time.
 *
 * A barrier orders every thread's departure from a round after every
 * arrival of that round, and nothing more: what a thread does after it
 * leaves round k is not ordered with what another does before it arrives
 * at round k + 1.  One sync object per barrier would be cumulative and
 * order too much: a thread that leaves round k late (descheduled between
 * the real wait's return and its receive) would receive the sends of
 * round k + 1 as well, and the race between two threads' writes in round
 * k + 1 would be lost (DRD's pth_barrier test does exactly this).
 *
 * So each round has its own object.  Rounds are counted by arrivals: the
 * real barrier lets no thread through round k before `count` threads
 * arrived at it, and a thread arrives at round k + 1 only after it left
 * round k, so arrivals number count * k .. count * (k + 1) - 1 are round
 * k's.  Two objects per barrier, used by alternate rounds, are enough:
 * nobody arrives at round k + 2 before every thread left round k (it had
 * to arrive at round k + 1 first), so round k's object has no receiver
 * left when round k + 2 sends on it.  The objects are the barrier's
 * address + 1 and + 2: never a lock (aligned) or an atomic variable's
 * object (an aligned word, rp_atomics.h).  A barrier whose init was not
 * seen has no count: its rounds share one object (the cumulative model,
 * which may miss a race but never invents one).
 */
#ifndef RP_BARRIERS_H
#define RP_BARRIERS_H

#include "pub_tool_basics.h"

void rp_barriers_init(void);

/* pthread_barrier_init(barrier, ..., count) succeeded (a count of 0 is
 * refused by glibc and treated as unknown). */
void rp_barriers_init_barrier(Addr barrier, UWord count);

/* `vg_tid` is about to wait on `barrier`: sends on this round's object
 * and returns it, for rp_barriers_depart. */
UWord rp_barriers_arrive(ThreadId vg_tid, Addr barrier);

/* `vg_tid` left `barrier`, having arrived on `object`: receives on it.
 * An object that is not one of the barrier's (a forged request) is
 * replaced by the barrier's shared one. */
void rp_barriers_depart(ThreadId vg_tid, Addr barrier, UWord object);

/* pthread_barrier_destroy(barrier) succeeded. */
void rp_barriers_destroy(Addr barrier);

#endif
