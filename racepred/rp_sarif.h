/* rp_sarif.h — --sarif-file=FILE: the races as SARIF 2.1.0, for CI code
 * scanning (GitHub's upload-sarif and other SARIF viewers).
 *
 * Written at exit from the same records as the errors: rp_errors.c hands
 * each race here when the error manager shows it, which happens once per
 * distinct error and never for a suppressed one, and says when the error
 * manager counts a repeat of it.  So the file holds exactly the races of
 * the report, each once, with its occurrence count.
 *
 * One result per race, rule "data-race", level "error":
 *   message            the report's first line (with the status, as the
 *                      text report says it) and the earlier access;
 *   locations[0]       the racing access: the innermost frame of its
 *                      stack that has a file and line (else the first);
 *   relatedLocations   id 1: the earlier access; id 2: the allocation of
 *                      the heap block, when the address is in one;
 *   stacks             the full stack of the access, the earlier access's
 *                      (one frame, or its full stack with
 *                      --history-level=full; absent with none), the
 *                      allocation stack;
 *   occurrenceCount    how many times the error manager saw the race;
 *   properties         detector (the one whose status is given), foundBy
 *                      (every detector that found the code-location pair,
 *                      an array of names), status ("observed", "predicted",
 *                      "predicted, unconfirmed"), observed (boolean),
 *                      address, and kind, size, thread and locksHeld (an
 *                      array of lock addresses; null when not recorded)
 *                      of each access.
 * File names under the directory Valgrind started in become URIs relative
 * to %SRCROOT% (declared in originalUriBaseIds); others are absolute
 * file:// URIs.  Strings are escaped for JSON whatever the symbol names
 * hold (invalid UTF-8 becomes U+FFFD).
 */
#ifndef RP_SARIF_H
#define RP_SARIF_H

#include "pub_tool_basics.h"
#include "pub_tool_execontext.h"

/* How reports, XML and SARIF name an access: "read", "write" or "free". */
static inline const HChar *rp_access_kind(Bool is_write, Bool is_free)
{
    if (is_free)
        return "free";
    return is_write ? "write" : "read";
}

typedef struct rp_sarif_access {
    Bool is_write;
    Bool is_free;           /* the write is a free (--free-is-write) */
    UInt size;
    UInt thread;            /* racepred's, 1-based as in the report */
    ExeContext *where;      /* NULL: not recorded (--history-level=none) */
    const Addr *locks;      /* the locks held, n_locks of them; these */
    UInt n_locks;           /* arrays live as long as the tool */
    Bool locks_unknown;     /* the lockset was not recorded */
} rp_sarif_access;

typedef struct rp_sarif_race {
    const HChar *detector;      /* the one whose status the report gives */
    UInt found_by;              /* all that found it: bit i for
                                 * rp_detector_at(i) */
    Bool observed;
    const HChar *status;        /* as the text report says it */
    Addr addr;
    rp_sarif_access access;     /* the access that completed the race */
    rp_sarif_access previous;   /* the earlier one */
    ExeContext *allocated_at;   /* the heap block's allocation, or NULL */
    SizeT block_size;
    PtrdiffT block_offset;
    /* A confirmed predicted race's witness (rp_wreport.h), written as a
     * codeFlow; NULL: none.  Must live until rp_sarif_finish. */
    const struct rp_witness_desc *witness;
} rp_sarif_race;

/* Creates the file (option value, %p expanded); False on failure. */
Bool rp_sarif_open(const HChar *value);

/* Keeps a race for the file; returns its handle, 0 when no SARIF file is
 * being written (or it was already written). */
UInt rp_sarif_add(const rp_sarif_race *race);

/* The race of this handle happened again, found by the detectors of
 * found_by so far (handle 0: nothing). */
void rp_sarif_repeat(UInt handle, UInt found_by);

/* Writes the file and closes it; later races are not kept. */
void rp_sarif_finish(void);

#endif
