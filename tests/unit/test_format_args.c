/* test_format_args.c — the accesses racepred announces for printf's and
 * scanf's arguments (racepred/rp_format_args.h), against calls of libc's
 * own vsnprintf and vsscanf on the same arguments: every string a %s
 * reads, every store of %n and of scanf's conversions, with its size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "rp_format_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define MAX_ACCESSES 16

typedef struct walked {
    rp_arg_access access[MAX_ACCESSES];
    int count;
    int returned;
} walked;

static void walk_all(walked *out, rp_format_walk *w,
                     int (*next)(rp_format_walk *, rp_arg_access *))
{
    out->count = 0;
    while (out->count < MAX_ACCESSES && next(w, &out->access[out->count]))
        out->count++;
}

/* vsnprintf on the arguments, then the walk on a copy of them. */
static __attribute__((format(printf, 2, 3))) void printed(walked *out, const char *fmt, ...)
{
    char text[256];
    va_list args, copy;
    rp_format_walk w;

    va_start(args, fmt);
    va_copy(copy, args);
    out->returned = vsnprintf(text, sizeof text, fmt, args);
    rp_printf_walk_start(&w, fmt, &copy);
    walk_all(out, &w, rp_printf_walk_next);
    va_end(copy);
    va_end(args);
}

/* The walk alone, for formats whose arguments vsnprintf could not take
 * in order (it reads positional arguments its own way). */
static void print_walked(walked *out, const char *fmt, ...)
{
    va_list args;
    rp_format_walk w;

    va_start(args, fmt);
    rp_printf_walk_start(&w, fmt, &args);
    walk_all(out, &w, rp_printf_walk_next);
    va_end(args);
}

/* vsscanf (libc's C99 one) on the arguments, then the walk. */
static __attribute__((format(scanf, 3, 4))) void scanned(walked *out, const char *input,
                                                         const char *fmt, ...)
{
    va_list args, copy;
    rp_format_walk w;

    va_start(args, fmt);
    va_copy(copy, args);
    out->returned = vsscanf(input, fmt, args);
    rp_scanf_walk_start(&w, fmt, &copy, out->returned, 1);
    walk_all(out, &w, rp_scanf_walk_next);
    va_end(copy);
    va_end(args);
}

/* The walk alone, for formats libc's C99 scanf would read otherwise. */
static void scan_walked(walked *out, int returned, int c99, const char *fmt, ...)
{
    va_list args;
    rp_format_walk w;

    va_start(args, fmt);
    rp_scanf_walk_start(&w, fmt, &args, returned, c99);
    walk_all(out, &w, rp_scanf_walk_next);
    va_end(args);
}

static void assert_access(const walked *out, int i, const void *addr, size_t size,
                          int is_write)
{
    assert_true(i < out->count);
    assert_ptr_equal(out->access[i].addr, addr);
    assert_int_equal(out->access[i].size, size);
    assert_int_equal(out->access[i].is_write, is_write);
}

static void test_printf_strings_read_to_terminator_or_precision(void **state)
{
    const char *whole = "whole", *cut = "abcdef", *starred = "xy", *short_one = "hi";
    const wchar_t *wide = L"wide";
    int stored = -1;
    walked out;

    (void)state;
    printed(&out, "%d %s|%.3s|%-*.*s|%5.10s|%lu %f %Lf %p %c %% %ls %hhx%n", 7, whole, cut, 4,
            2, starred, short_one, 9ul, 1.5, (long double)2.5, (void *)&out, 'c', wide,
            (unsigned char)1, &stored);
    assert_int_equal(out.count, 6);
    assert_access(&out, 0, whole, 6, 0);
    assert_access(&out, 1, cut, 3, 0);
    assert_access(&out, 2, starred, 2, 0);
    assert_access(&out, 3, short_one, 3, 0);
    assert_access(&out, 4, wide, 5 * sizeof(wchar_t), 0);
    assert_access(&out, 5, &stored, sizeof(int), 1);
    assert_int_equal(stored, out.returned);
}

/* A precision on %ls counts bytes of multibyte text: the walk stops at the
 * first wide character that is not ASCII (libc reads it to convert it). */
static void test_printf_wide_precision_stops_at_multibyte(void **state)
{
    const wchar_t *ascii = L"abcdef", *accented = L"ab\u00e9cdef";
    walked out;

    (void)state;
    print_walked(&out, "%.4ls %.5ls", ascii, accented);
    assert_int_equal(out.count, 2);
    assert_access(&out, 0, ascii, 4 * sizeof(wchar_t), 0);
    assert_access(&out, 1, accented, 3 * sizeof(wchar_t), 0);
}

static void test_printf_store_sizes_follow_length(void **state)
{
    signed char c = 0;
    short h = 0;
    long l = 0;
    long long ll = 0;
    size_t z = 0;
    walked out;

    (void)state;
    printed(&out, "a%hhnb%hnc%lnd%llne%zn", &c, &h, &l, &ll, &z);
    assert_int_equal(out.count, 5);
    assert_access(&out, 0, &c, 1, 1);
    assert_access(&out, 1, &h, 2, 1);
    assert_access(&out, 2, &l, 8, 1);
    assert_access(&out, 3, &ll, 8, 1);
    assert_access(&out, 4, &z, 8, 1);
    assert_int_equal(c * 100 + h * 10 + (int)l, 123);
}

static void test_printf_null_string_and_zero_precision(void **state)
{
    const char *after = "after";
    const char *volatile none = NULL;
    walked out;

    (void)state;
    printed(&out, "%s %.0s %s", none, after, after);
    assert_int_equal(out.count, 1);
    assert_access(&out, 0, after, 6, 0);
}

static void test_printf_walk_ends_where_it_cannot_follow(void **state)
{
    const char *s = "s";
    walked out;

    (void)state;
    print_walked(&out, "%s %1$s", s);
    assert_int_equal(out.count, 1);
    printed(&out, "%2$s %1$s", s, s);
    assert_int_equal(out.count, 0);
    print_walked(&out, "%*2$d %s", 1, 2, s);
    assert_int_equal(out.count, 0);
    print_walked(&out, "%k %s", s);
    assert_int_equal(out.count, 0);
}

static void test_scanf_stores_what_each_conversion_assigned(void **state)
{
    int number = 0, position = -1;
    char word[8], chars[4], set[8];
    char *allocated = NULL;
    double real = 0;
    signed char small = 0;
    walked out;

    (void)state;
    memset(chars, '.', sizeof chars);
    scanned(&out, "12 hello 99 abcxyz more 2.5 7", "%d %5s %*d %3c%[a-z]%n %ms %lf %hhd",
            &number, word, chars, set, &position, &allocated, &real, &small);
    assert_int_equal(out.returned, 7);
    assert_int_equal(out.count, 8);
    assert_access(&out, 0, &number, sizeof number, 1);
    assert_access(&out, 1, word, 6, 1);
    assert_access(&out, 2, chars, 3, 1);
    assert_int_equal(chars[3], '.');
    assert_access(&out, 3, set, 4, 1);
    assert_access(&out, 4, &position, sizeof position, 1);
    assert_int_equal(position, 18);
    assert_access(&out, 5, &allocated, sizeof allocated, 1);
    assert_access(&out, 6, &real, sizeof real, 1);
    assert_access(&out, 7, &small, 1, 1);
    assert_string_equal(allocated, "more");
    free(allocated);
}

static void test_scanf_walk_stops_at_the_failed_conversion(void **state)
{
    int first = 0, second = 0, position = 0;
    char word[8];
    walked out;

    (void)state;
    scanned(&out, "12 x", "%d %d %n%s", &first, &second, &position, word);
    assert_int_equal(out.returned, 1);
    assert_int_equal(out.count, 1);
    assert_access(&out, 0, &first, sizeof first, 1);
    scanned(&out, "", "%d", &first);
    assert_int_equal(out.returned, EOF);
    assert_int_equal(out.count, 0);
}

static void test_scanf_scansets_and_literal_percent(void **state)
{
    char set[8], rest[8];
    wchar_t wide[8];
    walked out;

    (void)state;
    scanned(&out, "]a]ab%q wz", "%[]a]%*[b]%%q %s", set, rest);
    assert_int_equal(out.returned, 2);
    assert_int_equal(out.count, 2);
    assert_access(&out, 0, set, 5, 1);
    assert_string_equal(set, "]a]a");
    assert_access(&out, 1, rest, 3, 1);
    scanned(&out, "wide", "%l[a-z]", wide);
    assert_int_equal(out.count, 1);
    assert_access(&out, 0, wide, 5 * sizeof(wchar_t), 1);
}

/* GNU's %as allocates (before C99 scanf); the __isoc99_ ones read a float. */
static void test_scanf_a_is_allocation_only_before_c99(void **state)
{
    float real;
    char *text;
    walked out;

    (void)state;
    scan_walked(&out, 1, 0, "%as", &text);
    assert_int_equal(out.count, 1);
    assert_access(&out, 0, &text, sizeof text, 1);
    scan_walked(&out, 1, 1, "%as", &real);
    assert_int_equal(out.count, 1);
    assert_access(&out, 0, &real, sizeof real, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_printf_strings_read_to_terminator_or_precision),
        cmocka_unit_test(test_printf_wide_precision_stops_at_multibyte),
        cmocka_unit_test(test_printf_store_sizes_follow_length),
        cmocka_unit_test(test_printf_null_string_and_zero_precision),
        cmocka_unit_test(test_printf_walk_ends_where_it_cannot_follow),
        cmocka_unit_test(test_scanf_stores_what_each_conversion_assigned),
        cmocka_unit_test(test_scanf_walk_stops_at_the_failed_conversion),
        cmocka_unit_test(test_scanf_scansets_and_literal_percent),
        cmocka_unit_test(test_scanf_a_is_allocation_only_before_c99),
    };

    return cmocka_run_group_tests(tests, NULL, NULL);
}
