/* rp_filter.c — the ignored and synchronising objects, the atomic
 * sources; see rp_filter.h. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_seqmatch.h"

#include "rp_filter.h"
#include "rp_patterns.h"

static rp_patterns ignored, synchronising, atomic_sources;

/* The last objects asked about, with their kind: a wrapped libc function
 * asks for its caller's object at every call, and matching the patterns
 * each time cost more than the call (rp_libc.h).  An object unloaded
 * moves the epoch on, so a recycled DebugInfo is never taken for its
 * predecessor. */
#define KIND_CACHE 4

static struct {
    DebugInfo *di;
    DiEpoch epoch;
    rp_code_kind kind;
} kind_cache[KIND_CACHE];
static UInt kind_cache_next;

Bool rp_filter_set(const HChar *patterns)
{
    VG_(memset)(kind_cache, 0, sizeof kind_cache);
    return rp_patterns_set(&ignored, patterns);
}

Bool rp_filter_set_sync(const HChar *patterns)
{
    VG_(memset)(kind_cache, 0, sizeof kind_cache);
    return rp_patterns_set(&synchronising, patterns);
}

Bool rp_filter_set_atomic_sources(const HChar *patterns)
{
    return rp_patterns_set(&atomic_sources, patterns);
}

/* The object's file name without the directories, or NULL. */
static const HChar *file_base(const DebugInfo *di)
{
    const HChar *filename = VG_(DebugInfo_get_filename)(di);
    const HChar *base = filename;
    const HChar *p;

    if (filename == NULL)
        return NULL;
    for (p = filename; *p != '\0'; p++)
        if (*p == '/')
            base = p + 1;
    return base;
}

/* Whether the object's soname, else its file name without the
 * directories, matches a pattern of l. */
static Bool object_matches(const rp_patterns *l, const DebugInfo *di)
{
    const HChar *soname = VG_(DebugInfo_get_soname)(di);
    const HChar *base;

    if (l->n == 0)
        return False;
    if (soname != NULL && soname[0] != '\0' && VG_(strcmp)(soname, "NONE") != 0
        && rp_patterns_match(l, soname))
        return True;
    base = file_base(di);
    return base != NULL && rp_patterns_match(l, base);
}

/* Whether the object is racepred's own preload: its loads and stores
 * (wrapper frames, its thread-local counters, the argument blocks of the
 * OpenMP task trampoline) are bookkeeping, not the program's; as events
 * they doubled the CPU time of a loop of wrapped `omp critical`s. */
static Bool is_own_preload(const DebugInfo *di)
{
    const HChar *base = file_base(di);

    return base != NULL && VG_(string_match)("vgpreload_racepred-*.so", base);
}

/* Asked once per guest instruction at translation time (the verdict is
 * baked into the translation) and once per free, so no cache: a cache
 * keyed on address ranges would go stale when dlclose/dlopen reuse them.
 * An object on both lists is ignored. */
static rp_code_kind kind_of(DebugInfo *di)
{
    /* Code Valgrind has no object for (JIT output) is the program's own. */
    if (di == NULL)
        return RP_CODE_ACCESSES;
    if (is_own_preload(di) || object_matches(&ignored, di))
        return RP_CODE_IGNORED;
    if (object_matches(&synchronising, di))
        return RP_CODE_SYNC;
    return RP_CODE_ACCESSES;
}

rp_code_kind rp_filter_kind(Addr guest_addr)
{
    DiEpoch epoch = VG_(current_DiEpoch)();
    DebugInfo *di = VG_(find_DebugInfo)(epoch, guest_addr);
    UInt i;

    for (i = 0; i < KIND_CACHE; i++)
        if (kind_cache[i].di == di && kind_cache[i].epoch.n == epoch.n && di != NULL)
            return kind_cache[i].kind;
    i = kind_cache_next++ % KIND_CACHE;
    kind_cache[i].di = di;
    kind_cache[i].epoch = epoch;
    kind_cache[i].kind = kind_of(di);
    return kind_cache[i].kind;
}

/* The longest path an atomic source is looked for in: a longer one
 * matches no pattern. */
#define SOURCE_PATH_MAX 1024

rp_code_kind rp_filter_source_kind(Addr guest_addr)
{
    const HChar *file, *dir;
    HChar path[SOURCE_PATH_MAX];
    UInt line;

    if (atomic_sources.n == 0
        || !VG_(get_filename_linenum)(VG_(current_DiEpoch)(), guest_addr, &file, &dir, &line)
        || VG_(strlen)(dir) + VG_(strlen)(file) + 2 > sizeof path)
        return RP_CODE_ACCESSES;
    VG_(sprintf)(path, "%s/%s", dir, file);
    return rp_patterns_match(&atomic_sources, path) ? RP_CODE_SYNC : RP_CODE_ACCESSES;
}

Bool rp_filter_instruments(Addr guest_addr)
{
    return rp_filter_kind(guest_addr) == RP_CODE_ACCESSES;
}
