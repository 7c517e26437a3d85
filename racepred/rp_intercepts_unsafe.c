/* rp_intercepts_unsafe.c — libc functions that are not thread-safe
 * because they keep state in libc's own static memory (POSIX lists them:
 * localtime, strtok, getenv next to setenv, readdir on one stream...).
 * Two threads calling them without ordering race inside libc, on memory
 * the program never names and racepred does not instrument; and a thread
 * reading the static result one of them returned races with the next
 * call.  Each wrapper calls libc's function and announces the state it
 * reads or writes, naming the program's call site (rp_libc.h):
 *
 *   localtime, gmtime      write the static struct tm they return;
 *   ctime, asctime         write the static string they return;
 *   getpwnam, getpwuid,    write the static struct passwd or group they
 *   getgrnam, getgrgid     return;
 *   inet_ntoa              writes the static string it returns;
 *   strtok                 writes its saved position (a byte of this
 *                          preload stands for libc's hidden pointer) and
 *                          the string it cuts;
 *   getenv                 reads `environ`; setenv, unsetenv, putenv and
 *                          clearenv write it (libc locks them against each
 *                          other, not against getenv);
 *   readdir                writes the entry it returns, in the stream's
 *                          buffer (two threads reading one stream).
 *
 * The _r variants, which take the caller's buffers, are thread-safe and
 * left alone. */
#include <arpa/inet.h>
#include <dirent.h>
#include <grp.h>
#include <pwd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rp_preload.h"

extern char **environ;

/* What libc's strtok keeps between calls, standing in for the pointer
 * itself (libc's is not exported). */
char rp_strtok_saved_position;

/* A call of one argument that reads [read, read + read_size) (nothing
 * for an argument passed by value) and returns a static result of `size`
 * bytes. */
#define STATIC_RESULT_FUNC(ret_ty, name, arg_ty, read, read_size, size)      \
    RP_LIBC_FUNC(ret_ty, name, arg_ty arg)                                   \
    {                                                                        \
        OrigFn fn;                                                           \
        ret_ty r;                                                            \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        CALL_FN_W_W(r, fn, arg);                                             \
        RP_ANNOUNCE_ACCESS(read, read_size, r, r != NULL ? (size) : 0);      \
        return r;                                                            \
    }

STATIC_RESULT_FUNC(struct tm *, localtime, const time_t *, arg, sizeof *arg, sizeof *r)
STATIC_RESULT_FUNC(struct tm *, gmtime, const time_t *, arg, sizeof *arg, sizeof *r)
STATIC_RESULT_FUNC(char *, ctime, const time_t *, arg, sizeof *arg, rp_preload_strlen(r) + 1)
STATIC_RESULT_FUNC(char *, asctime, const struct tm *, arg, sizeof *arg,
                   rp_preload_strlen(r) + 1)
STATIC_RESULT_FUNC(struct passwd *, getpwnam, const char *, arg, sizeof *arg, sizeof *r)
STATIC_RESULT_FUNC(struct group *, getgrnam, const char *, arg, sizeof *arg, sizeof *r)
STATIC_RESULT_FUNC(struct passwd *, getpwuid, uid_t, 0, 0, sizeof *r)
STATIC_RESULT_FUNC(struct group *, getgrgid, gid_t, 0, 0, sizeof *r)

/* struct in_addr is four bytes, passed in a register like an integer. */
RP_LIBC_FUNC(char *, inet_ntoa, struct in_addr in)
{
    OrigFn fn;
    char *r;
    uint32_t word = in.s_addr;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_W(r, fn, word);
    RP_ANNOUNCE_ACCESS(0, 0, r, r != NULL ? rp_preload_strlen(r) + 1 : 0);
    return r;
}

/* strtok cuts the string at the token's end (or, continuing, the string
 * it saved): the bytes from where it starts to the token's end. */
RP_LIBC_FUNC(char *, strtok, char *s, const char *delim)
{
    OrigFn fn;
    char *r;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(0, 0, &rp_strtok_saved_position, 1);
    CALL_FN_W_WW(r, fn, s, delim);
    if (r != NULL) {
        size_t n = rp_preload_strlen(r) + 1;

        RP_ANNOUNCE_ACCESS(s != NULL ? s : r, (size_t)(r - (s != NULL ? s : r)) + n, r, n);
    }
    return r;
}

RP_LIBC_FUNC(char *, getenv, const char *name)
{
    OrigFn fn;
    char *r;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(&environ, sizeof environ, 0, 0);
    CALL_FN_W_W(r, fn, name);
    return r;
}

RP_LIBC_FUNC(int, setenv, const char *name, const char *value, int overwrite)
{
    OrigFn fn;
    int r;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(0, 0, &environ, sizeof environ);
    CALL_FN_W_WWW(r, fn, name, value, overwrite);
    return r;
}

/* A call of one argument that writes environ. */
#define ENVIRON_WRITER_FUNC(name, arg_ty)                                    \
    RP_LIBC_FUNC(int, name, arg_ty arg)                                      \
    {                                                                        \
        OrigFn fn;                                                           \
        int r;                                                               \
                                                                             \
        VALGRIND_GET_ORIG_FN(fn);                                            \
        RP_ANNOUNCE_ACCESS(0, 0, &environ, sizeof environ);                  \
        CALL_FN_W_W(r, fn, arg);                                             \
        return r;                                                            \
    }

ENVIRON_WRITER_FUNC(unsetenv, const char *)
ENVIRON_WRITER_FUNC(putenv, char *)

RP_LIBC_FUNC(int, clearenv, void)
{
    OrigFn fn;
    int r;

    VALGRIND_GET_ORIG_FN(fn);
    RP_ANNOUNCE_ACCESS(0, 0, &environ, sizeof environ);
    CALL_FN_W_v(r, fn);
    return r;
}

RP_LIBC_FUNC(struct dirent *, readdir, DIR *dir)
{
    OrigFn fn;
    struct dirent *r;

    VALGRIND_GET_ORIG_FN(fn);
    CALL_FN_W_W(r, fn, dir);
    RP_ANNOUNCE_ACCESS(0, 0, r, r != NULL ? r->d_reclen : 0);
    return r;
}
