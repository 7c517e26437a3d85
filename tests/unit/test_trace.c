/* test_trace.c — the text trace reader (racepred/core/rp_trace.h): a good
 * trace in detail, every malformed case with its line number, and random
 * mutations that must never crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rp_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char good_trace[] =
    "# source: own\n"
    "# note: a comment; # expect is only special at the start\n"
    "# expect hb: 4-6 1-6 ; derived\r\n"
    "# expect lockset: none ; paper\n"
    "\n"
    "T1 w(x)\n"
    "T1 fork(T3)\n"
    "  T3 acq(m_1)  \n"
    "T3 r(y)\r\n"
    "T3 rel(m_1)\n"
    "T1\tbr\n"
    "T1 join(T3)\n"
    "T7 w(x)\n";

static void test_good_trace(void **state)
{
    (void)state;
    rp_trace t;
    rp_trace_error err;
    assert_true(rp_trace_parse(good_trace, strlen(good_trace), &t, &err));
    assert_int_equal(t.n_events, 8);
    static const rp_event_kind kinds[] = { RP_EV_WRITE, RP_EV_FORK, RP_EV_ACQUIRE, RP_EV_READ,
                                           RP_EV_RELEASE, RP_EV_BRANCH, RP_EV_JOIN, RP_EV_WRITE };
    static const rp_tid_t tids[] = { 0, 0, 1, 1, 1, 0, 0, 2 };
    for (uint32_t i = 0; i < t.n_events; i++) {
        assert_int_equal(t.events[i].kind, kinds[i]);
        assert_int_equal(t.events[i].tid, tids[i]);
        assert_int_equal(t.events[i].site, i + 1);
    }
    assert_int_equal(t.events[0].obj, rp_trace_var_addr(0));
    assert_int_equal(t.events[0].size, 1);
    assert_int_equal(t.events[3].obj, rp_trace_var_addr(1));
    assert_int_equal(t.events[7].obj, rp_trace_var_addr(0));
    assert_int_equal(rp_trace_var_addr(1) % 8, 0);
    assert_int_equal(t.events[1].obj, 1);
    assert_int_equal(t.events[6].obj, 1);
    assert_int_equal(t.events[2].obj, 0);
    assert_int_equal(t.n_threads, 3);
    assert_string_equal(t.thread_names[0], "T1");
    assert_string_equal(t.thread_names[1], "T3");
    assert_string_equal(t.thread_names[2], "T7");
    assert_int_equal(t.n_locks, 1);
    assert_string_equal(t.lock_names[0], "m_1");
    assert_int_equal(t.n_vars, 2);
    assert_string_equal(rp_trace_var_name(&t, t.events[3].obj), "y");
    assert_null(rp_trace_var_name(&t, 3));
    const rp_trace_expect *hb = rp_trace_find_expect(&t, "hb");
    assert_non_null(hb);
    assert_int_equal(hb->line, 3);
    assert_string_equal(hb->tag, "derived");
    assert_int_equal(hb->n_pairs, 2);
    assert_int_equal(hb->pairs[0].first, 1);
    assert_int_equal(hb->pairs[0].second, 6);
    assert_int_equal(hb->pairs[1].first, 4);
    assert_int_equal(rp_trace_find_expect(&t, "lockset")->n_pairs, 0);
    assert_null(rp_trace_find_expect(&t, "wcp"));
    rp_trace_free(&t);
}

static void test_empty_and_unterminated(void **state)
{
    (void)state;
    rp_trace t;
    rp_trace_error err;
    assert_true(rp_trace_parse("", 0, &t, &err));
    assert_int_equal(t.n_events, 0);
    rp_trace_free(&t);
    assert_true(rp_trace_parse("T1 w(x)\nT2 r(x)", 15, &t, &err));
    assert_int_equal(t.n_events, 2);
    rp_trace_free(&t);
    assert_true(rp_trace_parse("T1 acq(l)\n", 10, &t, &err));   /* left held: allowed */
    rp_trace_free(&t);
}

typedef struct bad_case {
    const char *text;
    unsigned line;
    const char *message_part;
} bad_case;

static const bad_case bad_cases[] = {
    { "T1 foo(x)\n", 1, "unknown operation 'foo'" },
    { "T1 w(x)\nX1 w(x)\n", 2, "bad thread name" },
    { "T1 w(x)\nT w(x)\n", 2, "bad thread name" },
    { "T1x w(x)\n", 1, "bad thread name" },
    { "T1 w(x\n", 1, "missing ')'" },
    { "T1 w(x;y)\n", 1, "missing ')'" },
    { "T1 w x\n", 1, "missing '('" },
    { "T1 w()\n", 1, "missing name" },
    { "T1 w(x) y\n", 1, "trailing junk 'y'" },
    { "T1 br(x)\n", 1, "trailing junk" },
    { "T1 w(x) # comment\n", 1, "trailing junk" },
    { "T1\n", 1, "expected a space" },
    { "T1 \n", 1, "missing operation" },
    { "T1 fork(x)\n", 1, "bad thread name" },
    { "# expect hb 1-2 ; derived\n", 1, "missing ':'" },
    { "# expect : 1-2 ; derived\n", 1, "missing relation" },
    { "# expect hb: 1-2\nT1 w(x)\nT2 w(x)\n", 1, "missing ' ; TAG'" },
    { "# expect hb: 1-2 ;\nT1 w(x)\nT2 w(x)\n", 1, "missing tag" },
    { "# expect hb: 1-2 ; paper extra\nT1 w(x)\nT2 w(x)\n", 1, "trailing junk" },
    { "# expect hb: 2-1 ; derived\nT1 w(x)\nT2 w(x)\n", 1, "I < J" },
    { "# expect hb: 0-1 ; derived\nT1 w(x)\nT2 w(x)\n", 1, "I < J" },
    { "# expect hb: 1+2 ; derived\n", 1, "expected I-J" },
    { "# expect hb: x ; derived\n", 1, "expected a number" },
    { "# expect hb: none ; paper\n# expect hb: none ; paper\n", 2, "second expect line" },
    { "# expect hb: 1-5 ; paper\nT1 w(x)\nT2 w(x)\n", 1, "past the last event" },
    { "# expect hb: 1-99999999999 ; paper\n", 1, "number too large" },
    { "T99999999999 w(x)\n", 1, "number too large" },
    { "T1 fork(T4294967296)\n", 1, "number too large" },
    { "T1 rel(l)\n", 1, "does not hold" },
    { "T1 acq(l)\nT2 rel(l)\n", 2, "does not hold" },
    { "T1 acq(l)\nT1 acq(l)\n", 2, "not reentrant" },
    { "T1 acq(l)\nT2 acq(l)\n", 2, "held by another thread" },
    { "T1 fork(T2)\nT2 w(x)\nT1 join(T2)\nT2 w(x)\n", 4, "after it was joined: 'T2'" },
    { "T1 join(T2)\n", 1, "unknown thread" },
    { "T1 fork(T1)\n", 1, "fork itself" },
    { "T1 join(T1)\n", 1, "join itself" },
    { "T2 w(x)\nT1 fork(T2)\n", 2, "already started: 'T2'" },
    { "T1 fork(T2)\nT1 fork(T2)\n", 2, "already started" },
    { "T1 fork(T2)\nT1 join(T2)\nT1 join(T2)\n", 3, "joined twice" },
    { "\n# c\n\nT1 w(x)\nT1 zz(x)\n", 5, "unknown operation 'zz'" },
};

static void test_malformed_inputs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        const bad_case *c = &bad_cases[i];
        rp_trace t;
        rp_trace_error err;
        bool ok = rp_trace_parse(c->text, strlen(c->text), &t, &err);
        if (ok || err.line != c->line || strstr(err.message, c->message_part) == NULL)
            fprintf(stderr, "case %zu %s-> ok=%d line %u: %s\n", i, c->text, ok, err.line,
                    err.message);
        assert_false(ok);
        assert_int_equal(err.line, c->line);
        assert_non_null(strstr(err.message, c->message_part));
        assert_int_equal(t.n_events, 0);
        assert_null(t.events);
    }
}

static void test_embedded_nul_is_junk(void **state)
{
    (void)state;
    static const char text[] = "T1 w(x)\0\nT2 w(x)\n";
    rp_trace t;
    rp_trace_error err;
    assert_false(rp_trace_parse(text, sizeof text - 1, &t, &err));
    assert_int_equal(err.line, 1);
}

static uint64_t rng_state = 88172645463325252ull;

static uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

static void test_random_mutations_never_crash(void **state)
{
    (void)state;
    static const char alphabet[] = "T0123456789 ()-;:#\n\rwracqreljoinforkbrexpectnone\t\0";
    size_t len = strlen(good_trace);
    unsigned accepted = 0;
    for (unsigned iter = 0; iter < 20000; iter++) {
        char buf[sizeof good_trace];
        memcpy(buf, good_trace, len);
        for (unsigned k = 1 + rnd(4); k > 0; k--)
            buf[rnd((uint32_t)len)] = alphabet[rnd(sizeof alphabet - 1)];
        size_t n = rnd((uint32_t)len + 1);
        rp_trace t;
        rp_trace_error err;
        if (rp_trace_parse(buf, n, &t, &err)) {
            accepted++;
            rp_trace_free(&t);
        } else {
            assert_in_range(err.line, 1, 15);
            assert_true(err.message[0] != '\0');
        }
    }
    assert_true(accepted > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_trace),
        cmocka_unit_test(test_empty_and_unterminated),
        cmocka_unit_test(test_malformed_inputs),
        cmocka_unit_test(test_embedded_nul_is_junk),
        cmocka_unit_test(test_random_mutations_never_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
