/* rp_sched.h — fair thread scheduling unless the user chose otherwise.
 *
 * Valgrind runs one client thread at a time under its "big lock".  By
 * default the lock is a pipe: a thread whose timeslice ends writes the
 * token back and reads it again at once, and usually wins it again, so a
 * thread that spins waiting for another (an I/O thread polling a counter,
 * a spin lock) can keep the CPU for many timeslices while the thread it
 * waits for starves.  The cost of every timeslice grows with the tool's
 * work per block, so a detector multiplies the starvation: redis-server
 * with io-threads answered 3.8 requests per second under racepred before.
 * --fair-sched=yes makes the lock a ticket lock that hands the CPU over
 * in turn.  racepred asks for it (as `try`: where the kernel cannot do it
 * the pipe stays) unless --fair-sched was given, on the command line, in
 * VALGRIND_OPTS or in a .valgrindrc.
 */
#ifndef RP_SCHED_H
#define RP_SCHED_H

/* Call from post_clo_init, before the core creates its lock. */
void rp_sched_prefer_fair(void);

#endif
