/* rp_intercepts_format.c — libc functions that write the program's
 * buffers with code racepred does not instrument, beyond the memory and
 * string functions (rp_intercepts_string.c) and stdio's transfers
 * (rp_intercepts_stdio.c): formatting into a buffer (sprintf and its
 * family), sorting an array (qsort), reading a line into a buffer libc
 * grows (getline, getdelim); and parsing a buffer (sscanf reads it,
 * strtol, strtod and their families read a number's text).  Each
 * calls libc's function and announces the bytes it read or wrote, naming
 * the program's call site
 * (rp_libc.h).  These calls cost microseconds natively; the half
 * microsecond of calling libc's function from a wrapper does not matter.
 *
 * The variadic ones call libc's v-variant, which is wrapped too: its
 * announcement names the preload as its caller and the tool drops it.
 * What a format reads (a %s argument) and what sscanf stores through its
 * pointers are not announced. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "rp_preload.h"

/* The bytes a formatting call wrote into a buffer of `room` bytes (-1:
 * unbounded) when it returned r: the text and its terminator, cut to the
 * room; none when it failed or had no room. */
static size_t formatted_bytes(int r, size_t room)
{
    size_t wanted;

    if (r < 0 || room == 0)
        return 0;
    wanted = (size_t)r + 1;
    return wanted < room ? wanted : room;
}

RP_LIBC_FUNC(int, vsnprintf, char *buf, size_t room, const char *fmt, va_list ap)
{
    OrigFn fn;
    int r;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WWWW(r, fn, buf, room, fmt, ap);
    RP_ANNOUNCE_ACCESS(0, 0, buf, formatted_bytes(r, room));
    return r;
}

RP_LIBC_FUNC(int, vsprintf, char *buf, const char *fmt, va_list ap)
{
    OrigFn fn;
    int r;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_WWW(r, fn, buf, fmt, ap);
    RP_ANNOUNCE_ACCESS(0, 0, buf, formatted_bytes(r, (size_t)-1));
    return r;
}

RP_LIBC_FUNC(int, snprintf, char *buf, size_t room, const char *fmt, ...)
{
    va_list ap;
    int r;

    va_start(ap, fmt);
    r = vsnprintf(buf, room, fmt, ap);
    va_end(ap);
    RP_ANNOUNCE_ACCESS(0, 0, buf, formatted_bytes(r, room));
    return r;
}

RP_LIBC_FUNC(int, sprintf, char *buf, const char *fmt, ...)
{
    va_list ap;
    int r;

    va_start(ap, fmt);
    r = vsprintf(buf, fmt, ap);
    va_end(ap);
    RP_ANNOUNCE_ACCESS(0, 0, buf, formatted_bytes(r, (size_t)-1));
    return r;
}

/* The _FORTIFY_SOURCE variants: libc's checks them (and aborts on an
 * overflow as natively); the bytes written are the same. */
RP_LIBC_FUNC(int, ZuZuvsnprintfZuchk, char *buf, size_t room, int flag, size_t buf_room,
             const char *fmt, va_list ap)
{
    OrigFn fn;
    int r;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_6W(r, fn, buf, room, flag, buf_room, fmt, ap);
    RP_ANNOUNCE_ACCESS(0, 0, buf, formatted_bytes(r, room));
    return r;
}

RP_LIBC_FUNC(int, ZuZuvsprintfZuchk, char *buf, int flag, size_t buf_room, const char *fmt,
             va_list ap)
{
    OrigFn fn;
    int r;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_5W(r, fn, buf, flag, buf_room, fmt, ap);
    RP_ANNOUNCE_ACCESS(0, 0, buf, formatted_bytes(r, (size_t)-1));
    return r;
}

int __vsnprintf_chk(char *buf, size_t room, int flag, size_t buf_room, const char *fmt,
                    va_list ap);
int __vsprintf_chk(char *buf, int flag, size_t buf_room, const char *fmt, va_list ap);

RP_LIBC_FUNC(int, ZuZusnprintfZuchk, char *buf, size_t room, int flag, size_t buf_room,
             const char *fmt, ...)
{
    va_list ap;
    int r;

    va_start(ap, fmt);
    r = __vsnprintf_chk(buf, room, flag, buf_room, fmt, ap);
    va_end(ap);
    RP_ANNOUNCE_ACCESS(0, 0, buf, formatted_bytes(r, room));
    return r;
}

RP_LIBC_FUNC(int, ZuZusprintfZuchk, char *buf, int flag, size_t buf_room, const char *fmt, ...)
{
    va_list ap;
    int r;

    va_start(ap, fmt);
    r = __vsprintf_chk(buf, flag, buf_room, fmt, ap);
    va_end(ap);
    RP_ANNOUNCE_ACCESS(0, 0, buf, formatted_bytes(r, (size_t)-1));
    return r;
}

/* ---- sorting ------------------------------------------------------------- */

/* The whole array is read and written; the comparisons are the program's
 * own code, instrumented as anywhere. */
static size_t array_bytes(size_t n, size_t size)
{
    size_t bytes;

    return __builtin_mul_overflow(n, size, &bytes) ? 0 : bytes;
}

typedef int (*rp_compare_fn)(const void *, const void *);
typedef int (*rp_compare_r_fn)(const void *, const void *, void *);

RP_LIBC_FUNC(void, qsort, void *base, size_t n, size_t size, rp_compare_fn cmp)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(base, array_bytes(n, size), base, array_bytes(n, size));
    CALL_FN_v_WWWW(fn, base, n, size, cmp);
}

RP_LIBC_FUNC(void, qsort_r, void *base, size_t n, size_t size, rp_compare_r_fn cmp, void *arg)
{
    OrigFn fn;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(base, array_bytes(n, size), base, array_bytes(n, size));
    CALL_FN_v_5W(fn, base, n, size, cmp, arg);
}

/* ---- lines ------------------------------------------------------------------ */

/* getdelim reads *line and *room, may replace both (a larger buffer),
 * and writes the line and its terminator into *line. */
RP_LIBC_FUNC(ssize_t, getdelim, char **line, size_t *room, int delim, FILE *f)
{
    OrigFn fn;
    ssize_t r;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(line, sizeof *line, line, sizeof *line);
    RP_ANNOUNCE_ACCESS(room, sizeof *room, room, sizeof *room);
    CALL_FN_W_WWWW(r, fn, line, room, delim, f);
    if (r >= 0)
        RP_ANNOUNCE_ACCESS(0, 0, *line, (size_t)r + 1);
    return r;
}

RP_LIBC_FUNC(ssize_t, getline, char **line, size_t *room, FILE *f)
{
    OrigFn fn;
    ssize_t r;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(line, sizeof *line, line, sizeof *line);
    RP_ANNOUNCE_ACCESS(room, sizeof *room, room, sizeof *room);
    CALL_FN_W_WWW(r, fn, line, room, f);
    if (r >= 0)
        RP_ANNOUNCE_ACCESS(0, 0, *line, (size_t)r + 1);
    return r;
}

/* ---- parsing ------------------------------------------------------------------ */

/* sscanf reads its input string; C99 programs call the __isoc99_ names. */
#define VSSCANF_FUNC(name)                                                   \
    RP_LIBC_FUNC(int, name, const char *s, const char *fmt, va_list ap)      \
    {                                                                        \
        OrigFn fn;                                                           \
        int r;                                                               \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        RP_ANNOUNCE_ACCESS(s, rp_preload_strlen(s) + 1, 0, 0);               \
        CALL_FN_W_WWW(r, fn, s, fmt, ap);                                    \
        return r;                                                            \
    }

#define SSCANF_FUNC(name, vname)                                             \
    RP_LIBC_FUNC(int, name, const char *s, const char *fmt, ...)             \
    {                                                                        \
        va_list ap;                                                          \
        int r;                                                               \
                                                                             \
        RP_ANNOUNCE_ACCESS(s, rp_preload_strlen(s) + 1, 0, 0);               \
        va_start(ap, fmt);                                                   \
        r = vname(s, fmt, ap);                                               \
        va_end(ap);                                                          \
        return r;                                                            \
    }

int __isoc99_vsscanf(const char *s, const char *fmt, va_list ap);

VSSCANF_FUNC(vsscanf)
VSSCANF_FUNC(ZuZuisoc99Zuvsscanf)
SSCANF_FUNC(sscanf, vsscanf)
SSCANF_FUNC(ZuZuisoc99Zusscanf, __isoc99_vsscanf)

/* The bytes strtol and its family read of s when the number's text ended
 * at `end`: the text and the byte that stopped it; with no number
 * (end == s), the blanks and the sign skipped and the byte after them. */
static size_t parsed_bytes(const char *s, const char *end)
{
    if (end == s) {
        while (isspace((unsigned char)*end))
            end++;
        if (*end == '+' || *end == '-')
            end++;
    }
    return (size_t)(end - s) + 1;
}

/* After a parse that ended at `end`: stores it where the program asked
 * (the wrapper passes libc its own end pointer) and announces the bytes
 * read and that store. */
#define ANNOUNCE_PARSED(s, end, endptr)                                      \
    do {                                                                     \
        if ((endptr) != NULL)                                                \
            *(endptr) = (end);                                               \
        RP_ANNOUNCE_ACCESS(s, parsed_bytes(s, end), endptr,                  \
                           (endptr) != NULL ? sizeof *(endptr) : 0);         \
    } while (0)

/* libc's function parses (its errno, its overflow rules). */
#define STRTO_FUNC(ret_ty, name)                                             \
    RP_LIBC_FUNC(ret_ty, name, const char *s, char **endptr, int base)       \
    {                                                                        \
        OrigFn fn;                                                           \
        char *end;                                                           \
        ret_ty r;                                                            \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        CALL_FN_W_WWW(r, fn, s, &end, base);                                 \
        ANNOUNCE_PARSED(s, end, endptr);                                     \
        return r;                                                            \
    }

STRTO_FUNC(long, strtol)
STRTO_FUNC(unsigned long, strtoul)
STRTO_FUNC(long long, strtoll)
STRTO_FUNC(unsigned long long, strtoull)

/* strtod and its family return in a floating-point register, which
 * CALL_FN cannot carry: they call the functions glibc's strtod calls
 * itself (no thousands grouping), which are not wrapped. */
double __strtod_internal(const char *s, char **end, int group);
float __strtof_internal(const char *s, char **end, int group);
long double __strtold_internal(const char *s, char **end, int group);

#define STRTOD_FUNC(ret_ty, name, internal)                                  \
    RP_LIBC_FUNC(ret_ty, name, const char *s, char **endptr)                 \
    {                                                                        \
        char *end;                                                           \
        ret_ty r = internal(s, &end, 0);                                     \
                                                                             \
        ANNOUNCE_PARSED(s, end, endptr);                                     \
        return r;                                                            \
    }

STRTOD_FUNC(double, strtod, __strtod_internal)
STRTOD_FUNC(float, strtof, __strtof_internal)
STRTOD_FUNC(long double, strtold, __strtold_internal)

/* atoi and the like are strtol's in base 10, atof strtod (glibc's
 * definitions); the strtol they call here is the wrapper above, whose
 * announcement names the preload and is dropped. */
#define ATO_FUNC(ret_ty, name, parse)                                        \
    RP_LIBC_FUNC(ret_ty, name, const char *s)                                \
    {                                                                        \
        char *end;                                                           \
        ret_ty r = (ret_ty)parse;                                            \
                                                                             \
        RP_ANNOUNCE_ACCESS(s, parsed_bytes(s, end), 0, 0);                   \
        return r;                                                            \
    }

ATO_FUNC(int, atoi, strtol(s, &end, 10))
ATO_FUNC(long, atol, strtol(s, &end, 10))
ATO_FUNC(long long, atoll, strtoll(s, &end, 10))
ATO_FUNC(double, atof, __strtod_internal(s, &end, 0))
