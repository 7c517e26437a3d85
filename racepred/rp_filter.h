/* rp_filter.h — which client code is instrumented.
 *
 * The C library and the dynamic linker synchronise their own data with
 * means racepred does not model (futex-based internal locks, the
 * loader lock, atomics behind lazy binding, the thread-stack cache, stdio
 * locks).  Instrumenting them reports races inside glibc that are not
 * races, on every multithreaded program.  Helgrind hides them by
 * suppressing every race whose top frame is in libc (default.supp);
 * racepred does not instrument that code at all: none of its loads,
 * stores or atomics become events.
 *
 * The trade-off: an access libc makes on the program's behalf (memcpy or
 * memset into a shared buffer, fread into it) is invisible unless it is
 * put back (the memory and string functions and the kernel's accesses in
 * system calls are: rp_libc.h), and synchronisation performed only inside
 * libc (semaphores, condition variables, barriers) is invisible too until
 * the preload wraps those calls.
 *
 * Replacement allocators (jemalloc, tcmalloc, mimalloc) are ignored by
 * default for the same reason: their fast paths use relaxed and acquire
 * atomics, which on x86 are plain loads and stores, never seen as
 * synchronisation.  On redis with jemalloc instrumented, 20 of 21 race
 * contexts were such false alarms, and memory use was 2.6 times higher
 * (docs/reliability.md).
 *
 * Synchronising objects (--sync-objects, default libgomp and libomp,
 * GCC's and LLVM's OpenMP runtimes) are runtimes that hand work and data
 * between threads with their own futexes and with atomic loads and
 * stores, which on x86 are plain moves: ignoring them would lose the
 * ordering they make (an OpenMP parallel region's start and its
 * barriers), and instrumenting them as program code would
 * report their internal flags as races and still not see the ordering.
 * So every load in their code is an acquire and every store a release of
 * the aligned word it touches (as for a variable an atomic RMW marked,
 * rp_atomics.h), and never an access: whatever one thread published
 * through the runtime, another that read it there is ordered after.  That
 * may order more than the runtime's real synchronisation does (a race of
 * the program through unrelated work the runtime handed over is missed),
 * never less.
 *
 * Each set is a comma-separated list of glob patterns (`*`, `?`) matched
 * against the soname of the object the code belongs to, falling back to
 * its file name; `none` empties it.
 *
 * Atomic sources (--atomic-sources) are source files, not objects: the
 * headers of the C++ libraries' std::atomic (libstdc++'s bits/atomic_base.h
 * and <atomic>, libc++'s <atomic> and __atomic/) and Rust's
 * core::sync::atomic.  Their loads and stores are atomic ones, whatever
 * object they were inlined into, and on x86 plain moves that nothing else
 * tells from the program's own: a flag stored with release order and read
 * once with acquire order was reported as a race, with the data it
 * published (and Rust's channels, whose slots are published that way,
 * had a race predicted inside them).  An instruction whose line in the
 * debug information is in such a file is synchronising code, as if its
 * object were on --sync-objects.  The patterns are globs matched against
 * the file's full path (its directory, a '/', its name).
 */
#ifndef RP_FILTER_H
#define RP_FILTER_H

#include "pub_tool_basics.h"

#define RP_FILTER_DEFAULT \
    "ld-linux*.so*,libc.so*,libjemalloc.so*,libtcmalloc*.so*,libmimalloc.so*"

#define RP_FILTER_SYNC_DEFAULT "libgomp.so*,libomp.so*"

#define RP_FILTER_ATOMIC_DEFAULT \
    "*/bits/atomic_base.h,*/c++/*/atomic,*/c++/v1/__atomic/*,*/core/src/sync/atomic.rs"

/* What racepred makes of the memory effects of an object's code. */
typedef enum {
    RP_CODE_ACCESSES,  /* loads and stores are accesses (the program) */
    RP_CODE_SYNC,      /* synchronising: a load is an acquire, a store a
                        * release of its word (--sync-objects) */
    RP_CODE_IGNORED    /* nothing (--ignore-objects) */
} rp_code_kind;

/* Check and store a pattern list (--ignore-objects, --sync-objects);
 * False when it is malformed. */
Bool rp_filter_set(const HChar *patterns);
Bool rp_filter_set_sync(const HChar *patterns);
Bool rp_filter_set_atomic_sources(const HChar *patterns);

/* What the instruction at `guest_addr` does. */
rp_code_kind rp_filter_kind(Addr guest_addr);

/* What the instruction at `guest_addr`, in an object whose code is
 * RP_CODE_ACCESSES, does: RP_CODE_SYNC if it comes from an atomic source.
 * Asked at translation time, once per instruction. */
rp_code_kind rp_filter_source_kind(Addr guest_addr);

/* Whether it is the program's own code (RP_CODE_ACCESSES). */
Bool rp_filter_instruments(Addr guest_addr);

#endif
