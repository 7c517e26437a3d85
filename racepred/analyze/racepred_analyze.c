/* racepred_analyze.c — racepred-analyze: runs racepred's detectors offline
 * on text traces (docs/trace-format.md).
 *
 *   racepred-analyze [--detector=LIST] [--all-pairs=yes|no] [--confirm=yes|no]
 *                    [--witness=yes|no] [--help] FILE...
 *
 * Output, one line per race pair, sorted by detector (in LIST order), then
 * by positions, without duplicates:
 *
 *   <detector> <i>-<j> <var> <w|r>@<thread> <w|r>@<thread>
 *
 * i < j are the 1-based event positions of the trace (headers not counted,
 * `br` lines counted), <var> the variable name, then the kind and thread
 * (as written in the file, e.g. T1) of event i and of event j.  With more
 * than one FILE every line is prefixed by "FILE: ".
 *
 * Text traces only: --confirm=yes appends " confirmed" or " unconfirmed"
 * to each line (a sync-preserving witness was built and passed the shared
 * validator, rp_spclosure.h / rp_witness.h); --witness=yes prints the
 * compact witness (or why there is none) on an indented line below.
 *
 * RAPID's STD traces ("T0|w(V1)|4", rp_stdtrace.h) are recognised by the
 * '|' of their first event line and analysed like text traces.
 *
 * Binary traces recorded by the tool (--record-trace, rp_bintrace.h) are
 * recognised by their magic; their lines name the two code locations
 * instead of positions, one line per pair of sites and kinds:
 *
 *   <detector> <w|r> <location> | <w|r> <location>
 *
 * On stderr, when it is a terminal: a progress line (events read,
 * events/s) while a file is read, and after each analysed file a summary
 * (--summary=yes|no forces it on or off):
 *
 *   FILE: 1000000 events, 4 threads, 4 locks, 96 variables; syncp: 25995
 *   race pairs, 12043 racy locations; ...; 3.21 s CPU, 3.40 s, peak RSS 190 MiB
 *
 * racy locations: the distinct code locations of the accesses in a race
 * pair (binary traces), or their event positions (text and STD traces,
 * whose locations name events).  Time: user + system CPU and wall-clock
 * seconds for the file; peak RSS: the process's maximum (getrusage).
 *
 * Exit status: 0 when every file was analysed, racy or not; 1 when a file
 * could not be read or parsed (message "FILE:LINE: message" on stderr, the
 * other files are still analysed); 2 on a usage error.
 */
#include "rp_bintrace.h"
#include "rp_engine.h"
#include "rp_shim.h"
#include "rp_spclosure.h"
#include "rp_stdtrace.h"
#include "rp_trace.h"
#include "rp_witness.h"

#include "rp_offline.h"
#include "rp_sort.h"
#include "rp_u64map.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#define PROGRAM "racepred-analyze"

typedef struct options {
    const char *detectors;
    bool all_pairs;
    bool racy_reads_order;
    bool confirm, witness;
    bool summary, progress;
    int first_file;
} options;

typedef struct race_line {
    unsigned detector;      /* position in the --detector list */
    const char *detector_name;
    uint64_t first, second;
    uint64_t first_id, second_id;
    uint64_t addr;
    rp_tid_t first_tid, second_tid;
    bool first_write, second_write;
} race_line;

typedef struct race_lines {
    const char *detectors;
    race_line *lines;
    size_t count, cap;
} race_lines;

static void print_help(void)
{
    printf("usage: " PROGRAM " [--detector=LIST] [--all-pairs=yes|no] [--help] FILE...\n"
           "\n"
           "Predicts data races in text traces (format: docs/trace-format.md).\n"
           "\n"
           "  --detector=LIST     comma-separated detectors to run (default: hb)\n"
           "  --all-pairs=yes|no  yes (default): report every race pair of the relation;\n"
           "                      no: report what the Valgrind tool reports online\n"
           "                      (at least one earlier partner per racy access)\n"
           "  --racy-reads-order=yes|no  with --all-pairs=no, yes: a read that races with\n"
           "                      the latest write orders its thread after the writer's\n"
           "                      events up to that write, as the tool's option does\n"
           "                      (default: no)\n"
           "  --confirm=yes|no    yes: mark each pair of a text trace \"confirmed\" (a\n"
           "                      sync-preserving witness passed the validator) or\n"
           "                      \"unconfirmed\" (default: no)\n"
           "  --witness=yes|no    yes: print each pair's witness compactly below it\n"
           "                      (text traces; default: no)\n"
           "  --summary=yes|no    yes: per file, a summary on stderr: events, threads,\n"
           "                      locks, variables, race pairs and racy locations per\n"
           "                      detector, time, peak memory (default: yes when stderr\n"
           "                      is a terminal)\n"
           "  --help              this text\n"
           "\n"
           "Detectors:\n");
    for (unsigned i = 0; i < rp_detector_count(); i++)
        printf("  %-8s %s\n", rp_detector_at(i)->name, rp_detector_at(i)->summary);
    printf("\n"
           "Output: one line per race pair, sorted, no duplicates:\n"
           "  <detector> <i>-<j> <var> <w|r>@<thread> <w|r>@<thread>\n"
           "i < j are 1-based event positions (headers not counted, br counted); the two\n"
           "w|r@thread fields describe events i and j.  With several FILEs each line\n"
           "starts with \"FILE: \".\n"
           "Binary traces (valgrind --tool=racepred --record-trace=F) are recognised by\n"
           "their magic; their lines name code locations, one line per pair of sites:\n"
           "  <detector> <w|r> <location> | <w|r> <location>\n"
           "\n"
           "Exit status: 0 if every file was analysed (whether or not races were found),\n"
           "1 if a file could not be read or parsed (FILE:LINE: message on stderr,\n"
           "FILE: offset N: message for a binary trace),\n"
           "2 on a usage error.\n");
}

static void print_known_detectors(FILE *out)
{
    for (unsigned i = 0; i < rp_detector_count(); i++)
        fprintf(out, "%s%s", i == 0 ? "" : ",", rp_detector_at(i)->name);
}

static int usage_error(const char *what, const char *arg)
{
    fprintf(stderr, PROGRAM ": %s '%s' (see --help)\n", what, arg);
    return 2;
}

/* Returns -1 when the options are fine, else the exit status. */
static int parse_options(int argc, char **argv, options *opt)
{
    opt->detectors = "hb";
    opt->all_pairs = true;
    opt->racy_reads_order = false;
    opt->confirm = opt->witness = false;
    /* scripts read stderr for error messages: both only on a terminal */
    opt->progress = opt->summary = isatty(STDERR_FILENO);
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        } else if (strcmp(arg, "--help") == 0) {
            print_help();
            return 0;
        } else if (strncmp(arg, "--detector=", 11) == 0) {
            opt->detectors = arg + 11;
        } else if (strcmp(arg, "--all-pairs=yes") == 0 || strcmp(arg, "--all-pairs=no") == 0) {
            opt->all_pairs = arg[12] == 'y';
        } else if (strcmp(arg, "--racy-reads-order=yes") == 0
                   || strcmp(arg, "--racy-reads-order=no") == 0) {
            opt->racy_reads_order = arg[19] == 'y';
        } else if (strcmp(arg, "--confirm=yes") == 0 || strcmp(arg, "--confirm=no") == 0) {
            opt->confirm = arg[10] == 'y';
        } else if (strcmp(arg, "--witness=yes") == 0 || strcmp(arg, "--witness=no") == 0) {
            opt->witness = arg[10] == 'y';
        } else if (strcmp(arg, "--summary=yes") == 0 || strcmp(arg, "--summary=no") == 0) {
            opt->summary = arg[10] == 'y';
        } else {
            return usage_error("unknown option", arg);
        }
    }
    if (opt->racy_reads_order && opt->all_pairs) {
        fprintf(stderr, PROGRAM ": --racy-reads-order=yes needs --all-pairs=no\n");
        return 2;
    }
    char *bad = NULL;
    if (!rp_engine_check_list(opt->detectors, &bad)) {
        if (bad[0] == '\0') {
            fprintf(stderr, PROGRAM ": empty detector name in '%s' (known: ", opt->detectors);
            print_known_detectors(stderr);
            fprintf(stderr, ")\n");
            rp_free(bad);
            return 2;
        }
        if (rp_detector_find(bad) != NULL) {
            fprintf(stderr, PROGRAM ": detector '%s' listed twice\n", bad);
            rp_free(bad);
            return 2;
        }
        fprintf(stderr, PROGRAM ": unknown detector '%s' (known: ", bad);
        print_known_detectors(stderr);
        fprintf(stderr, ")\n");
        rp_free(bad);
        return 2;
    }
    if (i == argc) {
        fprintf(stderr, PROGRAM ": no trace file given (see --help)\n");
        return 2;
    }
    opt->first_file = i;
    return -1;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096;
    char *buf = malloc(cap);
    *len = 0;
    size_t n;
    while (buf != NULL && (n = fread(buf + *len, 1, cap - *len, f)) > 0) {
        *len += n;
        if (*len == cap)
            buf = realloc(buf, cap *= 2);
    }
    if (buf != NULL && ferror(f)) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* Index of `name` in the comma-separated list. */
static unsigned list_position(const char *list, const char *name)
{
    size_t len = strlen(name);
    unsigned pos = 0;
    for (const char *p = list; *p != '\0'; pos++) {
        const char *end = strchr(p, ',');
        size_t n = end == NULL ? strlen(p) : (size_t)(end - p);
        if (n == len && strncmp(p, name, len) == 0)
            return pos;
        if (end == NULL)
            break;
        p = end + 1;
    }
    return pos;
}

static void collect_race(void *ctx, const rp_race *race)
{
    race_lines *r = ctx;
    if (r->count == r->cap) {
        r->cap = r->cap == 0 ? 64 : r->cap * 2;
        r->lines = rp_realloc("analyze.races", r->lines, r->cap * sizeof *r->lines);
    }
    race_line *l = &r->lines[r->count++];
    l->detector = list_position(r->detectors, race->detector);
    l->detector_name = race->detector;
    l->first = race->first.site;
    l->second = race->second.site;
    l->first_id = race->first.id;
    l->second_id = race->second.id;
    l->addr = race->first.addr;
    l->first_tid = race->first.tid;
    l->second_tid = race->second.tid;
    l->first_write = race->first.is_write;
    l->second_write = race->second.is_write;
}

static int compare_race_lines(const void *a, const void *b)
{
    const race_line *x = a, *y = b;
    if (x->detector != y->detector)
        return x->detector < y->detector ? -1 : 1;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    if (x->second != y->second)
        return x->second < y->second ? -1 : 1;
    return 0;
}

static const char *name_thread(void *ctx, rp_tid_t tid)
{
    const rp_trace *trace = ctx;
    return tid < trace->n_threads ? trace->thread_names[tid] : NULL;
}

static const char *name_lock(void *ctx, uint64_t obj)
{
    const rp_trace *trace = ctx;
    return obj < trace->n_locks ? trace->lock_names[obj] : NULL;
}

static const char *name_var(void *ctx, uint64_t addr)
{
    return rp_trace_var_name(ctx, addr);
}

/* --confirm / --witness: the sync-preserving closure, then the validator. */
typedef struct confirmer {
    const rp_trace *trace;
    rp_spc *spc;
    rp_wcheck *chk;
    rp_witness w;
    rp_witness_error err;
} confirmer;

static bool confirm_pair(confirmer *c, const race_line *l)
{
    uint32_t n = c->trace->n_events;
    if (l->first_id == 0 || l->second_id == 0 || l->first_id > n || l->second_id > n) {
        witness_clear(&c->w);
        snprintf(c->err.message, sizeof c->err.message, "event ids outside the trace");
        return false;
    }
    if (!witness_for_pair(c->spc, (uint32_t)l->first_id - 1, (uint32_t)l->second_id - 1,
                          &c->w)) {
        snprintf(c->err.message, sizeof c->err.message,
                 "no sync-preserving reordering exists (the pair may still be predictable "
                 "by reversing critical sections)");
        return false;
    }
    return witness_check(c->chk, &c->w, &c->err);
}

static void print_witness(confirmer *c, const char *prefix, bool ok)
{
    char buf[1024];
    rp_witness_names names = { name_thread, name_lock, name_var, (void *)c->trace };
    if (!ok) {
        printf("%s    witness: none: %s\n", prefix, c->err.message);
        return;
    }
    size_t len = witness_format(c->trace->events, c->trace->n_events, &c->w, &names, buf,
                                sizeof buf);
    printf("%s    witness: %s%s\n", prefix, buf, len >= sizeof buf ? "..." : "");
}

static void print_races(const options *opt, const char *prefix, const rp_trace *trace,
                        race_lines *r)
{
    confirmer c = { trace, NULL, NULL, { 0, 0, NULL, 0, 0 }, { 0, 0, 0, 0, "" } };
    if (opt->confirm || opt->witness) {
        c.spc = spc_create(trace->events, trace->n_events);
        c.chk = wcheck_create(trace->events, trace->n_events);
        witness_init(&c.w);
    }
    if (r->count > 1)
        qsort(r->lines, r->count, sizeof *r->lines, compare_race_lines);
    for (size_t i = 0; i < r->count; i++) {
        const race_line *l = &r->lines[i];
        if (i > 0 && compare_race_lines(l, &r->lines[i - 1]) == 0)
            continue;
        const char *var = rp_trace_var_name(trace, l->addr);
        printf("%s%s %llu-%llu %s %c@%s %c@%s", prefix, l->detector_name,
               (unsigned long long)l->first, (unsigned long long)l->second,
               var != NULL ? var : "?", l->first_write ? 'w' : 'r',
               trace->thread_names[l->first_tid], l->second_write ? 'w' : 'r',
               trace->thread_names[l->second_tid]);
        bool ok = (opt->confirm || opt->witness) && confirm_pair(&c, l);
        printf("%s\n", !opt->confirm ? "" : ok ? " confirmed" : " unconfirmed");
        if (opt->witness)
            print_witness(&c, prefix, ok);
    }
    if (c.spc != NULL) {
        witness_free(&c.w);
        wcheck_destroy(c.chk);
        spc_destroy(c.spc);
    }
}

/* ---- progress and summary ---------------------------------------------- */

typedef struct file_stats {
    const char *path;
    uint64_t events;
    rp_u64map threads, locks, vars;     /* distinct ids seen (values unused) */
    double cpu0, wall0, last_report;
} file_stats;

static double cpu_seconds(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

static double wall_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void stats_start(file_stats *st, const char *path)
{
    memset(st, 0, sizeof *st);
    st->path = path;
    u64map_init(&st->threads);
    u64map_init(&st->locks);
    u64map_init(&st->vars);
    st->cpu0 = cpu_seconds();
    st->wall0 = st->last_report = wall_seconds();
}

static void mark(rp_u64map *m, uint64_t key)
{
    if (u64map_get(m, key) == NULL)
        u64map_put(m, key, (void *)1);
}

/* Counts the event; on a terminal, rewrites the progress line twice a
 * second (the clock is read every 2^16 events only). */
static void stats_event(const options *opt, file_stats *st, const rp_event *e)
{
    st->events++;
    mark(&st->threads, e->tid);
    if (e->kind == RP_EV_ACQUIRE || e->kind == RP_EV_ACQUIRE_SHARED)
        mark(&st->locks, e->obj);
    else if (rp_event_is_access(e))
        mark(&st->vars, e->obj);
    if (!opt->progress || (st->events & 0xffff) != 0)
        return;
    double now = wall_seconds();
    if (now - st->last_report < 0.5)
        return;
    st->last_report = now;
    fprintf(stderr, "\r%s: %llu events read, %.0f events/s", st->path,
            (unsigned long long)st->events, st->events / (now - st->wall0));
}

static void stats_end_of_input(const options *opt, const file_stats *st)
{
    if (opt->progress && st->last_report != st->wall0)
        fprintf(stderr, "\r%s: %llu events read, analysing...\033[K", st->path,
                (unsigned long long)st->events);
}

/* Distinct pairs and distinct sites of detector number d. */
static void count_races(const race_lines *r, unsigned d, size_t *pairs, size_t *sites)
{
    uint64_t *p = rp_malloc("analyze.summary", (r->count + 1) * sizeof *p);
    uint64_t *s = rp_malloc("analyze.summary", (2 * r->count + 1) * sizeof *s);
    size_t np = 0, ns = 0;
    for (size_t i = 0; i < r->count; i++) {
        const race_line *l = &r->lines[i];
        if (l->detector != d)
            continue;
        p[np++] = l->first_id << 32 ^ l->second_id;
        s[ns++] = l->first;
        s[ns++] = l->second;
    }
    *pairs = sort_unique_u64(p, np);
    *sites = sort_unique_u64(s, ns);
    rp_free(p);
    rp_free(s);
}

static void stats_drop(file_stats *st)
{
    u64map_free(&st->threads);
    u64map_free(&st->locks);
    u64map_free(&st->vars);
}

static void stats_summary(const options *opt, file_stats *st, const race_lines *r)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (opt->progress)
        fprintf(stderr, "\r\033[K");
    if (opt->summary) {
        fprintf(stderr, "%s: %llu events, %u threads, %u locks, %u variables", st->path,
                (unsigned long long)st->events, (unsigned)st->threads.count,
                (unsigned)st->locks.count, (unsigned)st->vars.count);
        unsigned d = 0;
        for (const char *p = opt->detectors; *p != '\0'; d++) {
            size_t len = strcspn(p, ","), pairs, sites;
            count_races(r, d, &pairs, &sites);
            fprintf(stderr, "; %.*s: %zu race pairs, %zu racy locations", (int)len, p, pairs,
                    sites);
            p += len + (p[len] == ',');
        }
        fprintf(stderr, "; %.2f s CPU, %.2f s, peak RSS %ld MiB\n", cpu_seconds() - st->cpu0,
                wall_seconds() - st->wall0, ru.ru_maxrss / 1024);
    }
    stats_drop(st);
}

static void run_trace(const options *opt, const char *prefix, rp_trace *trace, file_stats *st)
{
    race_lines races = { opt->detectors, NULL, 0, 0 };
    rp_detector_env env = { .report = collect_race, .report_ctx = &races,
                            .all_pairs = opt->all_pairs, .skip_repeats = !opt->all_pairs,
                            .racy_reads_order = opt->racy_reads_order };
    rp_engine *eng = rp_engine_create(opt->detectors, &env, NULL);
    for (uint32_t i = 0; i < trace->n_events; i++) {
        stats_event(opt, st, &trace->events[i]);
        rp_engine_event(eng, &trace->events[i]);
    }
    stats_end_of_input(opt, st);
    rp_engine_finish(eng);
    rp_engine_destroy(eng);
    print_races(opt, prefix, trace, &races);
    stats_summary(opt, st, &races);
    rp_free(races.lines);
}

/* Binary traces: races are named by code location, so repeats of a pair
 * of sites (same kinds) are one line, as they are one report in the tool. */
static int compare_site_lines(const void *a, const void *b)
{
    const race_line *x = a, *y = b;
    if (x->detector != y->detector)
        return x->detector < y->detector ? -1 : 1;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    if (x->second != y->second)
        return x->second < y->second ? -1 : 1;
    if (x->first_write != y->first_write)
        return x->first_write ? 1 : -1;
    if (x->second_write != y->second_write)
        return x->second_write ? 1 : -1;
    return 0;
}

static void print_site(const rp_bt_reader *reader, uint64_t site)
{
    const char *location = rp_bt_site_location(reader, site);
    if (location != NULL)
        fputs(location, stdout);
    else
        printf("0x%llx", (unsigned long long)site);
}

static void print_site_races(const char *prefix, const rp_bt_reader *reader, race_lines *r)
{
    if (r->count > 1)
        qsort(r->lines, r->count, sizeof *r->lines, compare_site_lines);
    for (size_t i = 0; i < r->count; i++) {
        const race_line *l = &r->lines[i];
        if (i > 0 && compare_site_lines(l, &r->lines[i - 1]) == 0)
            continue;
        printf("%s%s %c ", prefix, l->detector_name, l->first_write ? 'w' : 'r');
        print_site(reader, l->first);
        printf(" | %c ", l->second_write ? 'w' : 'r');
        print_site(reader, l->second);
        putchar('\n');
    }
}

/* Streams the events of a binary trace through the detectors.  Returns
 * false (message on stderr) if the trace is malformed; nothing is
 * printed then. */
static bool run_binary(const options *opt, const char *path, const char *prefix,
                       const char *data, size_t len, file_stats *st)
{
    race_lines races = { opt->detectors, NULL, 0, 0 };
    rp_detector_env env = { .report = collect_race, .report_ctx = &races,
                            .all_pairs = opt->all_pairs, .skip_repeats = !opt->all_pairs,
                            .racy_reads_order = opt->racy_reads_order };
    rp_bt_reader reader;
    rp_bt_status status = RP_BT_ERROR;
    if (rp_bt_reader_init(&reader, data, len)) {
        rp_engine *eng = rp_engine_create(opt->detectors, &env, NULL);
        rp_event e;
        while ((status = rp_bt_next(&reader, &e)) == RP_BT_EVENT) {
            stats_event(opt, st, &e);
            rp_engine_event(eng, &e);
        }
        stats_end_of_input(opt, st);
        if (status == RP_BT_END)
            rp_engine_finish(eng);
        rp_engine_destroy(eng);
    }
    if (status == RP_BT_END) {
        print_site_races(prefix, &reader, &races);
        stats_summary(opt, st, &races);
    } else {
        if (opt->progress)
            fprintf(stderr, "\r\033[K");
        fprintf(stderr, "%s: offset %zu: %s\n", path, reader.err_offset, reader.message);
        stats_drop(st);
    }
    rp_bt_reader_free(&reader);
    rp_free(races.lines);
    return status == RP_BT_END;
}

/* Returns false if the file could not be read or parsed. */
static bool analyze_file(const options *opt, const char *path, bool prefix_lines)
{
    size_t len;
    file_stats st;
    stats_start(&st, path);
    char *text = read_file(path, &len);
    if (text == NULL) {
        stats_drop(&st);
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return false;
    }
    char *prefix = malloc(strlen(path) + 3);
    sprintf(prefix, "%s%s", prefix_lines ? path : "", prefix_lines ? ": " : "");
    if (len > 0 && len < RP_BT_MAGIC_LEN && memcmp(text, RP_BT_MAGIC, len) == 0) {
        fprintf(stderr, "%s: offset 0: truncated: %zu of the %u bytes of a binary trace's magic\n",
                path, len, (unsigned)RP_BT_MAGIC_LEN);
        stats_drop(&st);
        free(text);
        free(prefix);
        return false;
    }
    if (rp_bt_is_binary(text, len)) {
        bool ok = run_binary(opt, path, prefix, text, len, &st);
        free(text);
        free(prefix);
        return ok;
    }
    rp_trace trace;
    rp_trace_error err;
    bool ok = rp_std_detect(text, len) ? rp_std_parse(text, len, &trace, &err)
                                        : rp_trace_parse(text, len, &trace, &err);
    free(text);
    if (!ok) {
        fprintf(stderr, "%s:%u: %s\n", path, err.line, err.message);
        stats_drop(&st);
        free(prefix);
        return false;
    }
    run_trace(opt, prefix, &trace, &st);
    free(prefix);
    rp_trace_free(&trace);
    return true;
}

int main(int argc, char **argv)
{
    options opt;
    int status = parse_options(argc, argv, &opt);
    if (status >= 0)
        return status;
    bool prefix_lines = argc - opt.first_file > 1;
    /* the whole trace is in memory anyway: the offline detectors see all of it */
    offline_set_max_events(RP_OFFLINE_MAX_EVENTS_LIMIT);
    status = 0;
    for (int i = opt.first_file; i < argc; i++)
        if (!analyze_file(&opt, argv[i], prefix_lines))
            status = 1;
    return status;
}
