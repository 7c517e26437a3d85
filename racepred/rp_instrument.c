/* rp_instrument.c — turning the client's machine code into events.
 *
 * Valgrind hands the tool each superblock as flat VEX IR (every operand an
 * atom: a temporary or a constant).  The tool copies it statement by
 * statement and, in front of each statement that touches client memory,
 * adds a call to a "dirty helper": a C function of the tool that runs when
 * the translated code does.  The helper builds an rp_event and gives it to
 * the engine.  Each call carries the access's address and size (a size of
 * 1, 2, 4 or 8 bytes is the helper's own: one helper per size), and the
 * guest address of the machine instruction it belongs to (the `site`, from
 * the Ist_IMark that opens every instruction), which reports turn back
 * into a function name and source line.
 *
 * Valgrind runs one client thread at a time and switches threads only
 * between superblocks, so a helper placed before a statement emits its
 * event exactly where the access falls in the observed interleaving, and
 * the running thread (rp_threads_current) is the one accessing.
 *
 * Statements and what they become:
 *   WrTmp(Load)          read                (Iex_Load)
 *   Store                write
 *   LoadG / StoreG       read / write, under the statement's guard
 *   Dirty with mFx       read, write or both (Ifx_Modify) of mAddr/mSize:
 *                        a helper of VEX's own (cpuid, xsave, fxsave...)
 *   LLSC                 load-linked: read; store-conditional: atomic
 *   CAS                  atomic: every lock-prefixed read-modify-write on
 *                        amd64 becomes one.  An atomic access is
 *                        synchronisation, never a race candidate: it is an
 *                        acquire (RP_EV_SYNC_RECV) then a release
 *                        (RP_EV_SYNC_SEND) of the address as a sync object,
 *                        and it makes the address a sync variable: later
 *                        plain loads and stores of it are acquires and
 *                        releases too (rp_atomics.h).
 *   Exit                 branch, only when a detector asked for branches
 * Get/Put touch the guest register file, not memory: nothing to do.
 * Plain accesses of the common sizes share calls: up to five of a
 * superblock wait for one call after the last of them (rp_batch.h), which
 * comes before anything that needs them passed on (ends_batch, and every
 * other helper call), so the events keep their place in the interleaving.
 * Three things keep helper calls out of the common case: an access that
 * repeats one its superblock surely made gets no call (rp_blockrep.h);
 * a store of a 64-bit word (each lane of a vector, a CAS's new value)
 * calls the stack-escape check only when the word is an address of the
 * running thread's stack and the target is not its private part
 * (rp_stacks.h); and the access helpers return at once for that private
 * part.
 * Code in the ignored objects (rp_filter.h) is copied unchanged; in the
 * synchronising ones (libgomp) every load is an acquire and every store a
 * release of its word, and atomics are as anywhere.
 *
 * The site of a read or write also carries the running thread's lockset
 * id in its top bits (rp_site.h): one OR with a global.  With
 * --history-level=full the accesses call the *_full helpers, which note
 * the thread's callers when a call or return made them stale, and every
 * superblock exit that is not a plain jump stores 1 into
 * rp_history_stale (rp_history.h); approx and none use the plain helpers.
 */
#include "pub_tool_basics.h"
#include "pub_tool_guest.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_machine.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_transtab.h"

#include "rp_atomics.h"
#include "rp_batch.h"
#include "rp_blockrep.h"
#include "rp_clientreq.h"
#include "rp_filter.h"
#include "rp_history.h"
#include "rp_libc.h"
#include "rp_instrument.h"
#include "rp_lockwords.h"
#include "rp_site.h"
#include "rp_sort.h"
#include "rp_spin.h"
#include "rp_privblocks.h"
#include "rp_stacks.h"
#include "rp_threads.h"
#include "rp_tool.h"

/* The engine's count of sends when it drops repeated receives, else 0
 * (then no poll is noted or dropped). */
static ULong engine_sends(void)
{
    rp_engine *eng = rp_tool_engine;

    return eng != NULL && eng->repeats != NULL ? eng->repeats->n_sends + 1 : 0;
}

/* Blocks a thread runs on after a spin-loop hint (Ijk_Yield) before the
 * core ends its timeslice. */
#define YIELD_WITHIN_BLOCKS 300u

/* Ends the running thread's timeslice within YIELD_WITHIN_BLOCKS blocks,
 * as a spin-loop hint does, without a test in every block: the core keeps
 * the blocks a thread has left in its guest state (host_EvC_COUNTER),
 * which each block's event check counts down, and ends the timeslice at
 * zero (counting the blocks cut as run: only its statistics see that).
 * Outside the translated code (a system call's accesses) the write is
 * lost, since the core sets the counter afresh when the thread runs on. */
static void yield_soon(void)
{
    PtrdiffT at = offsetof(VexGuestArchState, host_EvC_COUNTER);
    UInt left;

    VG_(get_shadow_regs_area)(rp_threads_current_vg, (UChar *)&left, 0, at, sizeof left);
    if (left <= YIELD_WITHIN_BLOCKS)
        return;
    left = YIELD_WITHIN_BLOCKS;
    rp_instrument_spin_yields++;
    VG_(set_shadow_regs_area)(rp_threads_current_vg, 0, at, sizeof left, (const UChar *)&left);
}

/* A load of a marked variable: one that repeats a load of the same
 * instruction since the last send (rp_atomics.h, Spinning) spins on what
 * no other thread can change while this one holds the CPU: it yields. */
static void yield_if_spinning(Addr addr, Addr site, ULong sends)
{
    if (rp_atomics_spins(rp_threads_current, addr, site, sends))
        yield_soon();
}

/* Whether a plain load repeats the last poll (rp_atomics.h): a receive
 * the engine would drop, of an address still marked. */
static Bool polled_again(Addr addr, Addr site)
{
    ULong sends = engine_sends();

    if (sends == 0 || !rp_atomics_polled(rp_threads_current, addr, sends))
        return False;
    yield_if_spinning(addr, site, sends);
    return True;
}

/* A plain load of a synchronisation variable: a receive, the new poll. */
static void on_sync_load(Addr addr, Addr site)
{
    ULong sends;

    rp_tool_emit(RP_EV_SYNC_RECV, rp_threads_current, rp_atomics_object(addr), 0, site);
    sends = engine_sends();
    if (sends == 0)
        return;
    rp_atomics_note_poll(rp_threads_current, addr, sends);
    yield_if_spinning(addr, site, sends);
}

/* The rare cases of a plain load or store, out of line: the running
 * thread ignores its accesses (rp_threads_current_ignores), or the address
 * is one an atomic RMW has used, which makes the load an acquire and the
 * store a release of it, not an access (rp_atomics.h). */
static void on_access_slow(Bool is_write, Addr addr, UWord size, Addr site)
{
    if (rp_threads_current_ignores
        & (is_write ? RP_IGNORE_WRITES : RP_IGNORE_READS))
        return;
    if (!is_write && rp_atomics_may_hold(addr) && polled_again(addr, site))
        return;
    if (!rp_atomics_may_hold(addr) || !rp_atomics_holds(addr))
        rp_tool_emit(is_write ? RP_EV_WRITE : RP_EV_READ, rp_threads_current,
                     addr, (uint32_t)size, site | rp_site_current_tag);
    else if (is_write)
        rp_tool_emit(RP_EV_SYNC_SEND, rp_threads_current, rp_atomics_object(addr), 0, site);
    else
        on_sync_load(addr, site);
}

/* An access the filter did not drop: passed on, unless the thread
 * ignores it, its address is a synchronisation variable or it is its
 * thread's to a private heap block (rp_privblocks.h) whose page the
 * helpers' first test did not find cached. */
static inline __attribute__((always_inline))
void pass_on_access(Bool is_write, Addr addr, UWord size, Addr site)
{
    if (UNLIKELY(rp_threads_current_ignores | rp_atomics_may_hold(addr))) {
        on_access_slow(is_write, addr, size, site);
        return;
    }
    if (rp_privblocks_skip(rp_threads_current, addr, size))
        return;
    rp_tool_emit_kept_access(is_write ? RP_EV_WRITE : RP_EV_READ, rp_threads_current, addr,
                             (uint32_t)size, site | rp_site_current_tag);
}

/* The common case, a repeat (rp_repeats.h), costs the filter's test and
 * nothing else: a repeat's first instance was passed on, so its thread
 * did not ignore it and its address was no synchronisation variable then
 * (an RMW that makes it one clears the filter there: on_atomic). */
static inline __attribute__((always_inline))
void on_access(Bool is_write, Addr addr, UWord size, Addr site)
{
    rp_engine *eng = rp_tool_engine;

    if (LIKELY(eng != NULL && eng->repeats != NULL)
        && rp_engine_drop_repeat(eng, rp_threads_current, addr, (uint32_t)size, is_write,
                                 !(rp_threads_current_ignores & RP_IGNORE_WRITES)))
        return;
    pass_on_access(is_write, addr, size, site);
}

/* Everything but the common case, out of line (it tests the filter again).
 * A report of this access takes its stack from the guest state, whose IP
 * the translated code does not keep exact (declare_stack_reads): it is
 * set to the access's instruction first.  Only a helper may do that; in a
 * client request the IP is where the program resumes. */
static __attribute__((noinline)) void on_access_rest(Bool is_write, Addr addr, UWord size,
                                                     Addr site)
{
    VG_(set_IP)(rp_threads_current_vg, site);
    on_access(is_write, addr, size, site);
}

/* rp_tool_engine's filter of repeats (NULL: none, or no engine), and
 * whether its dropped writes are listed for a witness window. */
static rp_repeats *filter;
static Bool filter_lists_rewrites;

void rp_instrument_set_engine(rp_engine *eng)
{
    filter = eng != NULL ? eng->repeats : NULL;
    filter_lists_rewrites = eng != NULL && eng->window != NULL;
    rp_instrument_switched();
}

void rp_instrument_switched(void)
{
    if (filter != NULL)
        repeats_set_current(filter, rp_threads_current);
}

/* What the inline test of the filter says of an access: a repeat that
 * leaves nothing to do (dropped), no repeat (its chunk was cached and its
 * slot says so: nothing to ask the filter again), or ask the filter out of
 * line (its chunk was not cached, it spans granules, or it is a repeated
 * write the engine must list for a witness window). */
typedef enum { FILTER_DROPPED, FILTER_NEW, FILTER_ASK } filter_verdict;

/* The common case alone, calling nothing, so that the helpers need no
 * stack frame for it: a repeat within one granule that leaves nothing to
 * do — a read, or a write with no witness window, or whose granule is
 * already listed as rewritten (rp_engine_dropped_write), or of a thread
 * that ignores its writes. */
static inline __attribute__((always_inline))
filter_verdict filter_test(Bool is_write, Addr addr, UWord size)
{
    rp_repeat_slot *s;
    bool answered;

    if (UNLIKELY(filter == NULL))
        return FILTER_ASK;
    s = repeats_slot_cached(filter, addr, (uint32_t)size, is_write, &answered);
    if (s == NULL)
        return answered ? FILTER_NEW : FILTER_ASK;
    if (is_write && filter_lists_rewrites && (s->stamp & RP_REPEATS_REWRITTEN) == 0
        && !(rp_threads_current_ignores & RP_IGNORE_WRITES))
        return FILTER_ASK;
    filter->dropped++;
    return FILTER_DROPPED;
}

/* An access the inline test found new: on_access_rest without asking the
 * filter again (fresh memory and first touches in a span: every event
 * that reaches the detectors). */
static __attribute__((noinline)) void on_new_access(Bool is_write, Addr addr, UWord size,
                                                    Addr site)
{
    VG_(set_IP)(rp_threads_current_vg, site);
    pass_on_access(is_write, addr, size, site);
}

/* An access outside the running thread's private stack (rp_stacks.h):
 * none either if it is to one of the thread's private heap blocks
 * (rp_privblocks.h), whose accesses need not touch the filter's shadow. */
static inline __attribute__((always_inline))
void on_shared_access(Bool is_write, Addr addr, UWord size, Addr site)
{
    filter_verdict v;

    if (privheap_tag_owns(&rp_privblocks_heap, rp_privblocks_tag_key, addr, size)
        || privheap_page_owns_cached(&rp_privblocks_heap, rp_threads_current, addr, size))
        return;
    v = filter_test(is_write, addr, size);

    if (LIKELY(v == FILTER_DROPPED))
        return;
    if (v == FILTER_NEW)
        on_new_access(is_write, addr, size, site);
    else
        on_access_rest(is_write, addr, size, site);
}

/* --history-level=full: the callers are noted first if stale (the guest
 * IP first set to the access's instruction: declare_stack_reads). */
static void note_history(Addr site)
{
    VG_(set_IP)(rp_threads_current_vg, site);
    rp_history_note(rp_tool_engine != NULL
                    ? rp_engine_event_count(rp_tool_engine) + 1 : 0);
}

/* A plain load or store; `full`: of --history-level=full. */
static inline __attribute__((always_inline))
void on_plain_access(Bool full, Bool is_write, Addr addr, UWord size, Addr site)
{
    if (rp_stacks_is_private(addr, size))
        return;
    if (full && UNLIKELY(rp_history_stale))
        note_history(site);
    on_shared_access(is_write, addr, size, site);
}

static VG_REGPARM(3) void on_read(Addr addr, UWord size, Addr site)
{
    on_plain_access(False, False, addr, size, site);
}

static VG_REGPARM(3) void on_write(Addr addr, UWord size, Addr site)
{
    on_plain_access(False, True, addr, size, site);
}

static VG_REGPARM(3) void on_read_full(Addr addr, UWord size, Addr site)
{
    on_plain_access(True, False, addr, size, site);
}

static VG_REGPARM(3) void on_write_full(Addr addr, UWord size, Addr site)
{
    on_plain_access(True, True, addr, size, site);
}

/* The same for each common size, the size a constant of the helper: the
 * filter's tests of the granule and its byte mask fold into a few
 * instructions (about a tenth of pigz's time under --detector=hb). */
#define SIZED_HELPERS(n)                                                   \
    static VG_REGPARM(2) void on_read##n(Addr addr, Addr site)             \
    {                                                                      \
        on_plain_access(False, False, addr, n, site);                      \
    }                                                                      \
    static VG_REGPARM(2) void on_write##n(Addr addr, Addr site)            \
    {                                                                      \
        on_plain_access(False, True, addr, n, site);                       \
    }                                                                      \
    static VG_REGPARM(2) void on_read_full##n(Addr addr, Addr site)        \
    {                                                                      \
        on_plain_access(True, False, addr, n, site);                       \
    }                                                                      \
    static VG_REGPARM(2) void on_write_full##n(Addr addr, Addr site)       \
    {                                                                      \
        on_plain_access(True, True, addr, n, site);                        \
    }
SIZED_HELPERS(1)
SIZED_HELPERS(2)
SIZED_HELPERS(4)
SIZED_HELPERS(8)

typedef struct sized_helper {
    const HChar *name;
    void *fn;
} sized_helper;

#define SIZED_ENTRY(n)                                                     \
    { { { "rp_on_read" #n, (void *)&on_read##n },                          \
        { "rp_on_write" #n, (void *)&on_write##n } },                      \
      { { "rp_on_read_full" #n, (void *)&on_read_full##n },                \
        { "rp_on_write_full" #n, (void *)&on_write_full##n } } }

/* By log2 of the size, full history, write. */
static const sized_helper sized_helpers[4][2][2] = {
    SIZED_ENTRY(1), SIZED_ENTRY(2), SIZED_ENTRY(4), SIZED_ENTRY(8),
};

/* The helper for accesses of `size` bytes, NULL for other sizes. */
static const sized_helper *sized_helper_of(Int size, Bool full, Bool is_write)
{
    switch (size) {
    case 1: return &sized_helpers[0][full][is_write];
    case 2: return &sized_helpers[1][full][is_write];
    case 4: return &sized_helpers[2][full][is_write];
    case 8: return &sized_helpers[3][full][is_write];
    default: return NULL;
    }
}

Bool rp_instrument_floor = False;

/* Whether code translated before the first thread creation leaves out
 * what a thread alone does not need (rp_instrument_alone_ends). */
static Bool translates_alone_code(void)
{
    return rp_stacks_skip_alone && !rp_instrument_floor;
}

/* Whether the block being translated runs only while the root thread is
 * alone: no thread has been created yet. */
static Bool translating_alone(void)
{
    return rp_threads_count() <= 1 && translates_alone_code();
}

/* The core only lets a tool discard translations from a client request;
 * a system call's hook runs outside translated code too, as the core's
 * own discards at munmap and mprotect do. */
extern Bool VG_(ok_to_discard_translations);

void rp_instrument_alone_ends(void)
{
    if (!translates_alone_code())
        return;
    VG_(ok_to_discard_translations) = True;
    VG_(discard_translations_safely)(0, ~(SizeT)0, "racepred: first thread");
    VG_(ok_to_discard_translations) = False;
}

/* --bench-floor=yes: the call, and nothing else. */
static VG_REGPARM(3) void on_access_floor(Addr addr, UWord size, Addr site)
{
    (void)addr;
    (void)size;
    (void)site;
}

/* Makes [addr, addr + size) a synchronisation variable (rp_atomics.h).
 * Its words' plain accesses are then no repeats: the filter runs before
 * the atomics' test. */
static void mark_sync_variable(Addr addr, UWord size)
{
    Addr word = addr & ~(Addr)7;

    if (rp_atomics_mark(addr, size) && rp_tool_engine != NULL
        && rp_tool_engine->repeats != NULL)
        repeats_forget(rp_tool_engine->repeats, word, ((addr + size + 7) & ~(Addr)7) - word);
}

/* An atomic read-modify-write: an acquire and a release of its variable,
 * unless the thread is inside a lock library's own code (the preload's
 * RP_ANNOUNCE_UNSEEN_ENTER), whose lock the preload reports itself. */
static VG_REGPARM(3) void on_atomic(Addr addr, UWord size, Addr site)
{
    Addr obj;

    if (rp_threads_current_ignores & RP_IGNORE_ATOMICS)
        return;
    mark_sync_variable(addr, size);
    /* After the mark: it may start a variable. */
    obj = rp_atomics_object(addr);
    rp_tool_emit(RP_EV_SYNC_RECV, rp_threads_current, obj, 0, site);
    rp_tool_emit(RP_EV_SYNC_SEND, rp_threads_current, obj, 0, site);
}

Bool rp_instrument_spin_loops = True;
ULong rp_instrument_spin_variables, rp_instrument_spin_yields;

/* A load a spin loop polls (rp_spin.h): a receive on its variable.  The
 * first one makes the address a synchronisation variable, usually after
 * the write the loop waits for (the flag was set before the waiter ran):
 * that write was a plain one, so its thread sends on the variable now,
 * late but in its own order, which orders at least what it did before the
 * write and never orders anything the run did not.  The polling thread
 * itself too, when it wrote the variable last: its write may publish
 * what another thread's later poll receives (a pointer it hands over,
 * then waits to see cleared). */
static VG_REGPARM(3) void on_spin_read(Addr addr, UWord size, Addr site)
{
    rp_tid_t writer;

    if (rp_threads_current_ignores & RP_IGNORE_READS)
        return;
    if (rp_atomics_may_hold(addr) && rp_atomics_holds(addr)) {
        if (!polled_again(addr, site))
            on_sync_load(addr, site);
        return;
    }
    mark_sync_variable(addr, size);
    rp_instrument_spin_variables++;
    writer = rp_tool_engine != NULL ? rp_engine_last_writer(rp_tool_engine, addr) : RP_NO_WRITER;
    if (writer != RP_NO_WRITER)
        rp_tool_emit(RP_EV_SYNC_SEND, writer, rp_atomics_object(addr), 0, site);
    on_sync_load(addr, site);
}

/* A load or store in a synchronising object (rp_filter.h); none inside
 * a lock of the object that the preload reports itself (omp_set_lock,
 * RP_IGNORE_ATOMICS). */
static VG_REGPARM(2) void on_sync_read(Addr addr, Addr site)
{
    if (rp_threads_current_ignores & RP_IGNORE_ATOMICS)
        return;
    if (!polled_again(addr, site))
        on_sync_load(addr, site);
}

static VG_REGPARM(2) void on_sync_write(Addr addr, Addr site)
{
    if (rp_threads_current_ignores & RP_IGNORE_ATOMICS)
        return;
    rp_tool_emit(RP_EV_SYNC_SEND, rp_threads_current, rp_atomics_object(addr), 0, site);
}

static VG_REGPARM(1) void on_branch(Addr site)
{
    rp_tool_emit(RP_EV_BRANCH, rp_threads_current, 0, 0, site);
}

/* Whether the instruction being instrumented has written the stack
 * pointer already (a push): the unwinder would start from a wrong SP, so
 * its accesses do not note the callers (--history-level=full); the next
 * access does. */
static Bool sp_written;

/* What the code being instrumented does (rp_filter.h). */
static rp_code_kind code_kind;

/* A load or store of a synchronising object: an acquire or a release. */
static IRDirty *sync_call(Bool is_write, IRExpr *addr, Addr site)
{
    return unsafeIRDirty_0_N(2, is_write ? "rp_on_sync_write" : "rp_on_sync_read",
                             VG_(fnptr_to_fnentry)(is_write ? &on_sync_write
                                                            : &on_sync_read),
                             mkIRExprVec_2(addr, mkIRExpr_HWord(site)));
}

/* The preload's announcing nops, sorted (rp_preload.h), at which a
 * wrapped libc function says what it will read and write (rp_libc.h).
 * The report of such an access takes its stack at the nop, in the
 * wrapper. */
#define MAX_ANNOUNCE_SITES 4096
static uint64_t *announce_sites;
static UInt n_announce_sites;

static Bool is_announce_site(Addr a)
{
    size_t i = lower_bound_u64(announce_sites, n_announce_sites, a);

    return i < n_announce_sites && announce_sites[i] == a;
}

/* The nop's record on the stack: read, read size, write, write size,
 * caller (rp_preload.h); or a lock library's code entered or left
 * (RP_ANNOUNCE_UNSEEN_ENTER in place of the read size). */
static void on_announce(const UWord *record, Addr site)
{
    if (record[1] == RP_ANNOUNCE_UNSEEN_ENTER || record[1] == RP_ANNOUNCE_UNSEEN_LEAVE) {
        rp_threads_ignore(rp_threads_current_vg,
                          RP_IGNORE_READS | RP_IGNORE_WRITES | RP_IGNORE_ATOMICS,
                          record[1] == RP_ANNOUNCE_UNSEEN_ENTER);
        return;
    }
    VG_(set_IP)(rp_threads_current_vg, site);
    rp_libc_access(rp_threads_current_vg, record[0], record[1], record[2], record[3],
                   record[4]);
}

/* Translations made before the preload said where its nops are (libc's
 * start-up calls memcpy) lack the calls: they go.  A list that cannot be
 * the preload's is ignored. */
void rp_instrument_set_announce_sites(const Addr *first, const Addr *last)
{
    UInt i, n;

    if (first == NULL || last < first || last - first > MAX_ANNOUNCE_SITES
        || n_announce_sites != 0)
        return;
    n = (UInt)(last - first);
    announce_sites = VG_(malloc)("rp.instrument.announce", (n + 1) * sizeof *announce_sites);
    for (i = 0; i < n; i++)
        announce_sites[i] = first[i];
    sort_u64(announce_sites, n);
    n_announce_sites = n;
    for (i = 0; i < n; i++)
        VG_(discard_translations_safely)(announce_sites[i], 1, "racepred: announce");
}

/* The guest layout of the superblock being instrumented. */
static const VexGuestLayout *guest_layout;

static void declare_read(IRDirty *d, Int offset, Int size)
{
    Int i = d->nFxState++;

    d->fxState[i].fx = Ifx_Read;
    d->fxState[i].offset = offset;
    d->fxState[i].size = size;
    d->fxState[i].nRepeats = 0;
    d->fxState[i].repeatLen = 0;
}

/* A new temporary of `sb` holding e (flat IR: operands are atoms). */
static IRExpr *new_tmp(IRSB *sb, IRType ty, IRExpr *e)
{
    IRTemp t = newIRTemp(sb->tyenv, ty);

    addStmtToIRSB(sb, IRStmt_WrTmp(t, e));
    return IRExpr_RdTmp(t);
}

static IRExpr *load_word(IRSB *sb, const void *where)
{
    return new_tmp(sb, Ity_I64, IRExpr_Load(Iend_LE, Ity_I64, mkIRExpr_HWord((HWord)where)));
}

/* A report takes the current access's stack from the guest state when
 * the helper runs, and VEX keeps the SP and FP exact only at the memory
 * accesses themselves, which come after the helper: in a superblock that
 * went on into a called function, the callee's first accesses would be
 * unwound from the caller's registers (a garbage frame above the access).
 * So the helper declares that it reads them, and VEX keeps their updates
 * before it.  The IP is not kept exact at all (the last one written may
 * be the call's); the helpers set it to the access's instruction before
 * anything takes a stack (on_access_rest, note_history). */
static void declare_stack_reads(IRDirty *d)
{
    declare_read(d, guest_layout->offset_SP, guest_layout->sizeof_SP);
    declare_read(d, guest_layout->offset_FP, guest_layout->sizeof_FP);
}

Bool rp_instrument_block_repeats = True;

/* Whether the block being instrumented drops the accesses it repeats
 * (rp_blockrep.h): only when the engine filters repeats. */
static Bool drop_block_repeats;

static Bool surely(const IRExpr *guard)
{
    return guard == NULL
        || (guard->tag == Iex_Const && guard->Iex.Const.con->tag == Ico_U1
            && guard->Iex.Const.con->Ico.U1);
}

/* Appends a call of on_read or on_write (of its sized form when there is
 * one) for one access; `guard` may be NULL (always). */
static void add_single_access(IRSB *sb, Bool is_write, IRExpr *addr, Int size,
                              Addr site, IRExpr *guard)
{
    IRDirty *d;
    const sized_helper *sized;
    Bool full = rp_history == RP_HISTORY_FULL && !sp_written;

    if (rp_instrument_floor)
        d = unsafeIRDirty_0_N(3, "rp_on_access_floor",
                              VG_(fnptr_to_fnentry)(&on_access_floor),
                              mkIRExprVec_3(addr, mkIRExpr_HWord((HWord)size),
                                            mkIRExpr_HWord(site)));
    else if (code_kind == RP_CODE_SYNC)
        d = sync_call(is_write, addr, site);
    else if ((sized = sized_helper_of(size, full, is_write)) != NULL)
        d = unsafeIRDirty_0_N(2, sized->name, VG_(fnptr_to_fnentry)(sized->fn),
                              mkIRExprVec_2(addr, mkIRExpr_HWord(site)));
    else if (is_write)
        d = unsafeIRDirty_0_N(3, full ? "rp_on_write_full" : "rp_on_write",
                              VG_(fnptr_to_fnentry)(full ? &on_write_full
                                                         : &on_write),
                              mkIRExprVec_3(addr, mkIRExpr_HWord((HWord)size),
                                            mkIRExpr_HWord(site)));
    else
        d = unsafeIRDirty_0_N(3, full ? "rp_on_read_full" : "rp_on_read",
                              VG_(fnptr_to_fnentry)(full ? &on_read_full
                                                         : &on_read),
                              mkIRExprVec_3(addr, mkIRExpr_HWord((HWord)size),
                                            mkIRExpr_HWord(site)));
    if (guard != NULL)
        d->guard = guard;
    if (!rp_instrument_floor && code_kind != RP_CODE_SYNC)
        declare_stack_reads(d);
    addStmtToIRSB(sb, IRStmt_Dirty(d));
}

Bool rp_instrument_batches = True;

/* The plain accesses waiting for one call (rp_batch.h): their sizes,
 * instructions and helpers, and their addresses and kinds. */
static rp_access_batch pending;
static IRExpr *pending_addr[RP_BATCH_MAX];
static Bool pending_write[RP_BATCH_MAX];

/* Appends the call that passes on the waiting accesses. */
static void flush_batch(IRSB *sb)
{
    IRDirty *d;

    if (pending.n == 1) {
        add_single_access(sb, pending_write[0], pending_addr[0], (Int)pending.size[0],
                          pending.site[0], NULL);
    } else if (pending.n > 1) {
        d = rp_batch_call(&pending, pending_addr);
        declare_stack_reads(d);
        addStmtToIRSB(sb, IRStmt_Dirty(d));
    }
    VG_(memset)(&pending, 0, sizeof pending);
}

/* Whether an access may wait in the batch: a plain, unguarded one of a
 * sized helper's size, whose helper notes no callers (--history-level=full
 * does, at the access). */
static Bool batchable(Int size, IRExpr *guard)
{
    return rp_instrument_batches && guard == NULL && !rp_instrument_floor
        && code_kind == RP_CODE_ACCESSES && rp_history != RP_HISTORY_FULL
        && sized_helper_of(size, False, False) != NULL;
}

/* An access's call, or its place in the batch; `guard` may be NULL
 * (always). */
static void add_access(IRSB *sb, Bool is_write, IRExpr *addr, Int size,
                       Addr site, IRExpr *guard)
{
    UInt k = pending.n;

    if (code_kind == RP_CODE_ACCESSES && translating_alone())
        return;
    if (drop_block_repeats && code_kind == RP_CODE_ACCESSES
        && rp_blockrep_repeats(addr, size, is_write, surely(guard)))
        return;
    if (code_kind == RP_CODE_SYNC)
        rp_blockrep_event();
    if (!batchable(size, guard)) {
        flush_batch(sb);
        add_single_access(sb, is_write, addr, size, site, guard);
        return;
    }
    pending.size[k] = (UInt)size;
    pending.site[k] = site;
    pending.helper[k] = (rp_access_helper)sized_helper_of(size, False, is_write)->fn;
    pending_addr[k] = addr;
    pending_write[k] = is_write;
    pending.n = k + 1;
    if (pending.n == RP_BATCH_MAX)
        flush_batch(sb);
}

/* Appends a call of a helper that makes an event of its own: the waiting
 * accesses are passed on first, and no access after it repeats one made
 * before (rp_blockrep.h). */
static void add_event_call(IRSB *sb, IRDirty *d)
{
    flush_batch(sb);
    rp_blockrep_event();
    addStmtToIRSB(sb, IRStmt_Dirty(d));
}

/* A stored word the translated code found in the running thread's stack
 * (inclusive of its top) or in the private blocks' envelope, at an
 * address outside the private stack part: tested again, as the code did,
 * and passed to each that may take it as one of its addresses. */
static VG_REGPARM(2) void on_word_store(Addr addr, UWord value)
{
    if (rp_stacks_enabled && value - rp_stacks_lo <= rp_stacks_span)
        rp_stacks_store(addr, value);
    if (value - rp_privblocks_env_lo < rp_privblocks_env_span)
        rp_privblocks_store(addr, value);
}

/* What the translated code compares a stored word with, loaded once per
 * store (rp_stacks.h, rp_privblocks.h). */
typedef struct store_bounds {
    IRExpr *stack_lo, *stack_span;     /* NULL: private stacks are off */
    IRExpr *heap_lo, *heap_span;       /* NULL: private blocks are off */
    IRExpr *shared_target;     /* Ity_I1: the store's address is not in the private stack */
} store_bounds;

static IRExpr *outside_private_stack(IRSB *sb, IRExpr *addr, IRExpr *lo)
{
    IRExpr *private_span = load_word(sb, &rp_stacks_private_span);
    IRExpr *offset = new_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Sub64, addr, lo));

    return new_tmp(sb, Ity_I1,
                   IRExpr_Unop(Iop_Not1, new_tmp(sb, Ity_I1, IRExpr_Binop(Iop_CmpLT64U, offset,
                                                                          private_span))));
}

static store_bounds load_store_bounds(IRSB *sb, IRExpr *addr)
{
    store_bounds b = { NULL, NULL, NULL, NULL, IRExpr_Const(IRConst_U1(True)) };

    if (rp_stacks_enabled) {
        b.stack_lo = load_word(sb, &rp_stacks_lo);
        b.stack_span = load_word(sb, &rp_stacks_span);
        b.shared_target = outside_private_stack(sb, addr, b.stack_lo);
    }
    if (rp_privblocks_active) {
        b.heap_lo = load_word(sb, &rp_privblocks_env_lo);
        b.heap_span = load_word(sb, &rp_privblocks_env_span);
    }
    return b;
}

/* Whether value - lo <= span (`inclusive`) or < span. */
static IRExpr *value_within(IRSB *sb, IRExpr *value, IRExpr *lo, IRExpr *span, Bool inclusive)
{
    IRExpr *offset = new_tmp(sb, Ity_I64, IRExpr_Binop(Iop_Sub64, value, lo));

    return new_tmp(sb, Ity_I1, IRExpr_Binop(inclusive ? Iop_CmpLE64U : Iop_CmpLT64U,
                                            offset, span));
}

/* One 64-bit word stored: may it be an address of the thread's stack, or
 * of a private heap block, leaving?  One call guarded by both tests, a
 * few operations in the translated code: VEX spills the live registers
 * around every guarded call, made or not (pbzip2: the checks cost 3 % of
 * its time with a call for each test, about 1 % with one). */
static void add_word_checks(IRSB *sb, const store_bounds *b, IRExpr *addr, IRExpr *value)
{
    IRExpr *in_stack = NULL, *in_heap = NULL, *either;
    IRDirty *d;

    if (b->stack_lo != NULL)
        in_stack = value_within(sb, value, b->stack_lo, b->stack_span, True);
    if (b->heap_lo != NULL)
        in_heap = value_within(sb, value, b->heap_lo, b->heap_span, False);
    either = in_stack == NULL ? in_heap
           : in_heap == NULL ? in_stack
           : new_tmp(sb, Ity_I1, IRExpr_Binop(Iop_Or1, in_stack, in_heap));
    d = unsafeIRDirty_0_N(2, "rp_on_word_store", VG_(fnptr_to_fnentry)(&on_word_store),
                          mkIRExprVec_2(addr, value));
    d->guard = new_tmp(sb, Ity_I1, IRExpr_Binop(Iop_And1, either, b->shared_target));
    declare_read(d, guest_layout->offset_SP, guest_layout->sizeof_SP);
    addStmtToIRSB(sb, IRStmt_Dirty(d));
}

/* A store may let an address of the thread's stack (rp_stacks.h) or of a
 * private heap block (rp_privblocks.h) escape: each 64-bit word it stores
 * is checked, vectors lane by lane (a memcpy of a structure holding a
 * pointer). */
static void add_store_checks(IRSB *sb, IRExpr *addr, IRExpr *data)
{
    static const IROp v256_lanes[] = { Iop_V256to64_0, Iop_V256to64_1, Iop_V256to64_2,
                                       Iop_V256to64_3 };
    IRType ty = typeOfIRExpr(sb->tyenv, data);
    store_bounds b;
    UInt i;

    if ((!rp_stacks_enabled && !rp_privblocks_active) || rp_instrument_floor
        || translating_alone() || (ty != Ity_I64 && ty != Ity_V128 && ty != Ity_V256))
        return;
    flush_batch(sb);
    b = load_store_bounds(sb, addr);
    if (ty == Ity_I64) {
        add_word_checks(sb, &b, addr, data);
    } else if (ty == Ity_V128) {
        add_word_checks(sb, &b, addr, new_tmp(sb, Ity_I64, IRExpr_Unop(Iop_V128to64, data)));
        add_word_checks(sb, &b, addr, new_tmp(sb, Ity_I64, IRExpr_Unop(Iop_V128HIto64, data)));
    } else {
        for (i = 0; i < 4; i++)
            add_word_checks(sb, &b, addr,
                            new_tmp(sb, Ity_I64, IRExpr_Unop(v256_lanes[i], data)));
    }
}

/* At an announcing nop: on_announce with the stack pointer. */
static void add_announce(IRSB *sb, Addr site)
{
    IRExpr *sp = new_tmp(sb, Ity_I64, IRExpr_Get(guest_layout->offset_SP, Ity_I64));
    IRDirty *d;

    d = unsafeIRDirty_0_N(0, "rp_on_announce", VG_(fnptr_to_fnentry)(&on_announce),
                          mkIRExprVec_2(sp, mkIRExpr_HWord(site)));
    declare_stack_reads(d);
    add_event_call(sb, d);
}

/* Appends a call of a synchronisation helper (on_atomic, on_spin_read)
 * with the access's address, size and instruction. */
static void add_sync_access(IRSB *sb, const HChar *name, void *helper, IRExpr *addr, Int size,
                            Addr site)
{
    IRDirty *d = unsafeIRDirty_0_N(3, name, VG_(fnptr_to_fnentry)(helper),
                                   mkIRExprVec_3(addr, mkIRExpr_HWord((HWord)size),
                                                 mkIRExpr_HWord(site)));

    add_event_call(sb, d);
}

static void add_branch(IRSB *sb, Addr site)
{
    IRDirty *d = unsafeIRDirty_0_N(1, "rp_on_branch",
                                   VG_(fnptr_to_fnentry)(&on_branch),
                                   mkIRExprVec_1(mkIRExpr_HWord(site)));

    add_event_call(sb, d);
}

/* --history-level=full: the running thread's callers may change at the
 * exit this precedes (a call, a return, a system call...). */
static void add_history_stale(IRSB *sb, IRJumpKind jk)
{
    if (rp_history != RP_HISTORY_FULL || jk == Ijk_Boring)
        return;
    rp_blockrep_event();
    addStmtToIRSB(sb, IRStmt_Store(Iend_LE,
                                   mkIRExpr_HWord((HWord)&rp_history_stale),
                                   IRExpr_Const(IRConst_U8(1))));
}

/* An atomic read-modify-write of one word, after it: a lock's acquire
 * or release if it is a lock function's or its word is a lock word
 * (rp_lockwords.h), else on_atomic.  `size_lock`: the size, times 4, plus
 * the kind of lock function it is in (rp_lock_function). */
static void on_rmw(Addr addr, ULong old, ULong expected, ULong new, Addr site,
                   UWord size_lock)
{
    if (!rp_lockwords_after_rmw(addr, old, expected, new, site, size_lock >> 2,
                                (rp_lock_function)(size_lock & 3)))
        on_atomic(addr, size_lock >> 2, site);
}

/* A value of the CAS's type as a 64-bit one. */
static IRExpr *widened(IRSB *sb, IRExpr *e)
{
    switch (typeOfIRExpr(sb->tyenv, e)) {
    case Ity_I8: return new_tmp(sb, Ity_I64, IRExpr_Unop(Iop_8Uto64, e));
    case Ity_I16: return new_tmp(sb, Ity_I64, IRExpr_Unop(Iop_16Uto64, e));
    case Ity_I32: return new_tmp(sb, Ity_I64, IRExpr_Unop(Iop_32Uto64, e));
    default: return e;
    }
}

/* After an atomic read-modify-write of one word: on_rmw with what it
 * found, expected and wrote. */
static void add_rmw_after(IRSB *sb, const IRCAS *cas, Addr site)
{
    Int size = sizeofIRType(typeOfIRExpr(sb->tyenv, cas->dataLo));
    rp_lock_function in_function = rp_lockwords_function_of(site);
    IRDirty *d;

    d = unsafeIRDirty_0_N(0, "rp_on_rmw", VG_(fnptr_to_fnentry)(&on_rmw),
                          mkIRExprVec_6(cas->addr, widened(sb, IRExpr_RdTmp(cas->oldLo)),
                                        widened(sb, cas->expdLo), widened(sb, cas->dataLo),
                                        mkIRExpr_HWord(site),
                                        mkIRExpr_HWord((HWord)(4 * size + in_function))));
    declare_stack_reads(d);
    add_event_call(sb, d);
}

/* The memory effects of one statement, as helper calls appended to `sb`. */
static void add_effects(IRSB *sb, const IRTypeEnv *tyenv, const IRStmt *st,
                        Addr site, Bool want_branches, Bool spin_read)
{
    switch (st->tag) {
    case Ist_WrTmp:
        if (st->Ist.WrTmp.data->tag == Iex_Load) {
            const IRExpr *load = st->Ist.WrTmp.data;

            if (spin_read)
                add_sync_access(sb, "rp_on_spin_read", &on_spin_read, load->Iex.Load.addr,
                                sizeofIRType(load->Iex.Load.ty), site);
            else
                add_access(sb, False, load->Iex.Load.addr,
                           sizeofIRType(load->Iex.Load.ty), site, NULL);
        }
        break;

    case Ist_Store:
        add_store_checks(sb, st->Ist.Store.addr, st->Ist.Store.data);
        add_access(sb, True, st->Ist.Store.addr,
                   sizeofIRType(typeOfIRExpr(tyenv, st->Ist.Store.data)),
                   site, NULL);
        break;

    case Ist_LoadG: {
        const IRLoadG *lg = st->Ist.LoadG.details;
        IRType wide_ty, load_ty;

        /* The conversion (e.g. 8Uto32) widens after the load; the memory
         * touched is the narrow type. */
        typeOfIRLoadGOp(lg->cvt, &wide_ty, &load_ty);
        add_access(sb, False, lg->addr, sizeofIRType(load_ty), site, lg->guard);
        break;
    }

    case Ist_StoreG: {
        const IRStoreG *sg = st->Ist.StoreG.details;

        /* Checked whether or not the guard holds: at worst a needless
         * escape. */
        add_store_checks(sb, sg->addr, sg->data);
        add_access(sb, True, sg->addr,
                   sizeofIRType(typeOfIRExpr(tyenv, sg->data)), site, sg->guard);
        break;
    }

    case Ist_Dirty: {
        const IRDirty *d = st->Ist.Dirty.details;

        if (d->mFx == Ifx_Read || d->mFx == Ifx_Modify)
            add_access(sb, False, d->mAddr, d->mSize, site, d->guard);
        if (d->mFx == Ifx_Write || d->mFx == Ifx_Modify)
            add_access(sb, True, d->mAddr, d->mSize, site, d->guard);
        break;
    }

    case Ist_LLSC:
        if (st->Ist.LLSC.storedata == NULL)
            add_access(sb, False, st->Ist.LLSC.addr,
                       sizeofIRType(typeOfIRTemp(tyenv, st->Ist.LLSC.result)),
                       site, NULL);
        else
            add_sync_access(sb, "rp_on_atomic", &on_atomic, st->Ist.LLSC.addr,
                            sizeofIRType(typeOfIRExpr(tyenv, st->Ist.LLSC.storedata)), site);
        break;

    case Ist_CAS: {
        const IRCAS *cas = st->Ist.CAS.details;
        Int size = sizeofIRType(typeOfIRExpr(tyenv, cas->dataLo));

        /* A double CAS (cmpxchg16b) has a second half. */
        add_store_checks(sb, cas->addr, cas->dataLo);
        if (cas->dataHi != NULL)
            add_store_checks(sb, cas->addr, cas->dataHi);
        /* One of a word: after it, when what it found is known
         * (add_rmw_after). */
        if (cas->dataHi != NULL)
            add_sync_access(sb, "rp_on_atomic", &on_atomic, cas->addr, 2 * size, site);
        break;
    }

    case Ist_Exit:
        /* Before the exit statement: after it, the call would not run
         * when the branch is taken. */
        if (want_branches)
            add_branch(sb, site);
        add_history_stale(sb, st->Ist.Exit.jk);
        break;

    default:
        break;
    }
}

/* Whether the waiting accesses must be passed on before `st`: it leaves
 * the block, calls, is atomic or a fence, or writes SP or FP. */
static Bool ends_batch(const IRStmt *st)
{
    switch (st->tag) {
    case Ist_Exit: case Ist_Dirty: case Ist_CAS: case Ist_LLSC: case Ist_MBE:
        return True;
    case Ist_Put:
        return st->Ist.Put.offset == guest_layout->offset_SP
            || st->Ist.Put.offset == guest_layout->offset_FP;
    default:
        return False;
    }
}

/* The spin reads of the block being instrumented (rp_spin.h). */
static Bool *spin;
static UInt spin_cap;

IRSB *rp_instrument(VgCallbackClosure *closure, IRSB *sb_in,
                    const VexGuestLayout *layout,
                    const VexGuestExtents *vge,
                    const VexArchInfo *archinfo_host,
                    IRType gWordTy, IRType hWordTy)
{
    Bool want_branches = rp_tool_engine != NULL && rp_engine_needs_branches(rp_tool_engine);
    Addr site = 0;
    IRSB *sb_out;
    Int i;
    const Bool *spin_now = NULL;

    (void)closure;
    (void)vge;
    (void)archinfo_host;
    if (gWordTy != hWordTy)
        VG_(tool_panic)("racepred: host and guest word sizes differ");

    sb_out = deepCopyIRSBExceptStmts(sb_in);
    guest_layout = layout;
    code_kind = RP_CODE_IGNORED;
    drop_block_repeats = rp_instrument_block_repeats && filter != NULL && !rp_instrument_floor;
    rp_blockrep_start(sb_in->tyenv, !filter_lists_rewrites);

    /* The preamble before the first IMark (if any) belongs to no
     * instruction; copy it as it is. */
    for (i = 0; i < sb_in->stmts_used && sb_in->stmts[i]->tag != Ist_IMark; i++) {
        rp_blockrep_note(sb_in->stmts[i]);
        addStmtToIRSB(sb_out, sb_in->stmts[i]);
    }
    if (rp_instrument_spin_loops && !rp_instrument_floor) {
        if ((UInt)sb_in->stmts_used >= spin_cap)
            spin = rp_tool_grow_zeroed("rp.instrument.spin", spin, &spin_cap,
                                       (UInt)sb_in->stmts_used, sizeof *spin);
        rp_spin_find(sb_in, layout, spin);
        spin_now = spin;
    }

    for (; i < sb_in->stmts_used; i++) {
        IRStmt *st = sb_in->stmts[i];
        Bool rmw_after = False;

        if (st->tag == Ist_NoOp)
            continue;
        if (ends_batch(st))
            flush_batch(sb_out);
        if (st->tag == Ist_IMark) {
            site = (Addr)st->Ist.IMark.addr;
            code_kind = rp_filter_kind(site);
            if (code_kind == RP_CODE_ACCESSES)
                code_kind = rp_filter_source_kind(site);
            sp_written = False;
        } else if (st->tag == Ist_Put && st->Ist.Put.offset == layout->offset_SP) {
            sp_written = True;
        } else if (code_kind != RP_CODE_IGNORED) {
            add_effects(sb_out, sb_out->tyenv, st, site,
                        want_branches && code_kind == RP_CODE_ACCESSES,
                        spin_now != NULL && spin_now[i] && code_kind == RP_CODE_ACCESSES);
            rmw_after = st->tag == Ist_CAS && st->Ist.CAS.details->dataHi == NULL;
        }
        rp_blockrep_note(st);
        addStmtToIRSB(sb_out, st);
        if (st->tag == Ist_IMark && n_announce_sites != 0 && is_announce_site(site))
            add_announce(sb_out, site);
        if (rmw_after)
            add_rmw_after(sb_out, st->Ist.CAS.details, site);
    }
    flush_batch(sb_out);
    add_history_stale(sb_out, sb_out->jumpkind);
    return sb_out;
}
