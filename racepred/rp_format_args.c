/* rp_format_args.c — the accesses of printf's and scanf's conversions
 * through their arguments (rp_format_args.h).  Runs in the program's
 * process, inside the preload: it calls no libc function, which the
 * preload may wrap. */
#include <limits.h>

#include "rp_format_args.h"

/* A conversion's length modifier; glibc's q is ll, Z is z, and L on an
 * integer conversion is ll. */
typedef enum rp_length {
    LEN_NONE,
    LEN_HH,
    LEN_H,
    LEN_L,
    LEN_LL,
    LEN_BIG_L,
    LEN_J,
    LEN_Z,
    LEN_T
} rp_length;

static const char *skip_digits(const char *p)
{
    while (*p >= '0' && *p <= '9')
        p++;
    return p;
}

/* The number at *p, at most INT_MAX; *p moved past its digits. */
static int read_number(const char **p)
{
    long n = 0;

    for (; **p >= '0' && **p <= '9'; (*p)++)
        if (n < INT_MAX)
            n = n * 10 + (**p - '0');
    return n < INT_MAX ? (int)n : INT_MAX;
}

/* Whether p starts a positional argument (digits and '$'), which the
 * walk does not follow: its arguments are not in order. */
static int is_positional(const char *p)
{
    const char *end = skip_digits(p);

    return end != p && *end == '$';
}

static rp_length read_length(const char **p)
{
    switch (*(*p)++) {
    case 'h':
        if (**p != 'h')
            return LEN_H;
        (*p)++;
        return LEN_HH;
    case 'l':
        if (**p != 'l')
            return LEN_L;
        (*p)++;
        return LEN_LL;
    case 'q':
        return LEN_LL;
    case 'L':
        return LEN_BIG_L;
    case 'j':
        return LEN_J;
    case 'z':
    case 'Z':
        return LEN_Z;
    case 't':
        return LEN_T;
    default:
        (*p)--;
        return LEN_NONE;
    }
}

/* The bytes of an integer of that length (%n, scanf's integers). */
static size_t integer_size(rp_length len)
{
    switch (len) {
    case LEN_HH:
        return sizeof(char);
    case LEN_H:
        return sizeof(short);
    case LEN_NONE:
        return sizeof(int);
    default:
        return sizeof(long long);
    }
}

/* The characters of a string a conversion reads or writes, its
 * terminator included when it is reached within `limit` (-1: none). */
static size_t narrow_length(const char *s, int limit)
{
    size_t n = 0;

    while ((limit < 0 || n < (size_t)limit) && s[n] != '\0')
        n++;
    return limit < 0 || n < (size_t)limit ? n + 1 : n;
}

/* A wide string's precision counts the bytes of its multibyte text, one per
 * ASCII character: libc surely reads up to the first other character, which
 * it converts to see whether it fits, and maybe not further. */
static size_t wide_length(const wchar_t *s, int limit)
{
    size_t n = 0;

    while ((limit < 0 || n < (size_t)limit) && s[n] != 0) {
        if (limit >= 0 && (s[n] < 0 || s[n] > 0x7f))
            return n + 1;
        n++;
    }
    return limit < 0 || n < (size_t)limit ? n + 1 : n;
}

static int found(rp_arg_access *a, const void *addr, size_t size, int is_write)
{
    a->addr = addr;
    a->size = size;
    a->is_write = is_write;
    return addr != NULL && size > 0;
}

/* The format after its next '%', NULL at its end. */
static const char *after_next_percent(const char *p)
{
    while (*p != '\0' && *p != '%')
        p++;
    return *p == '%' ? p + 1 : NULL;
}

/* ---- printf ------------------------------------------------------------ */

void rp_printf_walk_start(rp_format_walk *w, const char *fmt, va_list *args)
{
    w->next = fmt;
    w->args = args;
    w->assigned_left = 0;
    w->c99 = 0;
}

static int is_printf_flag(char c)
{
    return c == '-' || c == '+' || c == ' ' || c == '#' || c == '0' || c == '\'' || c == 'I';
}

/* A width or precision given as '*': an int argument; NULL if the walk
 * must end (a positional one), else the byte after it. */
static const char *star_argument(rp_format_walk *w, const char *p, int *value)
{
    if (is_positional(p))
        return NULL;
    *value = va_arg(*w->args, int);
    return p;
}

/* The argument of the printf conversion `conv`, and the access it makes
 * through it into *a (returns 0 when none); -1 for a conversion the walk
 * does not know. */
static int printf_argument(rp_format_walk *w, char conv, rp_length len, int precision,
                           rp_arg_access *a)
{
    va_list *args = w->args;

    switch (conv) {
    case '%':
    case 'm':
        return 0;
    case 'd': case 'i': case 'o': case 'u': case 'x': case 'X': case 'b': case 'B':
        if (integer_size(len) > sizeof(int))
            (void)va_arg(*args, long long);
        else
            (void)va_arg(*args, int);
        return 0;
    case 'c':
    case 'C':
        (void)va_arg(*args, int);
        return 0;
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
        if (len == LEN_BIG_L)
            (void)va_arg(*args, long double);
        else
            (void)va_arg(*args, double);
        return 0;
    case 'p':
        (void)va_arg(*args, void *);
        return 0;
    case 's':
    case 'S':
        if (conv == 'S' || len == LEN_L) {
            const wchar_t *s = va_arg(*args, const wchar_t *);

            return s != NULL && found(a, s, wide_length(s, precision) * sizeof *s, 0);
        } else {
            const char *s = va_arg(*args, const char *);

            return s != NULL && found(a, s, narrow_length(s, precision), 0);
        }
    case 'n':
        return found(a, va_arg(*args, void *), integer_size(len), 1);
    default:
        return -1;
    }
}

int rp_printf_walk_next(rp_format_walk *w, rp_arg_access *a)
{
    const char *p;

    while (w->next != NULL && (p = after_next_percent(w->next)) != NULL) {
        int precision = -1, width, accessed;
        rp_length len;
        char conv;

        if (is_positional(p))
            break;
        while (is_printf_flag(*p))
            p++;
        if (*p == '*' && (p = star_argument(w, p + 1, &width)) == NULL)
            break;
        p = skip_digits(p);
        if (*p == '.') {
            p++;
            if (*p == '*') {
                if ((p = star_argument(w, p + 1, &precision)) == NULL)
                    break;
                if (precision < 0)
                    precision = -1;
            } else {
                precision = read_number(&p);
            }
        }
        len = read_length(&p);
        conv = *p++;
        w->next = p;
        accessed = printf_argument(w, conv, len, precision, a);
        if (accessed < 0)
            break;
        if (accessed)
            return 1;
    }
    w->next = NULL;
    return 0;
}

/* ---- scanf ------------------------------------------------------------- */

void rp_scanf_walk_start(rp_format_walk *w, const char *fmt, va_list *args, int returned,
                         int c99)
{
    w->next = fmt;
    w->args = args;
    w->assigned_left = returned > 0 ? returned : 0;
    w->c99 = c99;
}

/* The byte after a scanset's closing ']' (p: after its '['), NULL if it
 * has none; a ']' first (after an optional '^') is one of its bytes. */
static const char *after_scanset(const char *p)
{
    if (*p == '^')
        p++;
    if (*p == ']')
        p++;
    while (*p != '\0' && *p != ']')
        p++;
    return *p == ']' ? p + 1 : NULL;
}

static int is_scanf_conversion(char conv)
{
    switch (conv) {
    case 's': case 'S': case '[': case 'c': case 'C': case 'p': case 'n':
    case 'd': case 'i': case 'o': case 'u': case 'x': case 'X':
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
        return 1;
    default:
        return 0;
    }
}

/* What an assigning conversion (is_scanf_conversion) stored at dest: the
 * text of %s and %[ up to its terminator, `width` characters of %c, the
 * number of the others. */
static size_t stored_size(char conv, rp_length len, int width, int allocates,
                          const void *dest)
{
    int wide = len == LEN_L || conv == 'S' || conv == 'C';

    if (allocates && (conv == 's' || conv == 'S' || conv == '[' || conv == 'c' || conv == 'C'))
        return sizeof(char *);
    switch (conv) {
    case 's': case 'S': case '[':
        return wide ? wide_length(dest, -1) * sizeof(wchar_t) : narrow_length(dest, -1);
    case 'c': case 'C':
        return (size_t)(width > 0 ? width : 1) * (wide ? sizeof(wchar_t) : 1);
    case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': case 'a': case 'A':
        return len == LEN_BIG_L ? sizeof(long double)
                                : len == LEN_L ? sizeof(double) : sizeof(float);
    case 'p':
        return sizeof(void *);
    default:
        return integer_size(len);
    }
}

/* Parses one scanf conversion at p (after its '%') into the fields; the
 * byte after it, NULL if the walk must end. */
static const char *read_scanf_conversion(const rp_format_walk *w, const char *p,
                                         int *suppressed, int *width, int *allocates,
                                         rp_length *len, char *conv)
{
    if (is_positional(p))
        return NULL;
    *suppressed = *p == '*';
    p += *suppressed;
    *width = read_number(&p);
    *allocates = *p == 'm'
                 || (!w->c99 && *p == 'a' && (p[1] == 's' || p[1] == 'S' || p[1] == '['));
    p += *allocates;
    *len = read_length(&p);
    *conv = *p++;
    return *conv == '[' ? after_scanset(p) : p;
}

int rp_scanf_walk_next(rp_format_walk *w, rp_arg_access *a)
{
    const char *p;

    while (w->next != NULL && (p = after_next_percent(w->next)) != NULL) {
        int suppressed, width, allocates;
        rp_length len;
        char conv;
        void *dest;
        size_t size;

        if (*p == '%') {
            w->next = p + 1;
            continue;
        }
        p = read_scanf_conversion(w, p, &suppressed, &width, &allocates, &len, &conv);
        if (p == NULL || !is_scanf_conversion(conv))
            break;
        w->next = p;
        if (suppressed)
            continue;
        /* A %n stored only if the call got past it: an assignment after it. */
        if (w->assigned_left == 0)
            break;
        dest = va_arg(*w->args, void *);
        if (conv != 'n')
            w->assigned_left--;
        if (dest == NULL)
            continue;
        size = stored_size(conv, len, width, allocates, dest);
        if (found(a, dest, size, 1))
            return 1;
    }
    w->next = NULL;
    return 0;
}
