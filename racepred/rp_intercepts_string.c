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
 * The substring searches (strstr, strcasestr, memmem) are the exception:
 * libc's algorithms are linear where a plain loop is not, so they call
 * libc's function and announce what it matched or scanned.
 *
 * memcpy is bound to every symbol version (memcpy@GLIBC_2.2.5 is memmove,
 * so it moves) and, through Valgrind's handling of indirect functions, to
 * the variant libc's resolver picked; libc's calls to itself arrive here
 * too and the tool drops them (their caller is libc).
 */
#include <ctype.h>
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

/* A byte as the string comparisons see it: itself, or (blind: strcasecmp
 * and strncasecmp) its lower case in the current locale, as libc does. */
static inline int compared_byte(char c, int blind)
{
    return blind ? tolower((unsigned char)c) : (unsigned char)c;
}

/* How many bytes of a and b the string comparisons read: up to the first
 * difference or terminator, at most max. */
static inline size_t compared_bytes(const char *a, const char *b, size_t max, int blind)
{
    size_t n = 0;

    while (n < max && compared_byte(a[n], blind) == compared_byte(b[n], blind) && a[n] != '\0')
        n++;
    return n < max ? n + 1 : max;
}

/* strcmp, strncmp, strcasecmp, strncasecmp (params: a, b and, for the
 * bounded ones, max): the difference of the first differing bytes (the
 * sign is libc's). */
#define STRING_COMPARE_FUNC(name, blind, max, params...)                     \
    RP_LIBC_FUNC(int, name, params)                                          \
    {                                                                        \
        size_t n = compared_bytes(a, b, max, blind);                         \
                                                                             \
        if (n == 0)                                                          \
            return 0;                                                        \
        RP_ANNOUNCE_ACCESS(a, n, 0, 0);                                      \
        RP_ANNOUNCE_ACCESS(b, n, 0, 0);                                      \
        return compared_byte(a[n - 1], blind) - compared_byte(b[n - 1], blind); \
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

STRING_COMPARE_FUNC(strcmp, 0, (size_t)-1, const char *a, const char *b)
STRING_COMPARE_FUNC(strncmp, 0, max, const char *a, const char *b, size_t max)
STRING_COMPARE_FUNC(strcasecmp, 1, (size_t)-1, const char *a, const char *b)
STRING_COMPARE_FUNC(strncasecmp, 1, max, const char *a, const char *b, size_t max)

/* The index of the first c or terminator in s: strchr and strchrnul read
 * up to it (the terminator matches c = 0). */
static size_t index_of_char(const char *s, int c)
{
    size_t n = 0;

    while (s[n] != (char)c && s[n] != '\0')
        n++;
    return n;
}

RP_LIBC_FUNC(char *, strchr, const char *s, int c)
{
    size_t n = index_of_char(s, c);

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

/* strchrnul: strchr that returns the terminator's address when c is not
 * there. */
RP_LIBC_FUNC(char *, strchrnul, const char *s, int c)
{
    size_t n = index_of_char(s, c);

    RP_ANNOUNCE_ACCESS(s, n + 1, 0, 0);
    return (char *)s + n;
}

/* rawmemchr: memchr without a bound (c is there). */
RP_LIBC_FUNC(void *, rawmemchr, const void *s, int c)
{
    const unsigned char *p = s;
    size_t n = 0;

    while (p[n] != (unsigned char)c)
        n++;
    RP_ANNOUNCE_ACCESS(s, n + 1, 0, 0);
    return (void *)(p + n);
}

/* memrchr reads from the end down to what it finds. */
RP_LIBC_FUNC(void *, memrchr, const void *s, int c, size_t n)
{
    const unsigned char *p = s;
    size_t i = n;

    while (i > 0 && p[i - 1] != (unsigned char)c)
        i--;
    if (i == 0) {
        RP_ANNOUNCE_ACCESS(s, n, 0, 0);
        return NULL;
    }
    RP_ANNOUNCE_ACCESS(p + i - 1, n - (i - 1), 0, 0);
    return (void *)(p + i - 1);
}

/* ---- spans ------------------------------------------------------------------ */

/* Marks the bytes of set in member[] (the terminator too, so that a span
 * stops there); returns the set's length. */
static size_t mark_set(unsigned char member[256], const char *set)
{
    size_t m = 0;

    fill(member, 0, 256);
    member[0] = 1;
    while (set[m] != '\0')
        member[(unsigned char)set[m++]] = 1;
    return m;
}

/* How many bytes of s are in the set (in = 1) or out of it (in = 0): the
 * span stops at the first byte that is not, or at the terminator; the
 * set's length in *set_len.  The caller announces (its caller is the
 * program's): s's span and the byte after it, and the whole set. */
static size_t span(const char *s, const char *set, int in, size_t *set_len)
{
    unsigned char member[256];
    size_t n = 0;

    *set_len = mark_set(member, set);
    if (in)
        member[0] = 0;
    while (member[(unsigned char)s[n]] == in)
        n++;
    return n;
}

#define SPAN_FUNC(ret_ty, name, in, result)                                  \
    RP_LIBC_FUNC(ret_ty, name, const char *s, const char *set)               \
    {                                                                        \
        size_t set_len, n = span(s, set, in, &set_len);                      \
                                                                             \
        RP_ANNOUNCE_ACCESS(s, n + 1, 0, 0);                                  \
        RP_ANNOUNCE_ACCESS(set, set_len + 1, 0, 0);                          \
        return result;                                                       \
    }

SPAN_FUNC(size_t, strspn, 1, n)
SPAN_FUNC(size_t, strcspn, 0, n)
SPAN_FUNC(char *, strpbrk, 0, s[n] != '\0' ? (char *)s + n : NULL)

/* ---- substring searches (libc's, see above) --------------------------------- */

/* The haystack bytes a search that found a match read: up to its end
 * (without one, the whole haystack). */
static size_t matched_bytes(const void *hay, const void *found, size_t needle_len)
{
    return (size_t)((const char *)found - (const char *)hay) + needle_len;
}

#define STRSTR_FUNC(name)                                                    \
    RP_LIBC_FUNC(char *, name, const char *hay, const char *needle)          \
    {                                                                        \
        OrigFn fn;                                                           \
        char *found;                                                         \
        size_t needle_len = rp_preload_strlen(needle);                       \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        CALL_FN_W_WW(found, fn, hay, needle);                                \
        RP_ANNOUNCE_ACCESS(needle, needle_len + 1, 0, 0);                    \
        RP_ANNOUNCE_ACCESS(hay, found != NULL                                \
                                ? matched_bytes(hay, found, needle_len)      \
                                : rp_preload_strlen(hay) + 1, 0, 0);         \
        return found;                                                        \
    }

STRSTR_FUNC(strstr)
STRSTR_FUNC(strcasestr)

RP_LIBC_FUNC(void *, memmem, const void *hay, size_t hay_len, const void *needle,
             size_t needle_len)
{
    OrigFn fn;
    void *found;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WWWW(found, fn, hay, hay_len, needle, needle_len);
    RP_ANNOUNCE_ACCESS(needle, needle_len, 0, 0);
    RP_ANNOUNCE_ACCESS(hay, found != NULL ? matched_bytes(hay, found, needle_len) : hay_len,
                       0, 0);
    return found;
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
