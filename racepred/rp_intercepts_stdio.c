/* rp_intercepts_stdio.c — stdio calls that move bytes between the
 * program's buffers and a stream: the bytes they read or write there
 * (rp_libc.h).  libc copies them with its own, uninstrumented code (and
 * its internal memcpy calls are dropped as libc's), so without these a
 * thread that freads into a buffer another thread is reading would race
 * unseen.  The stream's own buffer is libc's business (ordered by the
 * stream's lock inside libc) and stays invisible. */
#include <stdio.h>

#include "rp_preload.h"

/* size * n, or 0 when it overflows (the call then fails anyway). */
static size_t bytes_of(size_t size, size_t n)
{
    size_t bytes;

    return __builtin_mul_overflow(size, n, &bytes) ? 0 : bytes;
}

RP_LIBC_FUNC(size_t, fread, void *buf, size_t size, size_t n, FILE *f)
{
    OrigFn fn;
    size_t got;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WWWW(got, fn, buf, size, n, f);
    RP_ANNOUNCE_ACCESS(0, 0, buf, bytes_of(size, got));
    return got;
}

RP_LIBC_FUNC(size_t, fwrite, const void *buf, size_t size, size_t n, FILE *f)
{
    OrigFn fn;
    size_t put;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(buf, bytes_of(size, n), 0, 0);
    CALL_FN_W_WWWW(put, fn, buf, size, n, f);
    return put;
}

/* fgets writes what it read and a terminator. */
RP_LIBC_FUNC(char *, fgets, char *buf, int n, FILE *f)
{
    OrigFn fn;
    char *r;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WWW(r, fn, buf, n, f);
    if (r != NULL)
        RP_ANNOUNCE_ACCESS(0, 0, buf, rp_preload_strlen(buf) + 1);
    return r;
}

RP_LIBC_FUNC(int, puts, const char *s)
{
    OrigFn fn;
    int r;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(s, rp_preload_strlen(s) + 1, 0, 0);
    CALL_FN_W_W(r, fn, s);
    return r;
}

RP_LIBC_FUNC(int, fputs, const char *s, FILE *f)
{
    OrigFn fn;
    int r;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(s, rp_preload_strlen(s) + 1, 0, 0);
    CALL_FN_W_WW(r, fn, s, f);
    return r;
}
