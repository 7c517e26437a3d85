/* rp_patterns.h — comma-separated lists of glob patterns (`*`, `?`), as
 * the options that name objects, source files and functions take them:
 * "none" is the empty list; an empty list item is malformed. */
#ifndef RP_PATTERNS_H
#define RP_PATTERNS_H

#include "pub_tool_basics.h"

#define RP_PATTERNS_MAX 32

typedef struct {
    HChar *copy;           /* the list, split in place */
    const HChar *pattern[RP_PATTERNS_MAX];
    UInt n;
} rp_patterns;

/* The list `text` replaces l's; False (and l empty) when it is malformed. */
Bool rp_patterns_set(rp_patterns *l, const HChar *text);

/* Whether a pattern of l matches `name` whole. */
Bool rp_patterns_match(const rp_patterns *l, const HChar *name);

#endif
