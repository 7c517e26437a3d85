/* rp_filter.c — the ignored-objects list; see rp_filter.h. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_seqmatch.h"

#include "rp_filter.h"

#define RP_FILTER_MAX_PATTERNS 32

static HChar *patterns_copy;
static const HChar *patterns[RP_FILTER_MAX_PATTERNS];
static UInt n_patterns;

Bool rp_filter_set(const HChar *list)
{
    HChar *p;

    VG_(free)(patterns_copy);
    patterns_copy = NULL;
    n_patterns = 0;
    if (VG_(strcmp)(list, "none") == 0)
        return True;
    if (list[0] == '\0')
        return False;
    patterns_copy = VG_(strdup)("rp.filter.patterns", list);
    for (p = patterns_copy; *p != '\0'; ) {
        HChar *end = p;

        while (*end != '\0' && *end != ',')
            end++;
        if (end == p || n_patterns == RP_FILTER_MAX_PATTERNS)
            return False;
        patterns[n_patterns++] = p;
        if (*end == '\0')
            break;
        *end = '\0';
        p = end + 1;
        if (*p == '\0')
            return False;
    }
    return True;
}

static Bool name_is_ignored(const HChar *name)
{
    UInt i;

    for (i = 0; i < n_patterns; i++)
        if (VG_(string_match)(patterns[i], name))
            return True;
    return False;
}

static Bool object_is_ignored(const DebugInfo *di)
{
    const HChar *soname = VG_(DebugInfo_get_soname)(di);
    const HChar *filename = VG_(DebugInfo_get_filename)(di);
    const HChar *base = filename;
    const HChar *p;

    if (soname != NULL && soname[0] != '\0' && VG_(strcmp)(soname, "NONE") != 0
        && name_is_ignored(soname))
        return True;
    if (filename == NULL)
        return False;
    for (p = filename; *p != '\0'; p++)
        if (*p == '/')
            base = p + 1;
    return name_is_ignored(base);
}

/* Asked once per guest instruction at translation time only (the
 * verdict is baked into the translation), so no cache: a cache keyed on
 * address ranges would go stale when dlclose/dlopen reuse them. */
Bool rp_filter_instruments(Addr guest_addr)
{
    DebugInfo *di;

    if (n_patterns == 0)
        return True;
    di = VG_(find_DebugInfo)(VG_(current_DiEpoch)(), guest_addr);
    /* Code Valgrind has no object for (JIT output) is the program's own. */
    if (di == NULL)
        return True;
    return !object_is_ignored(di);
}
