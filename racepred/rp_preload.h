/* rp_preload.h — what the files of the preload (rp_intercepts*.c) share:
 * the macros that define a wrapper and send a client request.
 *
 * Valgrind redirects every call of a wrapped function to a function whose
 * symbol name encodes "soname:function" (pub_tool_redir.h's Z-encoding:
 * Zu = _, ZA = @, Za = *, Zd = .).  glibc 2.34 and later define the
 * pthread and C11 thread functions in libc.so.6 only (libpthread.so.0 is
 * a library with no code of its own); a wrapper is bound to libc.so* with a
 * weak alias bound to libpthread.so.0, for older glibcs (Helgrind's trick).
 */
#ifndef RP_PRELOAD_H
#define RP_PRELOAD_H

#include <stddef.h>

#include "valgrind.h"
#include "rp_clientreq.h"

#define RP_STR_EXPAND(tok) #tok
#define RP_STR(tok) RP_STR_EXPAND(tok)

/* Defines the wrapper of `f` (Z-encoded) in libpthread.so.0 and aliases it
 * to the same function in libc.so*. */
#define RP_PTH_FUNC(ret_ty, f, args...)                                      \
    ret_ty I_WRAP_SONAME_FNNAME_ZZ(libpthreadZdsoZd0, f)(args);              \
    extern __typeof(I_WRAP_SONAME_FNNAME_ZZ(libpthreadZdsoZd0, f))           \
        I_WRAP_SONAME_FNNAME_ZZ(libcZdsoZa, f)                               \
        __attribute__((weak,                                                 \
                       alias(RP_STR(I_WRAP_SONAME_FNNAME_ZZ(libpthreadZdsoZd0, f))))); \
    ret_ty I_WRAP_SONAME_FNNAME_ZZ(libpthreadZdsoZd0, f)(args)

/* A worker that several wrappers share, inlined into each: a stack taken
 * in it (a lock's first observation, announced with the races that hold
 * the lock) then starts at the wrapper, named after the function the
 * program called (pthread_mutex_lock), where a worker of its own, called
 * as a tail call, showed the worker's name and hid the wrapper's frame. */
#define RP_WORKER static inline __attribute__((always_inline))

/* Wrappers of libc-only functions (the allocator, C11 threads). */
#define RP_LIBC_FUNC(ret_ty, f, args...)                                     \
    ret_ty I_WRAP_SONAME_FNNAME_ZZ(libcZdsoZa, f)(args);                     \
    ret_ty I_WRAP_SONAME_FNNAME_ZZ(libcZdsoZa, f)(args)

/* Thread-local variables of the preload in the static TLS block: the
 * preload is loaded at start-up, and the default model for a shared
 * object calls __tls_get_addr at every access (no difference measured on
 * a loop of wrapped `omp critical`s, whose cost was elsewhere). */
#define RP_TLS __attribute__((tls_model("initial-exec")))

#define RP_REQUEST(req, a1, a2)                                              \
    VALGRIND_DO_CLIENT_REQUEST_STMT((req), (a1), (a2), 0, 0, 0)
/* A request whose answer the wrapper needs (0 outside Valgrind). */
#define RP_REQUEST_EXPR(req, a1, a2)                                         \
    VALGRIND_DO_CLIENT_REQUEST_EXPR(0, (req), (a1), (a2), 0, 0, 0)
#define RP_REQUEST3(req, a1, a2, a3)                                         \
    VALGRIND_DO_CLIENT_REQUEST_STMT((req), (a1), (a2), (a3), 0, 0)
#define RP_REQUEST5(req, a1, a2, a3, a4, a5)                                 \
    VALGRIND_DO_CLIENT_REQUEST_STMT((req), (a1), (a2), (a3), (a4), (a5))
#define RP_REQUEST3_EXPR(req, a1, a2, a3)                                    \
    VALGRIND_DO_CLIENT_REQUEST_EXPR(0, (req), (a1), (a2), (a3), 0, 0)

/* The wrapped libc function the program called is about to read
 * [read, read + read_size) and write [write, write + write_size) (a size
 * of 0: none): rp_libc.h.  Used in the wrapper itself, whose return
 * address is the program's call.
 *
 * The channel is a nop with the five values pushed on the stack just
 * under it (below the red zone, which gcc may use in a leaf wrapper),
 * whose address goes into the section rp_announce_sites; PRELOAD_HELLO
 * gives the tool that list, and the tool instruments each of these nops
 * with a call of its own that reads the values at the stack pointer: a
 * few nanoseconds, where a client request costs half a microsecond, and
 * the report of such an access starts in the wrapper.  (Through memory,
 * not registers: Valgrind keeps the stack pointer exact at memory
 * accesses, but not the other registers at an arbitrary instruction.) */
#define RP_ANNOUNCE_ACCESS(read, read_size, write, write_size)               \
    __asm__ volatile("sub $128, %%rsp\n\t"                                   \
                     "push %4\n\t"                                           \
                     "push %3\n\t"                                           \
                     "push %2\n\t"                                           \
                     "push %1\n\t"                                           \
                     "push %0\n"                                             \
                     "1: nop\n\t"                                            \
                     "add $168, %%rsp\n"                                     \
                     ".pushsection rp_announce_sites, \"aw\"\n"              \
                     ".quad 1b\n"                                            \
                     ".popsection"                                           \
                     :                                                       \
                     : "r"((unsigned long)(read)), "r"((unsigned long)(read_size)), \
                       "r"((unsigned long)(write)), "r"((unsigned long)(write_size)), \
                       "r"((unsigned long)__builtin_return_address(0))       \
                     : "memory")

/* A synchronising object's own bytes (rp_intercepts.c): using it reads
 * its first byte, creating or destroying it writes it.  In the wrapper
 * itself: its return address is the program's call. */
#define RP_USES(obj) RP_ANNOUNCE_ACCESS((obj), 1, 0, 0)
#define RP_RENEWS(obj) RP_ANNOUNCE_ACCESS(0, 0, (obj), 1)

/* The bounds of rp_announce_sites (made by the linker). */
extern const unsigned long __start_rp_announce_sites[], __stop_rp_announce_sites[];

/* The length of s, without libc's strlen (wrapped, and libc's). */
static inline size_t rp_preload_strlen(const char *s)
{
    size_t n = 0;

    while (s[n] != '\0')
        n++;
    return n;
}

/* Nonzero while a wrapper of a higher-level library runs the real
 * function in this thread: C11 <threads.h> (rp_intercepts_c11.c) and
 * GLib's locks (rp_intercepts_glib.c).  glibc builds the C11 functions on
 * its pthread code and some of the calls it makes land on a wrapped
 * pthread function (mtx_lock calls __pthread_mutex_lock, which is
 * pthread_mutex_lock under another name), others do not (thrd_join,
 * mtx_timedlock); which ones varies between glibc versions; g_cond_wait
 * calls g_mutex_unlock and g_mutex_lock.  The outer wrapper reports the
 * operation once, itself, and the wrappers it reaches stay silent
 * meanwhile. */
extern __thread int rp_preload_depth RP_TLS;

/* The OpenMP runtimes' tasks (rp_intercepts_omp.c, "tasks", says why and
 * when a task yields as it starts and its creator waits): a deferred
 * task's trampoline calls rp_omp_task_begins before the task's body and
 * rp_omp_task_ends after it; its creator reads rp_omp_tasks_started
 * before handing the task to the runtime and calls rp_omp_task_created
 * with that after, and the most switches to other threads to wait for.
 * A task of its own thread (rp_tasks.h) calls rp_omp_task_begins_own
 * instead, which counts it and does not yield. */
#define RP_HIDDEN __attribute__((visibility("hidden")))
void rp_omp_task_begins(void) RP_HIDDEN;
void rp_omp_task_begins_own(void) RP_HIDDEN;
void rp_omp_task_ends(void) RP_HIDDEN;
unsigned long rp_omp_tasks_started(void) RP_HIDDEN;
void rp_omp_task_created(unsigned long started_before, int switches) RP_HIDDEN;

/* What both runtimes' wrappers know of the tool's tasks of their own
 * threads (rp_tasks.h), set by any thread, hence atomics (the preload's
 * own accesses are not the program's either way): over, once the tool
 * gives no task a thread of its own any more (past --omp-task-threads,
 * or after a detach task); used, from the first task of its own thread:
 * only then do taskwaits, barriers and the ends of parallel regions have
 * anything to tell the tool. */
extern int rp_omp_task_threads_over RP_HIDDEN;
extern int rp_omp_task_threads_used RP_HIDDEN;

/* n rounded up to a multiple of align. */
static inline unsigned long rp_round_up(unsigned long n, unsigned long align)
{
    return (n + align - 1) / align * align;
}

/* Runs the real function of a wrapper that reports for itself (see
 * rp_preload_depth). */
#define RP_OWN_CALL(call)                                                    \
    do {                                                                     \
        rp_preload_depth++;                                                  \
        call;                                                                \
        rp_preload_depth--;                                                  \
    } while (0)

/* Runs a lock library's own code unseen (RP_ANNOUNCE_UNSEEN_ENTER: its
 * loads, stores, atomics and synchronising-object accesses on the lock's
 * words), the wrappers it reaches silent: the wrapper reports the lock. */
#define RP_UNSEEN_CALL(call)                                                 \
    do {                                                                     \
        RP_ANNOUNCE_ACCESS(0, RP_ANNOUNCE_UNSEEN_ENTER, 0, 0);               \
        RP_OWN_CALL(call);                                                   \
        RP_ANNOUNCE_ACCESS(0, RP_ANNOUNCE_UNSEEN_LEAVE, 0, 0);               \
    } while (0)

/* A request of a wrapper the outer one may reach: dropped inside it. */
#define RP_PTH_REQUEST(req, a1, a2)                                          \
    do {                                                                     \
        if (rp_preload_depth == 0)                                           \
            RP_REQUEST((req), (a1), (a2));                                   \
    } while (0)

/* A lock library's real call that takes `lock`, unseen, then the acquire
 * (after the call: only then is the lock held). */
#define RP_ACQUIRING_CALL(lock, call)                                        \
    do {                                                                     \
        RP_UNSEEN_CALL(call);                                                \
        RP_PTH_REQUEST(RP_USERREQ_LOCK_ACQUIRED, (lock), 0);                 \
    } while (0)

/* The release of `lock`, then the library's real call that frees it,
 * unseen (before the call: once free, another thread may take it). */
#define RP_RELEASING_CALL(lock, call)                                        \
    do {                                                                     \
        RP_PTH_REQUEST(RP_USERREQ_LOCK_RELEASE_PRE, (lock), 0);              \
        RP_UNSEEN_CALL(call);                                                \
    } while (0)

/* Wrappers of a lock library's functions that take the lock (or the
 * object) as their one argument, reporting what their pthread
 * counterparts report at the same moments (rp_intercepts.c), the
 * library's own code unseen.  FUNC is the library's macro that declares a
 * wrapper (RP_GLIB_FUNC, RP_GOMP_FUNC, RP_KMP_FUNC).  A lock: */
#define RP_LOCKING_VOID_FUNC(FUNC, f)                                        \
    FUNC(void, f, void *lock)                                                \
    {                                                                        \
        OrigFn fn;                                                           \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        RP_USES(lock);                                                       \
        RP_ACQUIRING_CALL(lock, CALL_FN_v_W(fn, lock));                      \
    }

/* A try-lock, which returns nonzero when it took the lock: */
#define RP_TRYLOCKING_FUNC(FUNC, f)                                          \
    FUNC(int, f, void *lock)                                                 \
    {                                                                        \
        OrigFn fn;                                                           \
        int taken;                                                           \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        RP_USES(lock);                                                       \
        RP_UNSEEN_CALL(CALL_FN_W_W(taken, fn, lock));                        \
        if (taken != 0)                                                      \
            RP_PTH_REQUEST(RP_USERREQ_LOCK_ACQUIRED, lock, 0);               \
        return taken;                                                        \
    }

/* An unlock: */
#define RP_UNLOCKING_VOID_FUNC(FUNC, f)                                      \
    FUNC(void, f, void *lock)                                                \
    {                                                                        \
        OrigFn fn;                                                           \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        RP_USES(lock);                                                       \
        RP_RELEASING_CALL(lock, CALL_FN_v_W(fn, lock));                      \
    }

/* Creating or destroying the object, which writes it: */
#define RP_RENEWING_VOID_FUNC(FUNC, f)                                       \
    FUNC(void, f, void *obj)                                                 \
    {                                                                        \
        OrigFn fn;                                                           \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        RP_RENEWS(obj);                                                      \
        RP_UNSEEN_CALL(CALL_FN_v_W(fn, obj));                                \
    }

#endif
