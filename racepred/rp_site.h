/* rp_site.h — what the tool puts in an event's `site`, and how to read it
 * back.
 *
 * The detectors store the site of every access they remember and hand it
 * back with a race, so whatever the site holds costs them nothing more.
 * The tool packs two things into it:
 *
 *   bits  0-46  the guest instruction address of the access (amd64 user
 *               code lives below 2^47);
 *   bit  47     the access is the free of a heap block (rp_heap.h), and
 *               the address is the caller of free;
 *   bits 48-63  the lockset id of the accessing thread at that moment
 *               (rp_locks.h): 0 = no lock held.
 *
 * The lockset id changes only at lock and unlock events, so the access
 * helpers OR in the running thread's current tag (rp_site_current_tag) and
 * do no other work.  Every place that turns a site back into a code
 * location (reports, SARIF, recorded traces) goes through rp_site_ip.
 * Other events (sync, branch) carry a plain instruction address.
 */
#ifndef RP_SITE_H
#define RP_SITE_H

#include "pub_tool_basics.h"

#define RP_SITE_LOCKSET_SHIFT 48
#define RP_SITE_FREE (1ULL << 47)
#define RP_SITE_IP_MASK (RP_SITE_FREE - 1)
/* Largest lockset id; rp_locks gives it to every set past the
 * 65,535th distinct one ("not recorded"). */
#define RP_SITE_LOCKSET_MAX 0xFFFFu

/* The running thread's lockset id, already shifted into place; kept by
 * rp_locks.c (lock events) and rp_threads.c (thread switches). */
extern ULong rp_site_current_tag;

static inline Addr rp_site_ip(ULong site)
{
    return (Addr)(site & RP_SITE_IP_MASK);
}

static inline Bool rp_site_is_free(ULong site)
{
    return (site & RP_SITE_FREE) != 0;
}

static inline UInt rp_site_lockset(ULong site)
{
    return (UInt)(site >> RP_SITE_LOCKSET_SHIFT);
}

#endif
