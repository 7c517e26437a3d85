/* rp_lockwords.c — locks that are a word and the atomics on it; see
 * rp_lockwords.h. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_machine.h"
#include "pub_tool_threadstate.h"

#include "rp_atomics.h"
#include "rp_lockwords.h"
#include "rp_locks.h"
#include "rp_patterns.h"
#include "rp_threads.h"
#include "rp_tool.h"
#include "rp_u64map.h"

static rp_patterns functions, rw_functions;

Bool rp_lockwords_set(const HChar *patterns)
{
    return rp_patterns_set(&functions, patterns);
}

Bool rp_lockwords_set_rw(const HChar *patterns)
{
    return rp_patterns_set(&rw_functions, patterns);
}

/* The key of one of VG_(describe_IP)'s lines, "0x...: NAME (FILE:LINE)":
 * "FUNCTION@FILE", FUNCTION the last component of NAME outside angle
 * brackets, without its generic arguments (an inlined frame is named by
 * its function's own name, "lock<u32>", the function itself by its path,
 * "std::sys::sync::mutex::futex::Mutex::lock_contended", or by its
 * type's, "<std::sys::sync::rwlock::futex::RwLock>::write_contended"),
 * FILE the file's name without its directories.  False for a line
 * without both. */
static Bool frame_key(const HChar *line, HChar *buf, SizeT size)
{
    const HChar *name = VG_(strstr)(line, ": ");
    const HChar *file = VG_(strstr)(line, " (");
    const HChar *p, *name_end, *file_end;
    SizeT n_name, n_file;
    UInt depth = 0;

    if (name == NULL || file == NULL || file < name)
        return False;
    name += 2;
    name_end = file;
    for (p = name; p < file; p++) {
        if (*p == '<')
            depth++;
        else if (*p == '>' && depth > 0)
            depth--;
        else if (depth == 0 && p[0] == ':' && p[1] == ':')
            name = p + 2;
    }
    for (p = name; p < name_end; p++)
        if (*p == '<') {
            name_end = p;
            break;
        }
    file += 2;
    file_end = VG_(strchr)(file, ':');
    if (file_end == NULL || VG_(strncmp)(file, "in ", 3) == 0)
        return False;
    for (p = file; p < file_end; p++)
        if (*p == '/')
            file = p + 1;
    n_name = (SizeT)(name_end - name);
    n_file = (SizeT)(file_end - file);
    if (n_name == 0 || n_name + n_file + 2 > size)
        return False;
    VG_(memcpy)(buf, name, n_name);
    buf[n_name] = '@';
    VG_(memcpy)(buf + n_name + 1, file, n_file);
    buf[n_name + 1 + n_file] = '\0';
    return True;
}

rp_lock_function rp_lockwords_function_of(Addr site)
{
    DiEpoch ep = VG_(current_DiEpoch)();
    InlIPCursor *iipc;
    HChar key[512];
    rp_lock_function found = RP_LOCKFN_NONE;

    if (functions.n == 0 && rw_functions.n == 0)
        return RP_LOCKFN_NONE;
    iipc = VG_(new_IIPC)(ep, site);
    do {
        if (!frame_key(VG_(describe_IP)(ep, site, iipc), key, sizeof key))
            continue;
        if (rp_patterns_match(&functions, key))
            found = RP_LOCKFN_MUTEX;
        else if (rp_patterns_match(&rw_functions, key))
            found = RP_LOCKFN_RWLOCK;
    } while (found == RP_LOCKFN_NONE && VG_(next_IIPC)(iipc));
    VG_(delete_IIPC)(iipc);
    return found;
}

/* The words a lock function has acquired, by address: the kind of lock
 * (rp_lock_function) as the value. */
static rp_u64map words;

static rp_lock_function word_kind(Addr addr)
{
    return words.count != 0 ? (rp_lock_function)(UWord)u64map_get(&words, addr)
                            : RP_LOCKFN_NONE;
}

/* A word becomes a lock word at its first acquire in a lock function.
 * Read-modify-writes of it before then, where the debug information kept
 * no lock function, made it a synchronisation variable (rp_atomics.h),
 * whose sends (a release there) this acquire receives; then it is no
 * longer one, or each critical section would still be ordered after the
 * one before. */
static void becomes_lock_word(rp_tid_t tid, Addr addr, UWord size, Addr site,
                              rp_lock_function kind)
{
    u64map_put(&words, addr, (void *)(UWord)kind);
    if (!rp_atomics_may_hold(addr) || !rp_atomics_holds(addr))
        return;
    rp_tool_emit(RP_EV_SYNC_RECV, tid, rp_atomics_object(addr), 0, site);
    rp_atomics_forget(addr, size);
}

/* What one read-modify-write of a lock word does. */
typedef struct {
    Bool acquire, release, acquire_shared, release_shared;
} rp_lock_change;

/* What a successful read-modify-write from old to new does to a mutex
 * word: 0 to non-0 acquires, non-0 to 0 releases. */
static void mutex_change(ULong old, ULong new, rp_lock_change *c)
{
    if ((old == 0) != (new == 0))
        *(old == 0 ? &c->acquire : &c->release) = True;
}

/* The same for a reader-writer word as Rust's futex RwLock lays it out:
 * the low 30 bits count the readers, all of them set means write-locked,
 * the two bits above mark waiters (which change nothing here). */
#define RW_MASK ((1ULL << 30) - 1)

static void rwlock_change(ULong old, ULong new, rp_lock_change *c)
{
    ULong old_n = old & RW_MASK, new_n = new & RW_MASK;
    Bool old_w = old_n == RW_MASK, new_w = new_n == RW_MASK;
    ULong old_r = old_w ? 0 : old_n, new_r = new_w ? 0 : new_n;

    if (old_w != new_w)
        *(new_w ? &c->acquire : &c->release) = True;
    /* A downgrade gives the write side back and takes a read side. */
    if (new_r == old_r + 1)
        c->acquire_shared = True;
    else if (new_r + 1 == old_r)
        c->release_shared = True;
}

Bool rp_lockwords_after_rmw(Addr addr, ULong old, ULong expected, ULong new, Addr site,
                            UWord size, rp_lock_function in_function)
{
    rp_lock_function kind = word_kind(addr);
    rp_lock_function rule = kind != RP_LOCKFN_NONE ? kind : in_function;
    rp_lock_change c = { False, False, False, False };
    ThreadId vg_tid;

    if (old == expected) {
        if (rule == RP_LOCKFN_RWLOCK)
            rwlock_change(old, new, &c);
        else
            mutex_change(old, new, &c);
    }
    /* A word becomes a lock word only by an acquire in a lock function;
     * until then it is an atomic's, even in a lock function. */
    if (kind == RP_LOCKFN_NONE
        && (in_function == RP_LOCKFN_NONE || !(c.acquire || c.acquire_shared)))
        return False;
    if (!(c.acquire || c.release || c.acquire_shared || c.release_shared)
        || (rp_threads_current_ignores & RP_IGNORE_ATOMICS))
        return True;
    vg_tid = VG_(get_running_tid)();
    /* The lock's first stack, if this is its first acquire, starts here. */
    VG_(set_IP)(vg_tid, site);
    if (kind == RP_LOCKFN_NONE)
        becomes_lock_word(rp_threads_current, addr, size, site, in_function);
    if (c.release || c.release_shared)
        rp_locks_release_pre(vg_tid, addr);
    if (c.acquire || c.acquire_shared)
        rp_locks_acquired(vg_tid, addr, c.acquire_shared);
    return True;
}

void rp_lockwords_forget(Addr addr, SizeT size)
{
    if (words.count != 0 && size != 0)
        u64map_remove_range(&words, addr, size, NULL, NULL);
}
