/* test_vectors.c — every detector of the registry against every trace
 * vector that states its relation.
 *
 * For each detector (rp_detector_at) and each tests/traces/<name>.trace with an
 * `# expect <detector name>:` line, the trace runs through the engine in
 * all-pairs mode and the reported (first.id, second.id) pairs must be
 * exactly the listed ones.  Fails if no trace file is found or if a
 * detector has no vector at all.  The traces directory comes from the
 * environment variable TRACES_DIR, else from -DTRACES_DIR.
 */
#include "rp_detector.h"
#include "rp_engine.h"
#include "rp_trace.h"

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#ifndef TRACES_DIR
#define TRACES_DIR "tests/traces"
#endif

#define MAX_FILES 1024

typedef struct pair_list {
    rp_trace_pair *pairs;
    uint32_t n, cap;
} pair_list;

static void collect_race(void *ctx, const rp_race *race)
{
    pair_list *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap == 0 ? 16 : 2 * l->cap;
        l->pairs = realloc(l->pairs, l->cap * sizeof *l->pairs);
        assert_non_null(l->pairs);
    }
    l->pairs[l->n].first = (uint32_t)race->first.id;
    l->pairs[l->n].second = (uint32_t)race->second.id;
    l->n++;
}

static int compare_pairs(const void *a, const void *b)
{
    const rp_trace_pair *x = a, *y = b;
    if (x->first != y->first)
        return x->first < y->first ? -1 : 1;
    return x->second < y->second ? -1 : x->second > y->second;
}

static void sort_unique(pair_list *l)
{
    uint32_t out = 0;
    if (l->n > 1)
        qsort(l->pairs, l->n, sizeof *l->pairs, compare_pairs);
    for (uint32_t i = 0; i < l->n; i++)
        if (out == 0 || compare_pairs(&l->pairs[out - 1], &l->pairs[i]) != 0)
            l->pairs[out++] = l->pairs[i];
    l->n = out;
}

static void print_pairs(const char *label, const rp_trace_pair *pairs, uint32_t n)
{
    fprintf(stderr, "    %s:", label);
    if (n == 0)
        fprintf(stderr, " none");
    for (uint32_t i = 0; i < n; i++)
        fprintf(stderr, " %u-%u", pairs[i].first, pairs[i].second);
    fprintf(stderr, "\n");
}

/* Runs one detector on a parsed trace in all-pairs mode. */
static void run_detector(const char *name, const rp_trace *trace, pair_list *out)
{
    rp_detector_env env = { .report = collect_race, .report_ctx = out, .all_pairs = true };
    char *bad = NULL;
    rp_engine *eng = rp_engine_create(name, &env, &bad);
    assert_non_null(eng);
    for (uint32_t i = 0; i < trace->n_events; i++) {
        rp_event e = trace->events[i];
        rp_engine_event(eng, &e);
    }
    rp_engine_finish(eng);
    rp_engine_destroy(eng);
    sort_unique(out);
}

static bool same_pairs(const pair_list *got, const rp_trace_expect *want)
{
    if (got->n != want->n_pairs)
        return false;
    for (uint32_t i = 0; i < got->n; i++)
        if (compare_pairs(&got->pairs[i], &want->pairs[i]) != 0)
            return false;
    return true;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)size + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    fclose(f);
    text[size] = '\0';
    *len = (size_t)size;
    return text;
}

static const char *traces_dir(void)
{
    const char *dir = getenv("TRACES_DIR");
    return dir != NULL && dir[0] != '\0' ? dir : TRACES_DIR;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static unsigned list_traces(char **names)
{
    DIR *dir = opendir(traces_dir());
    unsigned n = 0;
    if (dir == NULL)
        return 0;
    for (struct dirent *ent; (ent = readdir(dir)) != NULL;) {
        size_t len = strlen(ent->d_name);
        if (len > 6 && strcmp(ent->d_name + len - 6, ".trace") == 0 && n < MAX_FILES)
            names[n++] = strdup(ent->d_name);
    }
    closedir(dir);
    qsort(names, n, sizeof *names, compare_names);
    return n;
}

/* Checks one trace file for every detector; counts vectors per detector. */
static unsigned check_file(const char *name, unsigned *vectors_per_detector)
{
    char path[4096];
    size_t len;
    rp_trace trace;
    rp_trace_error err;
    unsigned failures = 0;
    snprintf(path, sizeof path, "%s/%s", traces_dir(), name);
    char *text = read_file(path, &len);
    if (!rp_trace_parse(text, len, &trace, &err)) {
        fprintf(stderr, "%s:%u: %s\n", path, err.line, err.message);
        free(text);
        return 1;
    }
    for (unsigned d = 0; d < rp_detector_count(); d++) {
        const char *det = rp_detector_at(d)->name;
        const rp_trace_expect *want = rp_trace_find_expect(&trace, det);
        if (want == NULL)
            continue;
        vectors_per_detector[d]++;
        pair_list got = { NULL, 0, 0 };
        run_detector(det, &trace, &got);
        if (!same_pairs(&got, want)) {
            fprintf(stderr, "MISMATCH %s on %s\n", det, name);
            print_pairs("expected", want->pairs, want->n_pairs);
            print_pairs("reported", got.pairs, got.n);
            failures++;
        }
        free(got.pairs);
    }
    rp_trace_free(&trace);
    free(text);
    return failures;
}

static void test_every_detector_on_every_vector(void **state)
{
    char *names[MAX_FILES];
    unsigned vectors[64] = { 0 };
    unsigned failures = 0, checked = 0;
    (void)state;
    assert_true(rp_detector_count() <= 64);
    unsigned n_files = list_traces(names);
    if (n_files == 0)
        fail_msg("no *.trace files in %s (set TRACES_DIR)", traces_dir());
    for (unsigned i = 0; i < n_files; i++) {
        failures += check_file(names[i], vectors);
        free(names[i]);
    }
    for (unsigned d = 0; d < rp_detector_count(); d++) {
        fprintf(stderr, "%-10s %u vectors\n", rp_detector_at(d)->name, vectors[d]);
        checked += vectors[d];
        if (vectors[d] == 0) {
            fprintf(stderr, "detector %s has no vector\n", rp_detector_at(d)->name);
            failures++;
        }
    }
    fprintf(stderr, "%u files, %u vectors checked, %u failures\n", n_files, checked, failures);
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_detector_on_every_vector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
