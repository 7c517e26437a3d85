/* test_hb_vectors.c — the hb detector on every trace vector of tests/traces
 * that has an `# expect hb:` line.
 *
 * All-pairs mode must report exactly the expected pairs.  Location mode (what
 * the Valgrind tool does online) must report only expected pairs and at least
 * one pair for every variable that has an expected pair.  The directory
 * comes from $TRACES_DIR or the build (-DTRACES_DIR); finding no vector at
 * all is a failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "hb_harness.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static bool key_expected(const rp_trace_expect *x, uint64_t key)
{
    for (uint32_t i = 0; i < x->n_pairs; i++)
        if (((uint64_t)x->pairs[i].first << 32 | x->pairs[i].second) == key)
            return true;
    return false;
}

static void check_all_pairs(const char *name, rp_trace *t, const rp_trace_expect *x)
{
    race_log log = { NULL, 0, 0 };
    harness_run("hb", true, t->events, t->n_events, &log);
    uint64_t *keys;
    size_t n = harness_pair_keys(&log, &keys);
    bool same = n == x->n_pairs;
    for (size_t i = 0; same && i < n; i++)
        same = keys[i] == ((uint64_t)x->pairs[i].first << 32 | x->pairs[i].second);
    if (!same) {
        fprintf(stderr, "%s: all-pairs hb reported:", name);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " %llu-%llu", (unsigned long long)(keys[i] >> 32),
                    (unsigned long long)(uint32_t)keys[i]);
        fprintf(stderr, " (expected %u pairs)\n", x->n_pairs);
    }
    assert_true(same);
    assert_int_equal(log.count, n);   /* no duplicate reports */
    free(keys);
    free(log.races);
}

static void check_location_mode(const char *name, rp_trace *t, const rp_trace_expect *x)
{
    race_log log = { NULL, 0, 0 };
    harness_run("hb", false, t->events, t->n_events, &log);
    for (size_t i = 0; i < log.count; i++) {
        const rp_race *r = &log.races[i];
        if (!key_expected(x, r->first.id << 32 | r->second.id))
            fprintf(stderr, "%s: location mode reported unexpected %llu-%llu\n", name,
                    (unsigned long long)r->first.id, (unsigned long long)r->second.id);
        assert_true(key_expected(x, r->first.id << 32 | r->second.id));
        assert_true(r->observed);
    }
    for (uint32_t i = 0; i < x->n_pairs; i++) {
        uint64_t var_addr = t->events[x->pairs[i].first - 1].obj;
        bool reported = false;
        for (size_t k = 0; k < log.count && !reported; k++)
            reported = log.races[k].addr == var_addr;
        if (!reported)
            fprintf(stderr, "%s: location mode missed variable %s\n", name,
                    rp_trace_var_name(t, var_addr));
        assert_true(reported);
    }
    free(log.races);
}

static bool check_file(const char *dir, const char *file)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, file);
    size_t len;
    char *text = harness_read_file(path, &len);
    assert_non_null(text);
    rp_trace t;
    rp_trace_error err;
    if (!rp_trace_parse(text, len, &t, &err))
        fprintf(stderr, "%s:%u: %s\n", path, err.line, err.message);
    free(text);
    assert_true(err.line == 0);
    const rp_trace_expect *x = rp_trace_find_expect(&t, "hb");
    if (x != NULL) {
        check_all_pairs(file, &t, x);
        check_location_mode(file, &t, x);
    }
    rp_trace_free(&t);
    return x != NULL;
}

static void test_every_vector(void **state)
{
    (void)state;
    const char *dir = harness_traces_dir();
    DIR *d = opendir(dir);
    if (d == NULL)
        fprintf(stderr, "cannot open traces directory %s (set TRACES_DIR)\n", dir);
    assert_non_null(d);
    unsigned checked = 0;
    struct dirent *entry;
    while ((entry = readdir(d)) != NULL)
        if (has_suffix(entry->d_name, ".trace") && check_file(dir, entry->d_name))
            checked++;
    closedir(d);
    fprintf(stderr, "hb: %u trace vectors checked\n", checked);
    assert_true(checked > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_vector),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
