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

static rp_patterns functions;

Bool rp_lockwords_set(const HChar *patterns)
{
    return rp_patterns_set(&functions, patterns);
}

/* The key of one of VG_(describe_IP)'s lines, "0x...: NAME (FILE:LINE)":
 * "FUNCTION@FILE", FUNCTION the last component of NAME without its
 * generic arguments (an inlined frame is named by its function's own
 * name, "lock<u32>", the function itself by its path,
 * "std::sys::sync::mutex::futex::Mutex::lock_contended"), FILE the
 * file's name without its directories.  False for a line without both. */
static Bool frame_key(const HChar *line, HChar *buf, SizeT size)
{
    const HChar *name = VG_(strstr)(line, ": ");
    const HChar *file = VG_(strstr)(line, " (");
    const HChar *p, *name_end, *file_end;
    SizeT n_name, n_file;

    if (name == NULL || file == NULL || file < name)
        return False;
    name += 2;
    name_end = file;
    for (p = name; p < name_end; p++) {
        if (*p == '<') {
            name_end = p;
            break;
        }
        if (p[0] == ':' && p[1] == ':')
            name = p + 2;
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

Bool rp_lockwords_in_lock_function(Addr site)
{
    DiEpoch ep = VG_(current_DiEpoch)();
    InlIPCursor *iipc;
    HChar key[512];
    Bool found = False;

    if (functions.n == 0)
        return False;
    iipc = VG_(new_IIPC)(ep, site);
    do {
        if (frame_key(VG_(describe_IP)(ep, site, iipc), key, sizeof key)
            && rp_patterns_match(&functions, key))
            found = True;
    } while (!found && VG_(next_IIPC)(iipc));
    VG_(delete_IIPC)(iipc);
    return found;
}

/* The words a lock function has acquired, by address. */
static rp_u64map words;

static Bool is_lock_word(Addr addr)
{
    return words.count != 0 && u64map_get(&words, addr) != NULL;
}

/* A word becomes a lock word at its first acquire in a lock function.
 * Read-modify-writes of it before then, where the debug information kept
 * no lock function, made it a synchronisation variable (rp_atomics.h),
 * whose sends (a release there) this acquire receives; then it is no
 * longer one, or each critical section would still be ordered after the
 * one before. */
static void becomes_lock_word(rp_tid_t tid, Addr addr, UWord size, Addr site)
{
    u64map_put(&words, addr, (void *)1);
    if (!rp_atomics_may_hold(addr) || !rp_atomics_holds(addr))
        return;
    rp_tool_emit(RP_EV_SYNC_RECV, tid, rp_atomics_object(addr), 0, site);
    rp_atomics_forget(addr, size);
}

Bool rp_lockwords_after_rmw(Addr addr, ULong old, ULong expected, ULong new, Addr site,
                            UWord size, Bool in_lock_function)
{
    Bool known = is_lock_word(addr);
    Bool succeeded = old == expected;
    ThreadId vg_tid;

    /* A word becomes a lock word only by an acquire in a lock function;
     * until then it is an atomic's, even in a lock function. */
    if (!known && !(in_lock_function && succeeded && old == 0 && new != 0))
        return False;
    if (!succeeded || (old == 0) == (new == 0)
        || (rp_threads_current_ignores & RP_IGNORE_ATOMICS))
        return True;
    vg_tid = VG_(get_running_tid)();
    /* The lock's first stack, if this is its first acquire, starts here. */
    VG_(set_IP)(vg_tid, site);
    if (old != 0) {
        rp_locks_release_pre(vg_tid, addr);
        return True;
    }
    if (!known)
        becomes_lock_word(rp_threads_current, addr, size, site);
    rp_locks_acquired(vg_tid, addr, False);
    return True;
}

void rp_lockwords_forget(Addr addr, SizeT size)
{
    if (words.count != 0 && size != 0)
        u64map_remove_range(&words, addr, size, NULL, NULL);
}
