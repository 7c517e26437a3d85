/* rp_patterns.c — lists of glob patterns; see rp_patterns.h. */
#include "pub_tool_basics.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_seqmatch.h"

#include "rp_patterns.h"

static Bool split(rp_patterns *l)
{
    HChar *p;

    for (p = l->copy; *p != '\0'; ) {
        HChar *end = p;

        while (*end != '\0' && *end != ',')
            end++;
        if (end == p || l->n == RP_PATTERNS_MAX)
            return False;
        l->pattern[l->n++] = p;
        if (*end == '\0')
            break;
        *end = '\0';
        p = end + 1;
        if (*p == '\0')
            return False;
    }
    return True;
}

Bool rp_patterns_set(rp_patterns *l, const HChar *text)
{
    VG_(free)(l->copy);
    l->copy = NULL;
    l->n = 0;
    if (VG_(strcmp)(text, "none") == 0)
        return True;
    if (text[0] == '\0')
        return False;
    l->copy = VG_(strdup)("rp.patterns", text);
    if (split(l))
        return True;
    l->n = 0;
    return False;
}

Bool rp_patterns_match(const rp_patterns *l, const HChar *name)
{
    UInt i;

    for (i = 0; i < l->n; i++)
        if (VG_(string_match)(l->pattern[i], name))
            return True;
    return False;
}
