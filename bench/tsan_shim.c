/* bench/tsan_shim.c — what the ThreadSanitizer lit tests (compiler-rt's
 * test/tsan) link against besides libc, for running them under a Valgrind
 * tool (bench/tsan_lit.sh).
 *
 * The tests order their threads with an "invisible" barrier, one that
 * must not synchronise them in the detector's eyes (else the races they
 * stage would be ordered away).  Here it is made of atomics and
 * sched_yield in a shared object the tool does not instrument
 * (--ignore-objects=libtsanshim.so): the tool sees neither its accesses nor
 * its read-modify-writes.
 *
 * The dynamic annotations and __tsan_acquire/__tsan_release that some
 * tests call become the Helgrind/DRD client requests of drd.h, which
 * racepred, Helgrind and DRD all understand.  Nothing else of the
 * ThreadSanitizer runtime is here: tests that need it are skipped.
 */
#include <sched.h>
#include <stddef.h>
#include <valgrind/drd.h>

/* Low 8 bits: the number of threads; above them, how many arrived in all
 * (so arrivals / threads is the round). */
void __tsan_testonly_barrier_init(unsigned long long *barrier, unsigned count)
{
    __atomic_store_n(barrier, (unsigned long long)(count & 0xFF), __ATOMIC_SEQ_CST);
}

void __tsan_testonly_barrier_wait(unsigned long long *barrier)
{
    unsigned long long before = __atomic_fetch_add(barrier, 1ULL << 8, __ATOMIC_SEQ_CST);
    unsigned long long threads = before & 0xFF;
    unsigned long long round = (before >> 8) / threads;
    while ((__atomic_load_n(barrier, __ATOMIC_SEQ_CST) >> 8) / threads == round)
        sched_yield();
}

unsigned long __tsan_testonly_shadow_stack_current_size(void)
{
    return 0;
}

void __tsan_acquire(void *addr)
{
    ANNOTATE_HAPPENS_AFTER(addr);
}

void __tsan_release(void *addr)
{
    ANNOTATE_HAPPENS_BEFORE(addr);
}

void AnnotateHappensBefore(const char *file, int line, const volatile void *addr)
{
    (void)file, (void)line;
    ANNOTATE_HAPPENS_BEFORE(addr);
}

void AnnotateHappensAfter(const char *file, int line, const volatile void *addr)
{
    (void)file, (void)line;
    ANNOTATE_HAPPENS_AFTER(addr);
}

void AnnotateRWLockCreate(const char *file, int line, void *lock)
{
    (void)file, (void)line;
    ANNOTATE_RWLOCK_CREATE(lock);
}

void AnnotateRWLockCreateStatic(const char *file, int line, void *lock)
{
    AnnotateRWLockCreate(file, line, lock);
}

void AnnotateRWLockDestroy(const char *file, int line, void *lock)
{
    (void)file, (void)line;
    ANNOTATE_RWLOCK_DESTROY(lock);
}

void AnnotateRWLockAcquired(const char *file, int line, void *lock, long is_write)
{
    (void)file, (void)line;
    ANNOTATE_RWLOCK_ACQUIRED(lock, is_write);
}

void AnnotateRWLockReleased(const char *file, int line, void *lock, long is_write)
{
    (void)file, (void)line;
    ANNOTATE_RWLOCK_RELEASED(lock, is_write);
}

void AnnotateIgnoreReadsBegin(const char *file, int line)
{
    (void)file, (void)line;
    ANNOTATE_IGNORE_READS_BEGIN();
}

void AnnotateIgnoreReadsEnd(const char *file, int line)
{
    (void)file, (void)line;
    ANNOTATE_IGNORE_READS_END();
}

void AnnotateIgnoreWritesBegin(const char *file, int line)
{
    (void)file, (void)line;
    ANNOTATE_IGNORE_WRITES_BEGIN();
}

void AnnotateIgnoreWritesEnd(const char *file, int line)
{
    (void)file, (void)line;
    ANNOTATE_IGNORE_WRITES_END();
}

void AnnotateBenignRaceSized(const char *file, int line, const volatile void *addr,
                             size_t size, const char *why)
{
    (void)file, (void)line, (void)why;
    ANNOTATE_BENIGN_RACE_SIZED(addr, size, "");
}

void AnnotateBenignRace(const char *file, int line, const volatile void *addr,
                        const char *why)
{
    AnnotateBenignRaceSized(file, line, addr, 1, why);
}

void AnnotateNewMemory(const char *file, int line, const volatile void *addr, size_t size)
{
    (void)file, (void)line;
    ANNOTATE_NEW_MEMORY(addr, size);
}

void AnnotateThreadName(const char *file, int line, const char *name)
{
    (void)file, (void)line, (void)name;
}
