/* test_stdtrace.c — the RAPID STD reader (rp_stdtrace.h): recognition,
 * events and names, every syntax error with its line, well-formedness
 * errors with the STD line, and every vector without `br` rewritten as STD
 * giving exactly the events of its text form. */
#include "rp_stdtrace.h"

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

static rp_trace parse_ok(const char *text)
{
    rp_trace t;
    rp_trace_error err;
    assert_true(rp_std_detect(text, strlen(text)));
    if (!rp_std_parse(text, strlen(text), &t, &err))
        fail_msg("line %u: %s", err.line, err.message);
    return t;
}

static void test_detect(void **state)
{
    (void)state;
    const char *std = "\n# comment\n  T0|w(x)|1\n";
    const char *text = "# x|y\nT0 w(x)\n";
    assert_true(rp_std_detect(std, strlen(std)));
    assert_false(rp_std_detect(text, strlen(text)));
    assert_false(rp_std_detect("", 0));
}

static void test_events_and_names(void **state)
{
    (void)state;
    rp_trace t = parse_ok("T0|w(V1)|4\nT1|acq(L0)|5\n\n# c\nT1|r(V1)|6\nT1|rel(L0)\n"
                          "T0|fork(T2)|8\nT2|w(V1)|9\nT0|join(T2)|10\n");
    assert_int_equal(t.n_events, 7);
    static const uint8_t kinds[] = { RP_EV_WRITE, RP_EV_ACQUIRE, RP_EV_READ, RP_EV_RELEASE,
                                     RP_EV_FORK, RP_EV_WRITE, RP_EV_JOIN };
    for (uint32_t i = 0; i < 7; i++)
        assert_int_equal(t.events[i].kind, kinds[i]);
    assert_int_equal(t.events[2].tid, t.events[1].tid);
    assert_string_equal(t.var_names[0], "V1");
    assert_string_equal(t.lock_names[0], "L0");
    assert_string_equal(t.thread_names[t.events[5].tid], "T2");
    rp_trace_free(&t);

    t = parse_ok("main|w(x.f)|A.java:3\nmain|fork(worker-1)|A.java:4\n"
                 "worker-1|acq(Foo$1)|B.java:1\nworker-1|r(x.f)|B.java:9\n"
                 "worker-1|rel(Foo$1)|B.java:9\nmain|join(worker-1)\n");
    assert_int_equal(t.n_events, 6);
    assert_string_equal(t.thread_names[t.events[0].tid], "main");
    assert_string_equal(t.thread_names[t.events[3].tid], "worker-1");
    assert_int_equal(t.events[1].obj, t.events[3].tid);
    assert_string_equal(t.var_names[0], "x.f");
    assert_string_equal(t.lock_names[0], "Foo$1");
    rp_trace_free(&t);
}

static void want_error(const char *text, unsigned line, const char *message)
{
    rp_trace t;
    rp_trace_error err;
    assert_false(rp_std_parse(text, strlen(text), &t, &err));
    assert_int_equal(err.line, line);
    if (strstr(err.message, message) == NULL)
        fail_msg("message '%s' lacks '%s'", err.message, message);
}

static void test_errors(void **state)
{
    (void)state;
    want_error("T0|w(x)|1\nT0 w(x)\n", 2, "expected THREAD|OP(OBJECT)|LOCATION");
    want_error("T0|w(x)|1\n|w(x)|2\n", 2, "bad thread name");
    want_error("T0|w|1\n", 1, "expected OP(OBJECT)");
    want_error("T0|w(x|1\n", 1, "missing ')'");
    want_error("T0|w()|1\n", 1, "bad or empty object name");
    want_error("T0|xx(y)|1\n", 1, "unknown operation");
    want_error("T0|w(x)z|1\n", 1, "expected '|' after OP(OBJECT)");
    want_error("T0|w(x)|1|2\n", 1, "too many '|' fields");
    want_error("T0|w(x)|1\n\nT1|rel(L)|2\n", 3, "does not hold");
    want_error("T0|acq(L)|1\nT0|acq(L)|2\n", 2, "");
}

/* Every vector without branches, rewritten as STD, parses to the same
 * events as its text form. */
static void test_vectors_as_std(void **state)
{
    (void)state;
    const char *dir = getenv("TRACES_DIR") ? getenv("TRACES_DIR") : TRACES_DIR;
    DIR *d = opendir(dir);
    struct dirent *ent;
    unsigned files = 0;
    assert_non_null(d);
    while ((ent = readdir(d)) != NULL) {
        size_t n = strlen(ent->d_name);
        if (n <= 6 || strcmp(ent->d_name + n - 6, ".trace") != 0)
            continue;
        char path[4096], line[512];
        snprintf(path, sizeof path, "%s/%s", dir, ent->d_name);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        size_t cap = 1 << 16, tl = 0, sl = 0;
        char *text = calloc(cap, 1), *std = calloc(cap, 1);
        bool branches = false;
        while (fgets(line, sizeof line, f) != NULL) {
            tl += (size_t)snprintf(text + tl, cap - tl, "%s", line);
            char th[64], op[64], obj[64];
            if (line[0] == 'T' && sscanf(line, "%63s %63[a-z](%63[^)])", th, op, obj) == 3)
                sl += (size_t)snprintf(std + sl, cap - sl, "%s|%s(%s)|%zu\n", th, op, obj, sl);
            else if (line[0] == 'T')
                branches = true;
            else
                sl += (size_t)snprintf(std + sl, cap - sl, "\n");
        }
        fclose(f);
        if (!branches) {
            rp_trace a, b;
            rp_trace_error err;
            assert_true(rp_trace_parse(text, tl, &a, &err));
            if (!rp_std_parse(std, sl, &b, &err))
                fail_msg("%s: line %u: %s", ent->d_name, err.line, err.message);
            assert_int_equal(a.n_events, b.n_events);
            for (uint32_t i = 0; i < a.n_events; i++) {
                const rp_event *x = &a.events[i], *y = &b.events[i];
                assert_true(x->id == y->id && x->obj == y->obj && x->site == y->site &&
                            x->tid == y->tid && x->size == y->size && x->kind == y->kind);
            }
            rp_trace_free(&a);
            rp_trace_free(&b);
            files++;
        }
        free(text);
        free(std);
    }
    closedir(d);
    fprintf(stderr, "%u vectors read as STD\n", files);
    assert_true(files > 50);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect),
        cmocka_unit_test(test_events_and_names),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_vectors_as_std),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
