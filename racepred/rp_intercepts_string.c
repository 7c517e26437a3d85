/* rp_intercepts_string.c — libc's memory and string functions, wrapped so
 * that the tool sees the bytes they read and write (rp_libc.h).
 *
 * libc's own code is not instrumented; each wrapper works out which bytes
 * the function will touch (string lengths by its own loop: the preload is
 * never instrumented and calls no wrapped function), tells the tool with
 * one request naming the program's call site, and then runs the real
 * function, so results are exactly libc's.  memcpy is bound to every
 * symbol version (memcpy@GLIBC_2.2.5, memcpy@@GLIBC_2.14) and, through
 * Valgrind's handling of indirect functions, to the variant libc's
 * resolver picked (__memmove_avx_unaligned_erms, ...); libc's calls to
 * itself arrive here too and the tool drops them (their caller is libc).
 */
#include "rp_preload.h"

/* The length of s, at most max. */
static size_t length_within(const char *s, size_t max)
{
    size_t n = 0;

    while (n < max && s[n] != '\0')
        n++;
    return n;
}

/* The bytes of s up to and including its terminator, at most max. */
static size_t bytes_within(const char *s, size_t max)
{
    size_t n = length_within(s, max);

    return n < max ? n + 1 : max;
}

/* How many bytes of a and b strcmp/strncmp read: up to the first
 * difference or terminator, at most max. */
static size_t compared_bytes(const char *a, const char *b, size_t max)
{
    size_t n = 0;

    while (n < max && a[n] == b[n] && a[n] != '\0')
        n++;
    return n < max ? n + 1 : max;
}

#define COPY_FUNC(name)                                                      \
    RP_LIBC_FUNC(void *, name, void *dst, const void *src, size_t n)         \
    {                                                                        \
        OrigFn fn;                                                           \
        void *r;                                                             \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        RP_ANNOUNCE_ACCESS(src, n, dst, n);                                            \
        CALL_FN_W_WWW(r, fn, dst, src, n);                                   \
        return r;                                                            \
    }

#define COPY_CHK_FUNC(name)                                                  \
    RP_LIBC_FUNC(void *, name, void *dst, const void *src, size_t n, size_t room) \
    {                                                                        \
        OrigFn fn;                                                           \
        void *r;                                                             \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        RP_ANNOUNCE_ACCESS(src, n, dst, n);                                            \
        CALL_FN_W_WWWW(r, fn, dst, src, n, room);                            \
        return r;                                                            \
    }

COPY_FUNC(memcpyZa)
COPY_FUNC(memmove)
COPY_FUNC(mempcpy)
COPY_CHK_FUNC(ZuZumemcpyZuchk)
COPY_CHK_FUNC(ZuZumemmoveZuchk)
COPY_CHK_FUNC(ZuZumempcpyZuchk)

RP_LIBC_FUNC(void *, memset, void *dst, int c, size_t n)
{
    OrigFn fn;
    void *r;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(0, 0, dst, n);
    CALL_FN_W_WWW(r, fn, dst, c, n);
    return r;
}

RP_LIBC_FUNC(void *, ZuZumemsetZuchk, void *dst, int c, size_t n, size_t room)
{
    OrigFn fn;
    void *r;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(0, 0, dst, n);
    CALL_FN_W_WWWW(r, fn, dst, c, n, room);
    return r;
}

#define COMPARE_FUNC(name)                                                   \
    RP_LIBC_FUNC(int, name, const void *a, const void *b, size_t n)          \
    {                                                                        \
        OrigFn fn;                                                           \
        int r;                                                               \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        RP_ANNOUNCE_ACCESS(a, n, 0, 0);                                                \
        RP_ANNOUNCE_ACCESS(b, n, 0, 0);                                                \
        CALL_FN_W_WWW(r, fn, a, b, n);                                       \
        return r;                                                            \
    }

COMPARE_FUNC(memcmp)
COMPARE_FUNC(bcmp)

RP_LIBC_FUNC(size_t, strlen, const char *s)
{
    size_t n = rp_preload_strlen(s);

    RP_ANNOUNCE_ACCESS(s, n + 1, 0, 0);
    return n;
}

RP_LIBC_FUNC(size_t, strnlen, const char *s, size_t max)
{
    size_t n = length_within(s, max);

    RP_ANNOUNCE_ACCESS(s, n < max ? n + 1 : max, 0, 0);
    return n;
}

#define STRCPY_FUNC(name)                                                    \
    RP_LIBC_FUNC(char *, name, char *dst, const char *src)                   \
    {                                                                        \
        OrigFn fn;                                                           \
        char *r;                                                             \
        size_t n = rp_preload_strlen(src) + 1;                                       \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        RP_ANNOUNCE_ACCESS(src, n, dst, n);                                            \
        CALL_FN_W_WW(r, fn, dst, src);                                       \
        return r;                                                            \
    }

#define STRCPY_CHK_FUNC(name)                                                \
    RP_LIBC_FUNC(char *, name, char *dst, const char *src, size_t room)      \
    {                                                                        \
        OrigFn fn;                                                           \
        char *r;                                                             \
        size_t n = rp_preload_strlen(src) + 1;                                       \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        RP_ANNOUNCE_ACCESS(src, n, dst, n);                                            \
        CALL_FN_W_WWW(r, fn, dst, src, room);                                \
        return r;                                                            \
    }

STRCPY_FUNC(strcpy)
STRCPY_FUNC(stpcpy)
STRCPY_CHK_FUNC(ZuZustrcpyZuchk)
STRCPY_CHK_FUNC(ZuZustpcpyZuchk)

/* strncpy writes n bytes, padding with terminators. */
RP_LIBC_FUNC(char *, strncpy, char *dst, const char *src, size_t n)
{
    OrigFn fn;
    char *r;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(src, bytes_within(src, n), dst, n);
    CALL_FN_W_WWW(r, fn, dst, src, n);
    return r;
}

/* strcat reads dst's string and src's, and writes src's after dst's. */
RP_LIBC_FUNC(char *, strcat, char *dst, const char *src)
{
    OrigFn fn;
    char *r;
    size_t end = rp_preload_strlen(dst);
    size_t n = rp_preload_strlen(src) + 1;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(dst, end, 0, 0);
    RP_ANNOUNCE_ACCESS(src, n, dst + end, n);
    CALL_FN_W_WW(r, fn, dst, src);
    return r;
}

RP_LIBC_FUNC(char *, strncat, char *dst, const char *src, size_t max)
{
    OrigFn fn;
    char *r;
    size_t end = rp_preload_strlen(dst);
    size_t n = length_within(src, max);

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(dst, end, 0, 0);
    RP_ANNOUNCE_ACCESS(src, n < max ? n + 1 : max, dst + end, n + 1);
    CALL_FN_W_WWW(r, fn, dst, src, max);
    return r;
}

RP_LIBC_FUNC(int, strcmp, const char *a, const char *b)
{
    OrigFn fn;
    int r;
    size_t n = compared_bytes(a, b, (size_t)-1);

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(a, n, 0, 0);
    RP_ANNOUNCE_ACCESS(b, n, 0, 0);
    CALL_FN_W_WW(r, fn, a, b);
    return r;
}

RP_LIBC_FUNC(int, strncmp, const char *a, const char *b, size_t max)
{
    OrigFn fn;
    int r;
    size_t n = compared_bytes(a, b, max);

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(a, n, 0, 0);
    RP_ANNOUNCE_ACCESS(b, n, 0, 0);
    CALL_FN_W_WWW(r, fn, a, b, max);
    return r;
}

/* strchr reads up to what it found, or the whole string. */
RP_LIBC_FUNC(char *, strchr, const char *s, int c)
{
    OrigFn fn;
    char *r;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WW(r, fn, s, c);
    RP_ANNOUNCE_ACCESS(s, r != NULL ? (size_t)(r - s) + 1 : rp_preload_strlen(s) + 1, 0, 0);
    return r;
}

RP_LIBC_FUNC(char *, strrchr, const char *s, int c)
{
    OrigFn fn;
    char *r;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(s, rp_preload_strlen(s) + 1, 0, 0);
    CALL_FN_W_WW(r, fn, s, c);
    return r;
}

RP_LIBC_FUNC(void *, memchr, const void *s, int c, size_t n)
{
    OrigFn fn;
    void *r;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WWW(r, fn, s, c, n);
    RP_ANNOUNCE_ACCESS(s, r != NULL ? (size_t)((const char *)r - (const char *)s) + 1 : n, 0, 0);
    return r;
}
