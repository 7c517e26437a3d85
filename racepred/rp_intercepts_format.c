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
 * The printf and scanf families also announce what their conversions do
 * through the arguments: the strings %s reads, the stores of %n and of
 * every scanf conversion (rp_format_args.h walks the format). */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/types.h>

#include "rp_format_args.h"
#include "rp_preload.h"

/* Announces what fmt's conversions read and stored through the call's
 * arguments (rp_format_args.h), walking `args`, a copy of them the call
 * did not consume. */
#define ANNOUNCE_WALK(walk, next)                                            \
    do {                                                                     \
        rp_arg_access access_;                                               \
                                                                             \
        while (next(&(walk), &access_))                                      \
            RP_ANNOUNCE_ACCESS(access_.is_write ? NULL : access_.addr,       \
                               access_.is_write ? 0 : access_.size,          \
                               access_.is_write ? access_.addr : NULL,       \
                               access_.is_write ? access_.size : 0);         \
    } while (0)

#define ANNOUNCE_PRINTF_ARGS(fmt, args)                                      \
    do {                                                                     \
        rp_format_walk walk_;                                                \
                                                                             \
        rp_printf_walk_start(&walk_, (fmt), &(args));                        \
        ANNOUNCE_WALK(walk_, rp_printf_walk_next);                           \
    } while (0)

#define ANNOUNCE_SCANF_STORES(fmt, args, returned, c99)                      \
    do {                                                                     \
        rp_format_walk walk_;                                                \
                                                                             \
        rp_scanf_walk_start(&walk_, (fmt), &(args), (returned), (c99));      \
        ANNOUNCE_WALK(walk_, rp_scanf_walk_next);                            \
    } while (0)

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

/* A v-function of the printf or scanf families: libc's `call`, between
 * what the wrapper announces before it (`before`: the input string, or
 * nothing) and after it (`after`, which walks `copy`, the arguments the
 * call consumed). */
#define V_FORMAT_FUNC(name, before, call, after, params...)                  \
    RP_LIBC_FUNC(int, name, params)                                          \
    {                                                                        \
        OrigFn fn;                                                           \
        va_list copy;                                                        \
        int r;                                                               \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        before;                                                              \
        va_copy(copy, ap);                                                   \
        call;                                                                \
        after;                                                               \
        va_end(copy);                                                        \
        return r;                                                            \
    }

/* A variadic one: libc's v-function `vfunc` does the work, called like
 * the original function (`call` names it `fn`), so that its own wrapper
 * does not run as well. */
#define FORMAT_FUNC(name, vfunc, before, call, after, params...)             \
    RP_LIBC_FUNC(int, name, params, ...)                                     \
    {                                                                        \
        OrigFn fn;                                                           \
        va_list ap, copy;                                                    \
        int r;                                                               \
                                                                             \
        fn.nraddr = (unsigned long)&(vfunc);                                 \
        before;                                                              \
        va_start(ap, fmt);                                                   \
        va_copy(copy, ap);                                                   \
        call;                                                                \
        va_end(ap);                                                          \
        after;                                                               \
        va_end(copy);                                                        \
        return r;                                                            \
    }

/* After a printf: the bytes it wrote at `out` (a buffer, asprintf's
 * pointer, or none) and what its conversions read and stored. */
#define PRINTED(out, out_bytes)                                              \
    do {                                                                     \
        if ((out_bytes) != 0)                                                \
            RP_ANNOUNCE_ACCESS(0, 0, out, out_bytes);                        \
        ANNOUNCE_PRINTF_ARGS(fmt, copy);                                     \
    } while (0)

#define VPRINTF_FUNC(name, call, out, out_bytes, params...)                  \
    V_FORMAT_FUNC(name, (void)0, call, PRINTED(out, out_bytes), params)
#define PRINTF_FUNC(name, vfunc, call, out, out_bytes, params...)           \
    FORMAT_FUNC(name, vfunc, (void)0, call, PRINTED(out, out_bytes), params)

/* The _FORTIFY_SOURCE variants: libc checks them (and aborts on an
 * overflow as natively); the bytes touched are the same. */
int __vsnprintf_chk(char *buf, size_t room, int flag, size_t buf_room, const char *fmt,
                    va_list ap);
int __vsprintf_chk(char *buf, int flag, size_t buf_room, const char *fmt, va_list ap);
int __vprintf_chk(int flag, const char *fmt, va_list ap);
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
int __vdprintf_chk(int fd, int flag, const char *fmt, va_list ap);
int __vasprintf_chk(char **text, int flag, const char *fmt, va_list ap);

/* asprintf stores the pointer to its new text (which no one else holds). */
#define TEXT_POINTER_BYTES(r) ((r) >= 0 ? sizeof(char *) : 0)

VPRINTF_FUNC(vprintf, CALL_FN_W_WW(r, fn, fmt, ap), 0, 0, const char *fmt, va_list ap)
VPRINTF_FUNC(vfprintf, CALL_FN_W_WWW(r, fn, f, fmt, ap), 0, 0,
             FILE *f, const char *fmt, va_list ap)
VPRINTF_FUNC(vdprintf, CALL_FN_W_WWW(r, fn, fd, fmt, ap), 0, 0,
             int fd, const char *fmt, va_list ap)
VPRINTF_FUNC(vasprintf, CALL_FN_W_WWW(r, fn, text, fmt, ap), text, TEXT_POINTER_BYTES(r),
             char **text, const char *fmt, va_list ap)
VPRINTF_FUNC(vsprintf, CALL_FN_W_WWW(r, fn, buf, fmt, ap), buf,
             formatted_bytes(r, (size_t)-1), char *buf, const char *fmt, va_list ap)
VPRINTF_FUNC(vsnprintf, CALL_FN_W_WWWW(r, fn, buf, room, fmt, ap), buf,
             formatted_bytes(r, room), char *buf, size_t room, const char *fmt, va_list ap)
VPRINTF_FUNC(ZuZuvprintfZuchk, CALL_FN_W_WWW(r, fn, flag, fmt, ap), 0, 0,
             int flag, const char *fmt, va_list ap)
VPRINTF_FUNC(ZuZuvfprintfZuchk, CALL_FN_W_WWWW(r, fn, f, flag, fmt, ap), 0, 0,
             FILE *f, int flag, const char *fmt, va_list ap)
VPRINTF_FUNC(ZuZuvdprintfZuchk, CALL_FN_W_WWWW(r, fn, fd, flag, fmt, ap), 0, 0,
             int fd, int flag, const char *fmt, va_list ap)
VPRINTF_FUNC(ZuZuvasprintfZuchk, CALL_FN_W_WWWW(r, fn, text, flag, fmt, ap), text,
             TEXT_POINTER_BYTES(r), char **text, int flag, const char *fmt, va_list ap)
VPRINTF_FUNC(ZuZuvsprintfZuchk, CALL_FN_W_5W(r, fn, buf, flag, buf_room, fmt, ap), buf,
             formatted_bytes(r, (size_t)-1),
             char *buf, int flag, size_t buf_room, const char *fmt, va_list ap)
VPRINTF_FUNC(ZuZuvsnprintfZuchk, CALL_FN_W_6W(r, fn, buf, room, flag, buf_room, fmt, ap),
             buf, formatted_bytes(r, room),
             char *buf, size_t room, int flag, size_t buf_room, const char *fmt, va_list ap)

PRINTF_FUNC(printf, vprintf, CALL_FN_W_WW(r, fn, fmt, ap), 0, 0, const char *fmt)
PRINTF_FUNC(fprintf, vfprintf, CALL_FN_W_WWW(r, fn, f, fmt, ap), 0, 0,
            FILE *f, const char *fmt)
PRINTF_FUNC(dprintf, vdprintf, CALL_FN_W_WWW(r, fn, fd, fmt, ap), 0, 0,
            int fd, const char *fmt)
PRINTF_FUNC(asprintf, vasprintf, CALL_FN_W_WWW(r, fn, text, fmt, ap), text,
            TEXT_POINTER_BYTES(r), char **text, const char *fmt)
PRINTF_FUNC(sprintf, vsprintf, CALL_FN_W_WWW(r, fn, buf, fmt, ap), buf,
            formatted_bytes(r, (size_t)-1), char *buf, const char *fmt)
PRINTF_FUNC(snprintf, vsnprintf, CALL_FN_W_WWWW(r, fn, buf, room, fmt, ap), buf,
            formatted_bytes(r, room), char *buf, size_t room, const char *fmt)
PRINTF_FUNC(ZuZuprintfZuchk, __vprintf_chk, CALL_FN_W_WWW(r, fn, flag, fmt, ap), 0, 0,
            int flag, const char *fmt)
PRINTF_FUNC(ZuZufprintfZuchk, __vfprintf_chk, CALL_FN_W_WWWW(r, fn, f, flag, fmt, ap), 0, 0,
            FILE *f, int flag, const char *fmt)
PRINTF_FUNC(ZuZudprintfZuchk, __vdprintf_chk, CALL_FN_W_WWWW(r, fn, fd, flag, fmt, ap), 0, 0,
            int fd, int flag, const char *fmt)
PRINTF_FUNC(ZuZuasprintfZuchk, __vasprintf_chk, CALL_FN_W_WWWW(r, fn, text, flag, fmt, ap),
            text, TEXT_POINTER_BYTES(r), char **text, int flag, const char *fmt)
PRINTF_FUNC(ZuZusprintfZuchk, __vsprintf_chk,
            CALL_FN_W_5W(r, fn, buf, flag, buf_room, fmt, ap), buf,
            formatted_bytes(r, (size_t)-1), char *buf, int flag, size_t buf_room,
            const char *fmt)
PRINTF_FUNC(ZuZusnprintfZuchk, __vsnprintf_chk,
            CALL_FN_W_6W(r, fn, buf, room, flag, buf_room, fmt, ap), buf,
            formatted_bytes(r, room), char *buf, size_t room, int flag, size_t buf_room,
            const char *fmt)

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

/* scanf and its family: libc's function parses, then what it stored
 * through the pointers (ANNOUNCE_SCANF_STORES); sscanf's also read their
 * input string (`input`: that announcement, or nothing).  Programs built
 * as C99 or later call the __isoc99_ names (`c99`: their %a is a float
 * conversion); the others keep GNU's %as, so the variadic ones call the
 * GNU v-functions by their own names. */
#define VSCANF_FUNC(name, c99, input, call, params...)                       \
    V_FORMAT_FUNC(name, input, call, ANNOUNCE_SCANF_STORES(fmt, copy, r, c99), params)
#define SCANF_FUNC(name, c99, input, vfunc, call, params...)                 \
    FORMAT_FUNC(name, vfunc, input, call, ANNOUNCE_SCANF_STORES(fmt, copy, r, c99), params)

#define READS_INPUT RP_ANNOUNCE_ACCESS(s, rp_preload_strlen(s) + 1, 0, 0)

int __isoc99_vsscanf(const char *s, const char *fmt, va_list ap);
int __isoc99_vscanf(const char *fmt, va_list ap);
int __isoc99_vfscanf(FILE *f, const char *fmt, va_list ap);
int rp_gnu_vsscanf(const char *s, const char *fmt, va_list ap) __asm__("vsscanf");
int rp_gnu_vscanf(const char *fmt, va_list ap) __asm__("vscanf");
int rp_gnu_vfscanf(FILE *f, const char *fmt, va_list ap) __asm__("vfscanf");

VSCANF_FUNC(vsscanf, 0, READS_INPUT, CALL_FN_W_WWW(r, fn, s, fmt, ap),
            const char *s, const char *fmt, va_list ap)
VSCANF_FUNC(ZuZuisoc99Zuvsscanf, 1, READS_INPUT, CALL_FN_W_WWW(r, fn, s, fmt, ap),
            const char *s, const char *fmt, va_list ap)
VSCANF_FUNC(vscanf, 0, (void)0, CALL_FN_W_WW(r, fn, fmt, ap), const char *fmt, va_list ap)
VSCANF_FUNC(ZuZuisoc99Zuvscanf, 1, (void)0, CALL_FN_W_WW(r, fn, fmt, ap),
            const char *fmt, va_list ap)
VSCANF_FUNC(vfscanf, 0, (void)0, CALL_FN_W_WWW(r, fn, f, fmt, ap),
            FILE *f, const char *fmt, va_list ap)
VSCANF_FUNC(ZuZuisoc99Zuvfscanf, 1, (void)0, CALL_FN_W_WWW(r, fn, f, fmt, ap),
            FILE *f, const char *fmt, va_list ap)

SCANF_FUNC(sscanf, 0, READS_INPUT, rp_gnu_vsscanf, CALL_FN_W_WWW(r, fn, s, fmt, ap),
           const char *s, const char *fmt)
SCANF_FUNC(ZuZuisoc99Zusscanf, 1, READS_INPUT, __isoc99_vsscanf,
           CALL_FN_W_WWW(r, fn, s, fmt, ap), const char *s, const char *fmt)
SCANF_FUNC(scanf, 0, (void)0, rp_gnu_vscanf, CALL_FN_W_WW(r, fn, fmt, ap), const char *fmt)
SCANF_FUNC(ZuZuisoc99Zuscanf, 1, (void)0, __isoc99_vscanf, CALL_FN_W_WW(r, fn, fmt, ap),
           const char *fmt)
SCANF_FUNC(fscanf, 0, (void)0, rp_gnu_vfscanf, CALL_FN_W_WWW(r, fn, f, fmt, ap),
           FILE *f, const char *fmt)
SCANF_FUNC(ZuZuisoc99Zufscanf, 1, (void)0, __isoc99_vfscanf,
           CALL_FN_W_WWW(r, fn, f, fmt, ap), FILE *f, const char *fmt)

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
 * definitions).  They call the parsers glibc's strtol, strtoll and strtod
 * call themselves, which are not wrapped: through the strtol wrapper the
 * call would pay a second wrapper and an announcement the tool drops. */
long __strtol_internal(const char *s, char **end, int base, int group);
long long __strtoll_internal(const char *s, char **end, int base, int group);

#define ATO_FUNC(ret_ty, name, parse)                                        \
    RP_LIBC_FUNC(ret_ty, name, const char *s)                                \
    {                                                                        \
        char *end;                                                           \
        ret_ty r = (ret_ty)parse;                                            \
                                                                             \
        RP_ANNOUNCE_ACCESS(s, parsed_bytes(s, end), 0, 0);                   \
        return r;                                                            \
    }

ATO_FUNC(int, atoi, __strtol_internal(s, &end, 10, 0))
ATO_FUNC(long, atol, __strtol_internal(s, &end, 10, 0))
ATO_FUNC(long long, atoll, __strtoll_internal(s, &end, 10, 0))
ATO_FUNC(double, atof, __strtod_internal(s, &end, 0))
