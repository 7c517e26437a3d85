/* rp_errors.c — the error-manager callbacks for `Race`; see rp_errors.h. */
#include "pub_tool_basics.h"
#include "pub_tool_debuginfo.h"
#include "pub_tool_execontext.h"
#include "pub_tool_hashtable.h"
#include "pub_tool_xarray.h"
#include "pub_tool_addrinfo.h"
#include "pub_tool_errormgr.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_threadstate.h"
#include "pub_tool_tooliface.h"

#include "rp_errors.h"
#include "rp_heap.h"
#include "rp_history.h"
#include "rp_locks.h"
#include "rp_sarif.h"
#include "rp_site.h"
#include "rp_syscalls.h"
#include "rp_threads.h"
#include "rp_tool.h"
#include "rp_wreport.h"

typedef enum { RP_ERR_RACE = 0 } rp_error_kind;
typedef enum { RP_SUPP_RACE = 0 } rp_supp_kind;

/* Both accesses of a race, as the report needs them.  The error manager
 * copies this struct (its size comes from update_extra), so it holds no
 * pointer into the detector's memory: `detector` points at the detector's
 * name, which lives as long as the tool. */
typedef struct {
    const HChar *detector;  /* the one whose status the report gives */
    UInt found_by;          /* every detector that found the code-location
                             * pair: bit i for rp_detector_at(i) */
    Bool observed;
    Bool confirmed;
    Bool is_write;
    Bool prev_is_write;
    Bool is_free;           /* the write is a free (rp_site.h) */
    Bool prev_is_free;
    UInt size;
    UInt prev_size;
    rp_tid_t tid;
    rp_tid_t prev_tid;
    Addr site;              /* the access's instruction address */
    Addr prev_site;         /* instruction address; 0 with history none */
    ULong prev_id;          /* event id, for --history-level=full */
    UInt locks;             /* lockset ids (rp_site.h) of each access */
    UInt prev_locks;
    /* Filled in by update_extra, only for errors that are not duplicates. */
    ExeContext *prev_where;
    AddrInfo addr_info;
    /* Set when the error is first shown: its --sarif-file record, and
     * whether count_undebugged has seen it. */
    UInt sarif;
    Bool counted;
    /* The engine's witness for a predicted race it confirmed (a copy). */
    Bool has_witness;
    rp_witness_desc witness;
} rp_race_extra;

Bool rp_errors_show_unconfirmed = False;
ULong rp_errors_unconfirmed = 0;

/* "observed": unordered by happens-before in this run; "predicted,
 * unconfirmed": another schedule may make the accesses adjacent, by the
 * detector's relation, but no witness reordering was checked. */
static const HChar *race_status(const rp_race_extra *x)
{
    if (x->observed)
        return "observed";
    return x->confirmed ? "predicted" : "predicted, unconfirmed";
}

/* Whether the race completes at the event being processed right now, by
 * the running thread: then that thread's current stack is the stack of
 * the second access.  Online detectors report this way; a detector that
 * reports later (from finish(), after post-processing the stream) does
 * not, and the running thread's stack would be unrelated. */
static Bool is_online(const rp_race *race)
{
    return rp_tool_engine != NULL
        && race->second.id == rp_engine_event_count(rp_tool_engine)
        && race->second.tid == rp_threads_current
        && rp_threads_current_vg != VG_INVALID_THREADID;
}

/* Any live thread will do for a report made after the fact: its stack is
 * not used.  The running one, normally the root thread at exit. */
static ThreadId any_thread(void)
{
    ThreadId running = VG_(get_running_tid)();

    return running != VG_INVALID_THREADID ? running : 1;
}

/* Races reported after the fact bypass the error manager's table (it can
 * only take the running thread's stack), so they are deduplicated here,
 * by the fields race_eq compares plus the second access's site. */
typedef struct {
    struct _VgHashNode *next;
    UWord key;                /* hash of the fields below */
    Addr prev_site;
    Addr site;
    Bool is_write;
    Bool prev_is_write;
} rp_seen_race;

static VgHashTable *seen_late_races;

/* Equality of everything but the key (HT_gen_lookup compares keys). */
static Word seen_race_cmp(const void *n1, const void *n2)
{
    const rp_seen_race *r1 = n1;
    const rp_seen_race *r2 = n2;

    return !(r1->prev_site == r2->prev_site && r1->site == r2->site
             && r1->is_write == r2->is_write && r1->prev_is_write == r2->prev_is_write);
}

static Bool late_race_is_new(const rp_race_extra *x, Addr site)
{
    rp_seen_race probe;
    rp_seen_race *r;

    if (seen_late_races == NULL)
        seen_late_races = VG_(HT_construct)("rp.errors.late");
    probe.key = x->prev_site * 31 + site * 17 + (UWord)x->is_write * 2
                + (UWord)x->prev_is_write;
    probe.prev_site = x->prev_site;
    probe.site = site;
    probe.is_write = x->is_write;
    probe.prev_is_write = x->prev_is_write;
    if (VG_(HT_gen_lookup)(seen_late_races, &probe, seen_race_cmp) != NULL)
        return False;
    r = VG_(malloc)("rp.errors.late.node", sizeof *r);
    *r = probe;
    VG_(HT_add_node)(seen_late_races, r);
    return True;
}

typedef struct {
    Addr start;
    SizeT size;
} rp_range;

static rp_range *ignored;
static UInt n_ignored;
static UInt ignored_capacity;

void rp_errors_ignore_range(Addr addr, SizeT size)
{
    if (size == 0)
        return;
    if (n_ignored == ignored_capacity) {
        ignored_capacity = ignored_capacity ? 2 * ignored_capacity : 8;
        ignored = VG_(realloc)("rp.errors.ignored", ignored,
                               ignored_capacity * sizeof *ignored);
    }
    ignored[n_ignored].start = addr;
    ignored[n_ignored].size = size;
    n_ignored++;
}

void rp_errors_track_range(Addr addr, SizeT size)
{
    UInt i = 0;

    while (i < n_ignored) {
        if (addr < ignored[i].start + ignored[i].size
            && ignored[i].start < addr + size)
            ignored[i] = ignored[--n_ignored];
        else
            i++;
    }
}

/* Few ranges are ever ignored, and this runs per race, not per access. */
static Bool is_ignored(Addr addr)
{
    UInt i;

    for (i = 0; i < n_ignored; i++)
        if (addr - ignored[i].start < ignored[i].size)
            return True;
    return False;
}

void rp_errors_report(void *ctx, const rp_race *race)
{
    rp_race_extra extra;
    Addr site = rp_site_ip(race->second.site);

    (void)ctx;
    if (is_ignored((Addr)race->addr))
        return;
    /* Detectors propose, witnesses decide: a race this run did not show
     * (HB orders the two accesses) is an error only with a validated
     * witness.  Others are counted, and shown only on request
     * (--show-unconfirmed=yes). */
    if (!race->observed && !race->confirmed) {
        rp_errors_unconfirmed++;
        if (!rp_errors_show_unconfirmed)
            return;
    }
    VG_(memset)(&extra, 0, sizeof extra);
    extra.detector = race->detector;
    extra.found_by = rp_engine_found_by(rp_tool_engine);
    extra.observed = race->observed;
    extra.confirmed = race->confirmed;
    extra.is_write = race->second.is_write;
    extra.prev_is_write = race->first.is_write;
    extra.is_free = rp_site_is_free(race->second.site);
    extra.prev_is_free = rp_site_is_free(race->first.site);
    extra.size = race->second.size;
    extra.prev_size = race->first.size;
    extra.tid = race->second.tid;
    extra.prev_tid = race->first.tid;
    extra.site = site;
    extra.prev_site = rp_history == RP_HISTORY_NONE
                      ? 0 : rp_site_ip(race->first.site);
    extra.prev_id = race->first.id;
    extra.locks = rp_site_lockset(race->second.site);
    extra.prev_locks = rp_site_lockset(race->first.site);
    if (race->witness != NULL) {
        extra.has_witness = True;
        extra.witness = *race->witness;
    }
    if (is_online(race)) {
        VG_(maybe_record_error)(rp_threads_current_vg, RP_ERR_RACE,
                                (Addr)race->addr, NULL, &extra);
        return;
    }
    /* Both accesses are known by their instruction addresses only: the
     * second one is shown as a one-frame stack too. */
    if (late_race_is_new(&extra, site))
        VG_(unique_error)(any_thread(), RP_ERR_RACE, (Addr)race->addr, NULL,
                          &extra, VG_(make_ExeContext_from_StackTrace)(&site, 1),
                          True, False, True);
}

/* Two races are the same report when their second accesses have the same
 * stack (the core compares that) and the earlier access and the access
 * kinds agree, whichever detectors found them (the engine merged the
 * detectors of one event; this merges across events). */
static Bool race_eq(VgRes res, const Error *e1, const Error *e2)
{
    rp_race_extra *x1 = VG_(get_error_extra)(e1);
    const rp_race_extra *x2 = VG_(get_error_extra)(e2);
    Bool same;

    (void)res;
    same = x1->prev_site == x2->prev_site
        && x1->is_write == x2->is_write
        && x1->prev_is_write == x2->prev_is_write;
    /* e1 is the recorded error; the core counts e2 as a repeat of it.  A
     * detector that finds the pair later is named where the report is
     * still to be written (SARIF, at exit). */
    if (same) {
        x1->found_by |= x2->found_by;
        rp_sarif_repeat(x1->sarif, x1->found_by);
    }
    return same;
}

/* "hb, wcp, dc": the detectors of found_by in registry order. */
static void detector_names(HChar *buf, SizeT size, UInt found_by)
{
    SizeT used = 0;
    UInt i;

    buf[0] = '\0';
    for (i = 0; i < rp_detector_count() && used + 1 < size; i++)
        if (found_by & (1u << i))
            used += VG_(snprintf)(buf + used, size - used, "%s%s", used == 0 ? "" : ", ",
                                  rp_detector_at(i)->name);
}

static UInt count_bits(UInt mask)
{
    UInt n = 0;

    for (; mask != 0; mask &= mask - 1)
        n++;
    return n;
}

/* Racepred threads already announced (indexed by racepred number). */
static Bool *announced;
static rp_tid_t announced_size;

/* Says once per thread where it came from, before the first report that
 * mentions it, as Helgrind does: "thread #3" alone would not tell the user
 * which of the program's threads that is. */
static void announce_thread(rp_tid_t tid)
{
    ExeContext *created_at;

    if (tid >= announced_size)
        announced = rp_tool_grow_zeroed("rp.errors.announced", announced, &announced_size,
                                        tid, sizeof *announced);
    if (announced[tid])
        return;
    announced[tid] = True;
    created_at = rp_threads_created_at(tid);
    if (VG_(clo_xml)) {
        VG_(printf_xml)("<announcethread>\n");
        VG_(printf_xml)("  <hthreadid>%u</hthreadid>\n", tid + 1);
        if (created_at != NULL)
            VG_(pp_ExeContext)(created_at);
        VG_(printf_xml)("</announcethread>\n");
        return;
    }
    VG_(umsg)("---Thread-Announcement------------------------------------------\n");
    VG_(umsg)("\n");
    if (created_at == NULL) {
        VG_(umsg)("Thread #%u is the program's root thread\n", tid + 1);
    } else if (rp_threads_is_task(tid)) {
        VG_(umsg)("Thread #%u is an OpenMP task, created\n", tid + 1);
        VG_(pp_ExeContext)(created_at);
    } else {
        VG_(umsg)("Thread #%u was created\n", tid + 1);
        VG_(pp_ExeContext)(created_at);
    }
    VG_(umsg)("\n");
}

/* Locks already announced in text mode. */
static VgHashTable *announced_locks;

/* Where a lock was first seen (its first successful lock), and what its
 * address is, as Helgrind says it: once per lock in text mode, before the
 * first report that names it; in every report that names it in XML mode
 * (each <error> stands alone there). */
static void announce_lock(Addr lock)
{
    ExeContext *first = rp_locks_first_observed(lock);
    AddrInfo ai;

    if (VG_(clo_xml)) {
        VG_(printf_xml)("  <auxwhat>Lock at %p was first observed</auxwhat>\n",
                        (void *)lock);
        if (first != NULL)
            VG_(pp_ExeContext)(first);
        return;
    }
    if (announced_locks == NULL)
        announced_locks = VG_(HT_construct)("rp.errors.locks");
    if (VG_(HT_lookup)(announced_locks, lock) != NULL)
        return;
    {
        VgHashNode *n = VG_(malloc)("rp.errors.locks.node", sizeof *n);

        n->key = lock;
        VG_(HT_add_node)(announced_locks, n);
    }
    if (first != NULL) {
        VG_(umsg)(" Lock at %p was first observed\n", (void *)lock);
        VG_(pp_ExeContext)(first);
    } else {
        VG_(umsg)(" Lock at %p : no stacktrace for first observation\n",
                  (void *)lock);
    }
    ai.tag = Addr_Undescribed;
    if (!rp_heap_describe(lock, &ai))
        VG_(describe_addr)(first != NULL ? VG_(get_ExeContext_epoch)(first)
                                         : VG_(current_DiEpoch)(), lock, &ai);
    VG_(pp_addrinfo)(lock, &ai);
    VG_(clear_addrinfo)(&ai);
    VG_(umsg)("\n");
}

/* The locks of both accesses, the second's first, each once. */
static void announce_locks(const rp_race_extra *x)
{
    UInt n, n_prev, i, j;
    const Addr *held = rp_locks_lockset(x->locks, &n);
    const Addr *prev_held = rp_locks_lockset(x->prev_locks, &n_prev);

    for (i = 0; i < n; i++)
        announce_lock(held[i]);
    for (j = 0; j < n_prev; j++) {
        for (i = 0; i < n && held[i] != prev_held[j]; i++)
            ;
        if (i == n)
            announce_lock(prev_held[j]);
    }
}

/* "Locks held: none", "Locks held: 1, at address 0x...", "Locks held: 2,
 * at addresses 0x... 0x..." (Helgrind's words). */
static void locks_held(HChar *buf, SizeT size, UInt id)
{
    UInt n, i;
    const Addr *held = rp_locks_lockset(id, &n);
    SizeT used;

    if (id == RP_SITE_LOCKSET_MAX) {
        VG_(snprintf)(buf, size, "Locks held: (not recorded: more than %u "
                      "distinct sets of locks)", RP_SITE_LOCKSET_MAX - 1);
        return;
    }
    if (n == 0) {
        VG_(snprintf)(buf, size, "Locks held: none");
        return;
    }
    used = VG_(snprintf)(buf, size, "Locks held: %u, at address%s", n,
                         n == 1 ? "" : "es");
    for (i = 0; i < n && used + 24 < size; i++)
        used += VG_(snprintf)(buf + used, size - used, " %p", (void *)held[i]);
}

static void race_before_pp(const Error *err)
{
    const rp_race_extra *x = VG_(get_error_extra)(err);

    announce_thread(x->tid);
    announce_thread(x->prev_tid);
    if (!VG_(clo_xml)) {
        VG_(umsg)("----------------------------------------------------------------\n");
        VG_(umsg)("\n");
        announce_locks(x);
    }
}

#define RP_NOT_RECORDED "(location not recorded: --history-level=none)"

/* What the racy address is: a descriptor (rp_syscalls.h), else what
 * race_update_extra found. */
static void pp_location(const Error *err, const rp_race_extra *x)
{
    Addr a = VG_(get_error_address)(err);
    UWord fd;

    if (!rp_syscalls_fd_of(a, &fd))
        VG_(pp_addrinfo)(a, &x->addr_info);
    else if (VG_(clo_xml))
        VG_(printf_xml)("  <auxwhat>Address %#lx is file descriptor %lu</auxwhat>\n", a, fd);
    else
        VG_(umsg)(" Address %#lx is file descriptor %lu\n", a, fd);
}

static void pp_race_xml(const Error *err, const rp_race_extra *x)
{
    HChar held[512];
    UInt i;

    VG_(printf_xml)("  <kind>Race</kind>\n");
    VG_(printf_xml)("  <xwhat>\n");
    VG_(printf_xml)("    <text>Data race (%s, %s) during %s of size %u at %#lx "
                    "by thread #%u</text>\n",
                    x->detector, race_status(x),
                    rp_access_kind(x->is_write, x->is_free), x->size, VG_(get_error_address)(err),
                    x->tid + 1);
    VG_(printf_xml)("    <hthreadid>%u</hthreadid>\n", x->tid + 1);
    VG_(printf_xml)("  </xwhat>\n");
    for (i = 0; i < rp_detector_count(); i++)
        if (x->found_by & (1u << i))
            VG_(printf_xml)("  <detector>%s</detector>\n", rp_detector_at(i)->name);
    VG_(pp_ExeContext)(VG_(get_error_where)(err));
    locks_held(held, sizeof held, x->locks);
    VG_(printf_xml)("  <auxwhat>%s</auxwhat>\n", held);
    VG_(printf_xml)("  <xauxwhat>\n");
    VG_(printf_xml)("    <text>This conflicts with a previous %s of size %u "
                    "by thread #%u</text>\n",
                    rp_access_kind(x->prev_is_write, x->prev_is_free), x->prev_size, x->prev_tid + 1);
    VG_(printf_xml)("    <hthreadid>%u</hthreadid>\n", x->prev_tid + 1);
    VG_(printf_xml)("  </xauxwhat>\n");
    if (x->prev_where != NULL)
        VG_(pp_ExeContext)(x->prev_where);
    else
        VG_(printf_xml)("  <auxwhat>" RP_NOT_RECORDED "</auxwhat>\n");
    locks_held(held, sizeof held, x->prev_locks);
    VG_(printf_xml)("  <auxwhat>%s</auxwhat>\n", held);
    announce_locks(x);
    pp_location(err, x);
    if (x->has_witness && VG_(clo_xml))
        rp_wreport_xml(&x->witness);
    else if (x->has_witness)
        rp_wreport_text(&x->witness);
}

static void pp_race_text(const Error *err, const rp_race_extra *x)
{
    HChar held[512];

    VG_(umsg)("Data race (%s, %s) during %s of size %u at %#lx by thread #%u\n",
              x->detector, race_status(x),
              rp_access_kind(x->is_write, x->is_free), x->size, VG_(get_error_address)(err),
              x->tid + 1);
    if (count_bits(x->found_by) > 1) {
        detector_names(held, sizeof held, x->found_by);
        VG_(umsg)("Found by: %s\n", held);
    }
    locks_held(held, sizeof held, x->locks);
    VG_(umsg)("%s\n", held);
    VG_(pp_ExeContext)(VG_(get_error_where)(err));
    VG_(umsg)("\n");
    VG_(umsg)("This conflicts with a previous %s of size %u by thread #%u\n",
              rp_access_kind(x->prev_is_write, x->prev_is_free), x->prev_size, x->prev_tid + 1);
    locks_held(held, sizeof held, x->prev_locks);
    VG_(umsg)("%s\n", held);
    if (x->prev_where != NULL)
        VG_(pp_ExeContext)(x->prev_where);
    else
        VG_(umsg)("   " RP_NOT_RECORDED "\n");
    pp_location(err, x);
    if (x->has_witness && VG_(clo_xml))
        rp_wreport_xml(&x->witness);
    else if (x->has_witness)
        rp_wreport_text(&x->witness);
}

/* The error manager shows each distinct, unsuppressed error once: the
 * moment to keep it for --sarif-file. */
static void keep_for_sarif(const Error *err, rp_race_extra *x)
{
    rp_sarif_race r;

    if (x->sarif != 0)
        return;
    VG_(memset)(&r, 0, sizeof r);
    r.detector = x->detector;
    r.found_by = x->found_by;
    r.observed = x->observed;
    r.status = race_status(x);
    r.addr = VG_(get_error_address)(err);
    r.access.is_write = x->is_write;
    r.access.is_free = x->is_free;
    r.access.size = x->size;
    r.access.thread = x->tid + 1;
    r.access.where = VG_(get_error_where)(err);
    r.access.locks = rp_locks_lockset(x->locks, &r.access.n_locks);
    r.access.locks_unknown = x->locks == RP_SITE_LOCKSET_MAX;
    r.previous.is_write = x->prev_is_write;
    r.previous.is_free = x->prev_is_free;
    r.previous.size = x->prev_size;
    r.previous.thread = x->prev_tid + 1;
    r.previous.where = x->prev_where;
    r.previous.locks = rp_locks_lockset(x->prev_locks, &r.previous.n_locks);
    r.previous.locks_unknown = x->prev_locks == RP_SITE_LOCKSET_MAX;
    if (x->addr_info.tag == Addr_Block) {
        r.allocated_at = x->addr_info.Addr.Block.allocated_at;
        r.block_size = x->addr_info.Addr.Block.block_szB;
        r.block_offset = x->addr_info.Addr.Block.rwoffset;
    }
    r.witness = x->has_witness ? &x->witness : NULL;
    x->sarif = rp_sarif_add(&r);
}

/* Races shown with an access in code that has no line information, and
 * the object of the first such access (rp_errors_note_undebugged). */
static ULong undebugged_races;
static HChar *undebugged_object;

/* Whether ip has no source line; the first object without is kept. */
static Bool ip_undebugged(DiEpoch ep, Addr ip)
{
    const HChar *file, *object;
    UInt line;

    if (ip == 0 || VG_(get_filename_linenum)(ep, ip, &file, NULL, &line))
        return False;
    if (undebugged_object == NULL && VG_(get_objname)(ep, ip, &object))
        undebugged_object = VG_(strdup)("rp.errors.object", object);
    return True;
}

static void count_undebugged(const Error *err, rp_race_extra *x)
{
    ExeContext *where = VG_(get_error_where)(err);
    DiEpoch ep = VG_(get_ExeContext_epoch)(where);
    Bool second;

    if (x->counted)
        return;
    x->counted = True;
    second = ip_undebugged(ep, x->site);
    if (ip_undebugged(ep, x->prev_site) || second)
        undebugged_races++;
}

void rp_errors_note_undebugged(void)
{
    if (undebugged_races == 0 || VG_(clo_xml))
        return;
    VG_(umsg)("racepred: code without debug information (%s) is in %llu of the races "
              "shown: C++ and Rust atomics inlined there look like plain accesses "
              "(manual: Atomics); with its debug information (a -dbgsym package, a -g "
              "build) racepred tells them apart\n",
              undebugged_object != NULL ? undebugged_object : "?", undebugged_races);
}

static void race_pp(const Error *err)
{
    const rp_race_extra *x = VG_(get_error_extra)(err);

    count_undebugged(err, VG_(get_error_extra)(err));
    keep_for_sarif(err, VG_(get_error_extra)(err));
    if (VG_(clo_xml))
        pp_race_xml(err, x);
    else
        pp_race_text(err, x);
}

/* Runs once per distinct error, before it is printed: the place for the
 * costly parts.  The earlier access becomes a one-frame ExeContext so that
 * both text and XML print it like any stack.  The address is described as
 * a heap block if it is in one (rp_heap.c), else by Valgrind's core
 * (data symbol, stack, mapped file); thread numbers in the description
 * are racepred's, like everywhere in the report. */
static UInt race_update_extra(const Error *err)
{
    rp_race_extra *x = VG_(get_error_extra)(err);
    ExeContext *where = VG_(get_error_where)(err);
    Addr ip = x->prev_site;

    if (rp_history == RP_HISTORY_NONE)
        x->prev_where = NULL;
    else if (rp_history == RP_HISTORY_FULL
             && (x->prev_where = rp_history_stack(x->prev_tid, x->prev_id, ip))
                != NULL)
        ;
    else
        x->prev_where = VG_(make_ExeContext_from_StackTrace)(&ip, 1);
    x->addr_info.tag = Addr_Undescribed;
    if (!rp_heap_describe(VG_(get_error_address)(err), &x->addr_info))
        VG_(describe_addr)(VG_(get_ExeContext_epoch)(where),
                           VG_(get_error_address)(err), &x->addr_info);
    if (x->addr_info.tag == Addr_Stack
        && rp_threads_is_live(x->addr_info.Addr.Stack.tinfo.tid))
        x->addr_info.Addr.Stack.tinfo.tnr =
            rp_threads_of_vg(x->addr_info.Addr.Stack.tinfo.tid) + 1;
    return sizeof *x;
}

static Bool race_recognised_suppression(const HChar *name, Supp *su)
{
    if (VG_(strcmp)(name, "Race") != 0)
        return False;
    VG_(set_supp_kind)(su, RP_SUPP_RACE);
    return True;
}

static Bool race_read_extra_suppression_info(Int fd, HChar **bufpp,
                                             SizeT *nBufp, Int *lineno,
                                             Supp *su)
{
    (void)fd;
    (void)bufpp;
    (void)nBufp;
    (void)lineno;
    (void)su;
    return True;
}

static Bool race_matches_suppression(const Error *err, const Supp *su)
{
    return VG_(get_error_kind)(err) == RP_ERR_RACE
        && VG_(get_supp_kind)(su) == RP_SUPP_RACE;
}

static const HChar *race_error_name(const Error *err)
{
    return VG_(get_error_kind)(err) == RP_ERR_RACE ? "Race" : NULL;
}

static SizeT race_print_extra_suppression_info(const Error *err, HChar *buf,
                                               Int nBuf)
{
    (void)err;
    if (nBuf > 0)
        buf[0] = '\0';
    return 0;
}

static SizeT race_print_extra_suppression_use(const Supp *su, HChar *buf,
                                              Int nBuf)
{
    (void)su;
    if (nBuf > 0)
        buf[0] = '\0';
    return 0;
}

static void race_update_extra_suppression_use(const Error *err, const Supp *su)
{
    (void)err;
    (void)su;
}

void rp_errors_init(void)
{
    /* Thread numbers in the reports are racepred's; the core's "Thread N:"
     * headers would show recycled Valgrind ThreadIds, so they are off. */
    VG_(needs_tool_errors)(race_eq, race_before_pp, race_pp, False,
                           race_update_extra, race_recognised_suppression,
                           race_read_extra_suppression_info,
                           race_matches_suppression, race_error_name,
                           race_print_extra_suppression_info,
                           race_print_extra_suppression_use,
                           race_update_extra_suppression_use);
    VG_(needs_xml_output)();
}
