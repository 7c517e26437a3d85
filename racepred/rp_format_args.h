/* rp_format_args.h — what a printf or scanf call does to the memory its
 * arguments point at, read from its format and its arguments: the
 * strings a printf format's %s conversions read, the integers its %n
 * conversions store, and everything a scanf call stores through its
 * pointers.  The preload's wrappers (rp_intercepts_format.c) announce
 * these accesses, which libc makes with code racepred does not see.
 *
 * Portable C, no Valgrind header: tests/unit/test_format_args.c checks it
 * against calls of the real functions.
 *
 * A walk reads the arguments from a va_list the caller copied before the
 * call consumed its own (va_copy) and ends it itself (va_end).  It
 * follows glibc's format syntax; a positional argument (%2$s), a
 * conversion it does not know (register_printf_function's) or a format
 * it cannot parse ends the walk: what comes after is not announced, which
 * can hide a race but never make one up. */
#ifndef RP_FORMAT_ARGS_H
#define RP_FORMAT_ARGS_H

#include <stdarg.h>
#include <stddef.h>

/* One access through an argument: `size` bytes at `addr`. */
typedef struct rp_arg_access {
    const void *addr;
    size_t size;
    int is_write;
} rp_arg_access;

typedef struct rp_format_walk {
    const char *next;  /* the format's next byte; NULL once the walk ended */
    va_list *args;
    int assigned_left; /* scanf: conversions the call assigned, not yet walked */
    int c99;           /* scanf: %a is a conversion, never the GNU allocation flag */
} rp_format_walk;

/* A walk of a printf format over `args`. */
void rp_printf_walk_start(rp_format_walk *w, const char *fmt, va_list *args);

/* A walk of a scanf format after the call returned `returned` (its count
 * of assignments, or EOF); `c99`: the call was an __isoc99_ one. */
void rp_scanf_walk_start(rp_format_walk *w, const char *fmt, va_list *args, int returned,
                         int c99);

/* The walk's next access into *a (0: none left). */
int rp_printf_walk_next(rp_format_walk *w, rp_arg_access *a);
int rp_scanf_walk_next(rp_format_walk *w, rp_arg_access *a);

#endif
