/* rp_main.c — racepred's registration with Valgrind, its options, and the
 * engine's lifetime.
 *
 * racepred predicts data races.  The front end (this directory) turns the
 * client's memory accesses (rp_instrument.c, minus the objects rp_filter.c
 * ignores), thread lifecycle (rp_threads.c), and its pthread and malloc
 * calls (the preload rp_intercepts.c, reported through rp_clientreq.c to
 * rp_threads.c, rp_locks.c and rp_heap.c) into one event stream; the
 * portable core's engine runs the detectors chosen with --detector over
 * it; their races come back as Valgrind errors (rp_errors.c).
 */
#include "pub_tool_basics.h"
#include "pub_tool_libcassert.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_libcprint.h"
#include "pub_tool_libcproc.h"
#include "pub_tool_mallocfree.h"
#include "pub_tool_options.h"
#include "pub_tool_tooliface.h"
#include "pub_tool_vki.h"

#include "rp_barriers.h"
#include "rp_batch.h"
#include "rp_blockrep.h"
#include "rp_errors.h"
#include "rp_filter.h"
#include "rp_heap.h"
#include "rp_history.h"
#include "rp_inline.h"
#include "rp_instrument.h"
#include "rp_lockwords.h"
#include "rp_locks.h"
#include "rp_offline.h"
#include "rp_record.h"
#include "rp_reserve.h"
#include "rp_syscalls.h"
#include "rp_tasks.h"
#include "rp_sarif.h"
#include "rp_sched.h"
#include "rp_spill.h"
#include "rp_privblocks.h"
#include "rp_stacks.h"
#include "rp_threads.h"
#include "rp_tool.h"
#include "rp_wreport.h"

#define RP_DEFAULT_DETECTORS "hb,wcp"

rp_engine *rp_tool_engine;
ULong rp_tool_max_memory;
Bool rp_tool_stop_requested;

/* --max-memory=N (MiB); -1 until given: then half the address-space limit
 * the program runs under, if any (Valgrind, the program and racepred share
 * it: detection gives way before the program's own allocations fail). */
static Long clo_max_memory_mb = -1;

static const HChar *clo_detectors = RP_DEFAULT_DETECTORS;
/* --racy-reads-order: a racy read orders its thread after the write it
 * read (core/rp_detector.h, racy_reads_order). */
static Bool clo_racy_reads_order = False;
/* --window: events kept to confirm predicted races (core/rp_window.h). */
static Long clo_window = RP_WINDOW_DEFAULT;
/* --cs-sections, --cs-bytes: bounds on the critical-section histories of
 * wcp, dc, wdc, sdp and wdp (core/rp_csrules.h); 0 is unbounded. */
#define RP_CS_SECTIONS_DEFAULT 16384
#define RP_CS_BYTES_DEFAULT 262144
static Long clo_cs_sections = RP_CS_SECTIONS_DEFAULT;
static Long clo_cs_bytes = RP_CS_BYTES_DEFAULT;
static rp_cs_limits cs_limits;
/* --offline-events, --offline-spill (MiB): the event log of syncp, m2 and
 * osr in memory and in its spill file (core/rp_segment.h).  2^20 events:
 * about 365 MB at an analysis's peak, against 1.3 GB for 2^22, at the same
 * speed (docs/performance.md). */
#define RP_TOOL_OFFLINE_EVENTS (1u << 20)
static Long clo_offline_events = RP_TOOL_OFFLINE_EVENTS;
static Long clo_offline_spill_mb = (Long)(RP_SPILL_MAX_BYTES >> 20);

/* One line naming every detector, for --help and for a bad --detector. */
static void print_known_detectors(HChar *buf, SizeT size)
{
    unsigned i;
    SizeT used = 0;

    buf[0] = '\0';
    for (i = 0; i < rp_detector_count() && used + 1 < size; i++)
        used += VG_(snprintf)(buf + used, size - used, "%s%s",
                              i == 0 ? "" : ", ", rp_detector_at(i)->name);
}

static Bool process_option(const HChar *arg)
{
    const HChar *value;

    if VG_STR_CLO(arg, "--detector", value) {
        char *bad_name = NULL;
        HChar known[256];

        /* Checked here: VG_(fmsg_bad_option) stops the run only while the
         * command line is being parsed. */
        if (!rp_engine_check_list(value, &bad_name)) {
            print_known_detectors(known, sizeof known);
            if (bad_name != NULL && bad_name[0] != '\0'
                && rp_detector_find(bad_name) != NULL)
                VG_(fmsg_bad_option)(arg, "detector '%s' listed twice\n",
                                     bad_name);
            else if (bad_name == NULL || bad_name[0] == '\0')
                VG_(fmsg_bad_option)(arg, "empty detector name in the list "
                                     "(known: %s)\n", known);
            else
                VG_(fmsg_bad_option)(arg, "unknown detector '%s' "
                                     "(known: %s)\n", bad_name, known);
        }
        clo_detectors = value;
    } else if VG_STR_CLO(arg, "--sarif-file", value) {
        if (!rp_sarif_open(value))
            VG_(fmsg_bad_option)(arg, "cannot create the file\n");
    } else if VG_STR_CLO(arg, "--record-trace", value) {
        if (!rp_record_open(value))
            VG_(fmsg_bad_option)(arg, "cannot create the file\n");
    } else if VG_STR_CLO(arg, "--history-level", value) {
        if (!rp_history_set(value))
            VG_(fmsg_bad_option)(arg, "expected none, approx or full\n");
    } else if VG_BINT_CLO(arg, "--window", clo_window, RP_WINDOW_MIN,
                          RP_WINDOW_MAX) {
    } else if VG_BINT_CLO(arg, "--cs-sections", clo_cs_sections, 0, 0xFFFFFFFFLL) {
    } else if VG_BINT_CLO(arg, "--cs-bytes", clo_cs_bytes, 0, 1LL << 40) {
    } else if VG_BINT_CLO(arg, "--offline-events", clo_offline_events,
                          RP_OFFLINE_MIN_EVENTS, RP_OFFLINE_MAX_EVENTS_LIMIT) {
    } else if VG_BINT_CLO(arg, "--offline-spill", clo_offline_spill_mb, 0, 1LL << 30) {
    } else if VG_BINT_CLO(arg, "--max-memory", clo_max_memory_mb, 0, 1LL << 30) {
    } else if VG_BINT_CLO(arg, "--omp-task-threads", rp_tasks_max_threads, 0, 1 << 20) {
    } else if VG_BOOL_CLO(arg, "--bench-floor", rp_instrument_floor) {
    } else if VG_BOOL_CLO(arg, "--block-repeats", rp_instrument_block_repeats) {
    } else if VG_BOOL_CLO(arg, "--access-batches", rp_instrument_batches) {
    } else if VG_BOOL_CLO(arg, "--private-stacks", rp_stacks_enabled) {
    } else if VG_BOOL_CLO(arg, "--private-heap", rp_privblocks_enabled) {
    } else if VG_BOOL_CLO(arg, "--skip-alone", rp_stacks_skip_alone) {
    } else if VG_BOOL_CLO(arg, "--free-is-write", rp_heap_free_is_write) {
    } else if VG_BOOL_CLO(arg, "--fd-sync", rp_syscalls_fd_sync) {
    } else if VG_BOOL_CLO(arg, "--spin-loops", rp_instrument_spin_loops) {
    } else if VG_BOOL_CLO(arg, "--racy-reads-order", clo_racy_reads_order) {
    } else if VG_BOOL_CLO(arg, "--show-unconfirmed",
                          rp_errors_show_unconfirmed) {
    } else if VG_STR_CLO(arg, "--ignore-objects", value) {
        if (!rp_filter_set(value))
            VG_(fmsg_bad_option)(arg, "expected a comma-separated list of "
                                 "object name patterns, or none\n");
    } else if VG_STR_CLO(arg, "--sync-objects", value) {
        if (!rp_filter_set_sync(value))
            VG_(fmsg_bad_option)(arg, "expected a comma-separated list of "
                                 "object name patterns, or none\n");
    } else if VG_STR_CLO(arg, "--lock-functions", value) {
        if (!rp_lockwords_set(value))
            VG_(fmsg_bad_option)(arg, "expected a comma-separated list of "
                                 "function name patterns, or none\n");
    } else if VG_STR_CLO(arg, "--rwlock-functions", value) {
        if (!rp_lockwords_set_rw(value))
            VG_(fmsg_bad_option)(arg, "expected a comma-separated list of "
                                 "function name patterns, or none\n");
    } else if VG_STR_CLO(arg, "--atomic-sources", value) {
        if (!rp_filter_set_atomic_sources(value))
            VG_(fmsg_bad_option)(arg, "expected a comma-separated list of "
                                 "source path patterns, or none\n");
    } else {
        return False;
    }
    return True;
}

static void print_usage(void)
{
    unsigned i;

    VG_(printf)(
"    --detector=NAME[,NAME...]  detectors to run [%s]\n", RP_DEFAULT_DETECTORS);
    for (i = 0; i < rp_detector_count(); i++)
        VG_(printf)("        %-8s %s\n", rp_detector_at(i)->name,
                    rp_detector_at(i)->summary);
    VG_(printf)(
"    --show-unconfirmed=no|yes   also report predicted races that no witness\n"
"                              confirms, marked unconfirmed [no]\n"
"    --history-level=none|approx|full  what a report shows of the earlier\n"
"                              access: nothing, its instruction, or its full\n"
"                              stack (slower) [approx]\n"
"    --free-is-write=yes|no    a free (or a realloc that moves) writes the\n"
"                              whole block [yes]\n"
"    --fd-sync=yes|no          a write into a file descriptor (pipe, socket,\n"
"                              eventfd) orders before the reads that follow\n"
"                              it [yes]\n"
"    --spin-loops=yes|no       a load that a loop polls until another thread\n"
"                              writes it (a flag) is synchronisation [yes]\n"
"    --racy-reads-order=yes|no  a read that races with a write is reported, and\n"
"                              what its thread does next is ordered after what\n"
"                              the writer did before the write: races that only\n"
"                              follow from that race are not reported [no]\n"
"    --private-stacks=yes|no   a thread's accesses to its own stack are not\n"
"                              checked while no stack address has left the\n"
"                              thread since their frame was made [yes]\n"
"    --private-heap=yes|no     a thread's accesses to a heap block of a page or\n"
"                              more that it allocated are not checked while no\n"
"                              address of the block has left the thread [yes]\n"
"    --skip-alone=yes|no       plain accesses are not checked while the program\n"
"                              has one thread, which has joined every other\n"
"                              (none of them can race) [yes]\n"
"    --omp-task-threads=N      the first N OpenMP tasks (libgomp, libomp) run as\n"
"                              threads of their own, the others as their\n"
"                              runner's events (0..1048576) [16]\n");
    VG_(printf)(
"    --window=N                events kept to build witnesses for predicted\n"
"                              races (%u..%u, 24 bytes each) [%u]\n",
        RP_WINDOW_MIN, RP_WINDOW_MAX, RP_WINDOW_DEFAULT);
    VG_(printf)(
"    --cs-sections=N           critical sections wcp/dc/sdp/wdp remember per\n"
"                              lock and thread, 0 for no bound [%d]\n"
"    --cs-bytes=N              (lock, byte) pairs wcp/dc/wdc/sdp/wdp remember\n"
"                              per detector, and distinct accesses per open\n"
"                              critical section, 0 for no bound [%d]\n",
        RP_CS_SECTIONS_DEFAULT, RP_CS_BYTES_DEFAULT);
    VG_(printf)(
"    --offline-events=N        events syncp/m2/osr keep in memory (%u..%u, 40\n"
"                              bytes each); a full log is analysed, then its\n"
"                              older half leaves memory [%u]\n"
"    --offline-spill=N         MiB of the temporary file the events that leave\n"
"                              memory go to, 0 for none [%llu]\n",
        RP_OFFLINE_MIN_EVENTS, RP_OFFLINE_MAX_EVENTS_LIMIT, RP_TOOL_OFFLINE_EVENTS,
        (ULong)(RP_SPILL_MAX_BYTES >> 20));
    VG_(printf)(
"    --max-memory=N            MiB of shadow memory after which race detection\n"
"                              stops and the program runs on, 0 for no bound\n"
"                              [half the address-space limit, if any]\n"
"    --bench-floor=no|yes       benchmarks only: accesses call an empty helper,\n"
"                              nothing is detected (the instrumentation's own\n"
"                              cost) [no]\n"
"    --block-repeats=yes|no    leave out of the translated code the accesses\n"
"                              that repeat one of the same superblock [yes]\n"
"    --access-batches=yes|no   up to five plain accesses of a superblock share\n"
"                              one helper call [yes]\n"
"    --ignore-objects=PAT[,PAT...]|none  objects (soname or file name globs)\n"
"                              whose code is not instrumented [%s]\n"
"    --sync-objects=PAT[,PAT...]|none  objects whose loads and stores are\n"
"                              acquires and releases, not accesses [%s]\n"
"    --atomic-sources=PAT[,PAT...]|none  source files (full path globs) whose\n"
"                              loads and stores are atomic: acquires and\n"
"                              releases, not accesses [%s]\n"
"    --lock-functions=PAT[,PAT...]|none  functions (demangled name globs) whose\n"
"                              atomic read-modify-writes of a word take a\n"
"                              lock (0 to non-0) and give it back (to 0) [%s]\n"
"    --rwlock-functions=PAT[,PAT...]|none  functions whose atomic\n"
"                              read-modify-writes of a word take and give back\n"
"                              a reader-writer lock laid out as Rust's [%s]\n"
"    --sarif-file=FILE         also write the races as SARIF 2.1.0 [no]\n"
"    --record-trace=FILE       record the event stream for racepred-analyze [no]\n",
        RP_FILTER_DEFAULT, RP_FILTER_SYNC_DEFAULT, RP_FILTER_ATOMIC_DEFAULT,
        RP_LOCKWORDS_DEFAULT, RP_RWLOCKWORDS_DEFAULT);
}

static void print_debug_usage(void)
{
    VG_(printf)("    (none)\n");
}

/* Valgrind's vki headers name RLIMIT_DATA but not RLIMIT_AS, which is 9
 * on Linux on every architecture. */
#ifndef VKI_RLIMIT_AS
#define VKI_RLIMIT_AS 9
#endif

/* The address-space limit the run shares with Valgrind, 0 for none. */
static ULong address_space_limit(void)
{
    struct vki_rlimit lim;

    if (VG_(getrlimit)(VKI_RLIMIT_AS, &lim) != 0 || lim.rlim_cur == VKI_RLIM_INFINITY)
        return 0;
    return lim.rlim_cur;
}

static void post_clo_init(void)
{
    rp_detector_env env;
    ULong as_limit = address_space_limit();

    /* --max-memory's default: half of the address-space limit. */
    rp_tool_max_memory = clo_max_memory_mb >= 0 ? (ULong)clo_max_memory_mb << 20
                                                : as_limit / 2;
    rp_reserve_init(as_limit);
    rp_sched_prefer_fair();
    VG_(memset)(&env, 0, sizeof env);
    env.report = rp_errors_report;
    env.report_ctx = NULL;
    env.all_pairs = False;
    env.window = (UInt)clo_window;
    env.skip_repeats = True;
    /* --history-level=full finds the earlier access's stack by its event. */
    env.sites_suffice = rp_history != RP_HISTORY_FULL;
    env.racy_reads_order = clo_racy_reads_order;
    cs_limits.max_sections = (UInt)clo_cs_sections;
    cs_limits.max_bytes = (ULong)clo_cs_bytes;
    csrules_set_limits(&cs_limits);
    offline_set_max_events((UInt)clo_offline_events);
    spill_set_max_bytes((ULong)clo_offline_spill_mb << 20);
    rp_tool_engine = rp_engine_create(clo_detectors, &env, NULL);
    /* The list was validated while parsing options. */
    tl_assert(rp_tool_engine != NULL);
    rp_engine_merge_reports(rp_tool_engine);
    rp_wreport_init(rp_engine_window(rp_tool_engine));
    rp_instrument_set_engine(rp_tool_engine);
    rp_privblocks_set_engine(rp_tool_engine);
}

/* The end of detection (at exit, or over --max-memory): the detectors'
 * last reports and the engine's summaries, then the engine goes. */
static void finish_detection(void)
{
    rp_engine_finish(rp_tool_engine);
    rp_wreport_summary(rp_engine_window(rp_tool_engine));
    if (VG_(clo_verbosity) > 1)
        VG_(umsg)("racepred: %llu events from %u threads (%u detached ones freed at "
                  "exit); %llu repeated accesses and %llu repeated receives dropped\n",
                  (ULong)rp_engine_event_count(rp_tool_engine),
                  (UInt)rp_threads_count(), (UInt)rp_threads_detached_gone,
                  (ULong)rp_engine_repeats_dropped(rp_tool_engine),
                  (ULong)rp_engine_recvs_dropped(rp_tool_engine));
    if (VG_(clo_verbosity) > 1)
        VG_(umsg)("racepred: %llu variables polled by spin loops made synchronisation; "
                  "%llu timeslices cut short in spin loops\n",
                  rp_instrument_spin_variables, rp_instrument_spin_yields);
    if (VG_(clo_verbosity) > 1)
        rp_tasks_print_stats();
    if (VG_(clo_verbosity) > 1)
        VG_(umsg)("racepred: %llu accesses left out of the code as repeats within "
                  "their superblock (counted once per translation)\n",
                  rp_blockrep_dropped_static);
    if (VG_(clo_verbosity) > 1)
        VG_(umsg)("racepred: %llu accesses share %llu batch calls in the code (counted "
                  "once per translation; %u batches kept)\n",
                  rp_batch_accesses, rp_batch_calls, rp_batch_kept());
    if (VG_(clo_verbosity) > 1)
        rp_privblocks_print_stats();
    rp_wreport_kept(rp_tool_engine);
    rp_instrument_set_engine(NULL);
    rp_privblocks_set_engine(NULL);
    rp_engine_destroy(rp_tool_engine);
    rp_tool_engine = NULL;
}

void rp_tool_stop_detection(void)
{
    if (rp_reserve_exhausted)
        VG_(umsg)("racepred: the program ran out of address space (ulimit -v): race "
                  "detection stops here and the program runs on; the races reported "
                  "so far stand\n");
    else
        VG_(umsg)("racepred: shadow memory reached %llu MiB (--max-memory=%llu): race "
                  "detection stops here and the program runs on; the races reported "
                  "so far stand\n", rp_tool_bulk_bytes() >> 20, rp_tool_max_memory >> 20);
    rp_tool_stop_requested = False;
    finish_detection();
}

static void fini(Int exitcode)
{
    (void)exitcode;
    if (rp_tool_engine != NULL)
        finish_detection();
    rp_record_finish();
    rp_sarif_finish();
    rp_clientreq_check_preload();
    rp_wreport_dropped(&cs_limits);
    if (rp_errors_unconfirmed > 0 && !rp_errors_show_unconfirmed && !VG_(clo_xml))
        VG_(umsg)("racepred: %llu predicted race reports not shown: no witness "
                  "confirms them (--show-unconfirmed=yes shows them)\n",
                  rp_errors_unconfirmed);
    rp_errors_note_undebugged();
}

static void pre_clo_init(void)
{
    rp_inline_init();
    VG_(details_name)("racepred");
    VG_(details_version)(RP_VERSION_STRING);
    VG_(details_description)("a data race predictor");
    VG_(details_copyright_author)("Copyright (C) 2026, the racepred authors.");
    VG_(details_bug_reports_to)("the racepred maintainers");
    VG_(details_avg_translation_sizeB)(275);

    VG_(basic_tool_funcs)(post_clo_init, rp_instrument, fini);
    VG_(needs_command_line_options)(process_option, print_usage,
                                    print_debug_usage);

    rp_filter_set(RP_FILTER_DEFAULT);
    rp_filter_set_sync(RP_FILTER_SYNC_DEFAULT);
    rp_filter_set_atomic_sources(RP_FILTER_ATOMIC_DEFAULT);
    rp_lockwords_set(RP_LOCKWORDS_DEFAULT);
    rp_lockwords_set_rw(RP_RWLOCKWORDS_DEFAULT);
    rp_threads_init();
    rp_locks_init();
    rp_barriers_init();
    rp_heap_init();
    rp_errors_init();
    rp_clientreq_init();
    rp_syscalls_init();
}

VG_DETERMINE_INTERFACE_VERSION(pre_clo_init)
