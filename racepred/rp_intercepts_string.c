/* rp_intercepts_string.c — libc's memory and string functions, done here
 * so that the tool sees the bytes they read and write (rp_libc.h).
 *
 * libc's own code is not instrumented.  Each function here announces the
 * bytes it will touch, naming the program's call site (RP_ANNOUNCE_ACCESS),
 * and then does the work itself, with plain loops: calling libc's version
 * from a wrapper goes through Valgrind's no-redirect dispatch, about half
 * a microsecond a call, which is what made GNU sort twice as slow; the
 * loops run as uninstrumented translated code (the preload is never
 * instrumented), about as fast as libc's code does under Valgrind.  Only
 * a _FORTIFY_SOURCE check that fails calls libc's function, which reports
 * the overflow and aborts as natively.  The results are libc's, except
 * that memcmp, strcmp and strncmp return the difference of the first
 * differing bytes where libc may return any number of the same sign.
 *
 * memcpy is bound to every symbol version (memcpy@GLIBC_2.2.5 is memmove,
 * so it moves) and, through Valgrind's handling of indirect functions, to
 * the variant libc's resolver picked; libc's calls to itself arrive here
 * too and the tool drops them (their caller is libc).
 */
#include <stdint.h>
#include <stdlib.h>

#include "rp_preload.h"

/* A word read or written at any alignment (x86 allows it). */
typedef uint64_t __attribute__((may_alias, aligned(1))) loose_word;

#define WORD sizeof(uint64_t)

static void copy_up(unsigned char *d, const unsigned char *s, size_t n)
{
    for (; n >= WORD; n -= WORD, d += WORD, s += WORD)
        *(loose_word *)d = *(const loose_word *)s;
    while (n-- > 0)
        *d++ = *s++;
}

static void copy_down(unsigned char *d, const unsigned char *s, size_t n)
{
    d += n;
    s += n;
    for (; n >= WORD; n -= WORD) {
        d -= WORD;
        s -= WORD;
        *(loose_word *)d = *(const loose_word *)s;
    }
    while (n-- > 0)
        *--d = *--s;
}

/* memmove's order: downwards only when dst overlaps src from above. */
static void move(void *dst, const void *src, size_t n)
{
    if ((uintptr_t)dst - (uintptr_t)src >= n)
        copy_up(dst, src, n);
    else
        copy_down(dst, src, n);
}

static void fill(unsigned char *d, int c, size_t n)
{
    uint64_t word = (uint64_t)(unsigned char)c * 0x0101010101010101ULL;

    for (; n >= WORD; n -= WORD, d += WORD)
        *(loose_word *)d = word;
    while (n-- > 0)
        *d++ = (unsigned char)c;
}

static int compare(const unsigned char *a, const unsigned char *b, size_t n)
{
    size_t i = 0;

    while (i + WORD <= n && *(const loose_word *)(a + i) == *(const loose_word *)(b + i))
        i += WORD;
    for (; i < n; i++)
        if (a[i] != b[i])
            return (int)a[i] - (int)b[i];
    return 0;
}

/* The length of s, at most max. */
static size_t length_within(const char *s, size_t max)
{
    size_t n = 0;

    while (n < max && s[n] != '\0')
        n++;
    return n;
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

/* ---- copies ---------------------------------------------------------- */

RP_LIBC_FUNC(void *, memcpyZa, void *dst, const void *src, size_t n)
{
    RP_ANNOUNCE_ACCESS(src, n, dst, n);
    move(dst, src, n);
    return dst;
}

RP_LIBC_FUNC(void *, memmove, void *dst, const void *src, size_t n)
{
    RP_ANNOUNCE_ACCESS(src, n, dst, n);
    move(dst, src, n);
    return dst;
}

RP_LIBC_FUNC(void *, mempcpy, void *dst, const void *src, size_t n)
{
    RP_ANNOUNCE_ACCESS(src, n, dst, n);
    move(dst, src, n);
    return (char *)dst + n;
}

RP_LIBC_FUNC(void *, memset, void *dst, int c, size_t n)
{
    RP_ANNOUNCE_ACCESS(0, 0, dst, n);
    fill(dst, c, n);
    return dst;
}

/* The _FORTIFY_SOURCE variants: a destination too small goes to libc,
 * which reports the overflow and aborts. */
#define CHECKED_COPY_FUNC(name, result)                                      \
    RP_LIBC_FUNC(void *, name, void *dst, const void *src, size_t n, size_t room) \
    {                                                                        \
        OrigFn fn;                                                           \
        void *r;                                                             \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        if (n > room) {                                                      \
            CALL_FN_W_WWWW(r, fn, dst, src, n, room);                        \
            return r;                                                        \
        }                                                                    \
        RP_ANNOUNCE_ACCESS(src, n, dst, n);                                  \
        move(dst, src, n);                                                   \
        return (result);                                                     \
    }

CHECKED_COPY_FUNC(ZuZumemcpyZuchk, dst)
CHECKED_COPY_FUNC(ZuZumemmoveZuchk, dst)
CHECKED_COPY_FUNC(ZuZumempcpyZuchk, (char *)dst + n)

RP_LIBC_FUNC(void *, ZuZumemsetZuchk, void *dst, int c, size_t n, size_t room)
{
    OrigFn fn;
    void *r;

    VALGRIND_GET_ORIG_FN(fn);
    if (n > room) {
        CALL_FN_W_WWWW(r, fn, dst, c, n, room);
        return r;
    }
    RP_ANNOUNCE_ACCESS(0, 0, dst, n);
    fill(dst, c, n);
    return dst;
}

/* ---- comparisons and searches ---------------------------------------- */

#define COMPARE_FUNC(name)                                                   \
    RP_LIBC_FUNC(int, name, const void *a, const void *b, size_t n)          \
    {                                                                        \
        RP_ANNOUNCE_ACCESS(a, n, 0, 0);                                      \
        RP_ANNOUNCE_ACCESS(b, n, 0, 0);                                      \
        return compare(a, b, n);                                             \
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

RP_LIBC_FUNC(int, strcmp, const char *a, const char *b)
{
    size_t n = compared_bytes(a, b, (size_t)-1);

    RP_ANNOUNCE_ACCESS(a, n, 0, 0);
    RP_ANNOUNCE_ACCESS(b, n, 0, 0);
    return (int)(unsigned char)a[n - 1] - (int)(unsigned char)b[n - 1];
}

RP_LIBC_FUNC(int, strncmp, const char *a, const char *b, size_t max)
{
    size_t n = compared_bytes(a, b, max);

    if (n == 0)
        return 0;
    RP_ANNOUNCE_ACCESS(a, n, 0, 0);
    RP_ANNOUNCE_ACCESS(b, n, 0, 0);
    return (int)(unsigned char)a[n - 1] - (int)(unsigned char)b[n - 1];
}

/* strchr reads up to what it finds (the terminator matches c = 0). */
RP_LIBC_FUNC(char *, strchr, const char *s, int c)
{
    size_t n = 0;

    while (s[n] != (char)c && s[n] != '\0')
        n++;
    RP_ANNOUNCE_ACCESS(s, n + 1, 0, 0);
    return s[n] == (char)c ? (char *)s + n : NULL;
}

RP_LIBC_FUNC(char *, strrchr, const char *s, int c)
{
    const char *last = NULL;
    size_t n = 0;

    for (;; n++) {
        if (s[n] == (char)c)
            last = s + n;
        if (s[n] == '\0')
            break;
    }
    RP_ANNOUNCE_ACCESS(s, n + 1, 0, 0);
    return (char *)last;
}

RP_LIBC_FUNC(void *, memchr, const void *s, int c, size_t n)
{
    const unsigned char *p = s;
    size_t i = 0;

    while (i < n && p[i] != (unsigned char)c)
        i++;
    RP_ANNOUNCE_ACCESS(s, i < n ? i + 1 : n, 0, 0);
    return i < n ? (void *)(p + i) : NULL;
}

/* ---- string copies ------------------------------------------------------ */

RP_LIBC_FUNC(char *, strcpy, char *dst, const char *src)
{
    size_t n = rp_preload_strlen(src) + 1;

    RP_ANNOUNCE_ACCESS(src, n, dst, n);
    move(dst, src, n);
    return dst;
}

RP_LIBC_FUNC(char *, stpcpy, char *dst, const char *src)
{
    size_t n = rp_preload_strlen(src) + 1;

    RP_ANNOUNCE_ACCESS(src, n, dst, n);
    move(dst, src, n);
    return dst + n - 1;
}

#define CHECKED_STRCPY_FUNC(name, result)                                    \
    RP_LIBC_FUNC(char *, name, char *dst, const char *src, size_t room)      \
    {                                                                        \
        OrigFn fn;                                                           \
        char *r;                                                             \
        size_t n = rp_preload_strlen(src) + 1;                               \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        if (n > room) {                                                      \
            CALL_FN_W_WWW(r, fn, dst, src, room);                            \
            return r;                                                        \
        }                                                                    \
        RP_ANNOUNCE_ACCESS(src, n, dst, n);                                  \
        move(dst, src, n);                                                   \
        return (result);                                                     \
    }

CHECKED_STRCPY_FUNC(ZuZustrcpyZuchk, dst)
CHECKED_STRCPY_FUNC(ZuZustpcpyZuchk, dst + n - 1)

/* strncpy writes n bytes, padding with terminators. */
RP_LIBC_FUNC(char *, strncpy, char *dst, const char *src, size_t n)
{
    size_t len = length_within(src, n);

    RP_ANNOUNCE_ACCESS(src, len < n ? len + 1 : n, dst, n);
    move(dst, src, len);
    fill((unsigned char *)dst + len, 0, n - len);
    return dst;
}

/* strcat reads dst's string and src's, and writes src's after dst's. */
RP_LIBC_FUNC(char *, strcat, char *dst, const char *src)
{
    size_t end = rp_preload_strlen(dst);
    size_t n = rp_preload_strlen(src) + 1;

    RP_ANNOUNCE_ACCESS(dst, end, 0, 0);
    RP_ANNOUNCE_ACCESS(src, n, dst + end, n);
    move(dst + end, src, n);
    return dst;
}

RP_LIBC_FUNC(char *, strncat, char *dst, const char *src, size_t max)
{
    size_t end = rp_preload_strlen(dst);
    size_t n = length_within(src, max);

    RP_ANNOUNCE_ACCESS(dst, end, 0, 0);
    RP_ANNOUNCE_ACCESS(src, n < max ? n + 1 : max, dst + end, n + 1);
    move(dst + end, src, n);
    dst[end + n] = '\0';
    return dst;
}

/* ---- duplicates ------------------------------------------------------------ */

/* strdup and strndup read the string and copy it into a block malloc
 * (wrapped like any call) allocates: a fresh block, whose bytes nobody
 * else has seen. */
static char *duplicate(const char *s, size_t len)
{
    char *d = malloc(len + 1);

    if (d != NULL) {
        move(d, s, len);
        d[len] = '\0';
    }
    return d;
}

RP_LIBC_FUNC(char *, strdup, const char *s)
{
    size_t len = rp_preload_strlen(s);

    RP_ANNOUNCE_ACCESS(s, len + 1, 0, 0);
    return duplicate(s, len);
}

RP_LIBC_FUNC(char *, strndup, const char *s, size_t max)
{
    size_t len = length_within(s, max);

    RP_ANNOUNCE_ACCESS(s, len < max ? len + 1 : max, 0, 0);
    return duplicate(s, len);
}
