/* rp_shim_libc.c — the shim (rp_shim.h) on top of the C library, for
 * racepred-analyze and the unit tests.  The Valgrind tool links its own
 * implementation instead (racepred/rp_shim_vg.c).
 */
#include "rp_shim.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void *check_allocation(const char *cost_centre, void *p, size_t n)
{
    if (p == NULL && n != 0) {
        fprintf(stderr, "racepred: out of memory (%s, %zu bytes)\n", cost_centre, n);
        exit(EXIT_FAILURE);
    }
    return p;
}

void *rp_malloc(const char *cost_centre, size_t n)
{
    return check_allocation(cost_centre, malloc(n == 0 ? 1 : n), n);
}

void *rp_calloc(const char *cost_centre, size_t count, size_t n)
{
    return check_allocation(cost_centre, calloc(count == 0 ? 1 : count, n == 0 ? 1 : n),
                            count * n);
}

void *rp_realloc(const char *cost_centre, void *p, size_t n)
{
    return check_allocation(cost_centre, realloc(p, n == 0 ? 1 : n), n);
}

void rp_free(void *p)
{
    free(p);
}

/* The C library's calloc maps large blocks fresh already. */
void *rp_pages_alloc(const char *cost_centre, size_t bytes)
{
    return rp_calloc(cost_centre, 1, bytes);
}

void rp_pages_free(void *p, size_t bytes)
{
    (void)bytes;
    free(p);
}

/* racepred-analyze and the tests hold the whole trace anyway: no bound. */
void rp_bulk_alloc(size_t bytes)
{
    (void)bytes;
}

void rp_bulk_free(size_t bytes)
{
    (void)bytes;
}

void rp_memset(void *dst, int c, size_t n)
{
    memset(dst, c, n);
}

void rp_memcpy(void *dst, const void *src, size_t n)
{
    if (n != 0)
        memcpy(dst, src, n);
}

int rp_memcmp(const void *a, const void *b, size_t n)
{
    return n == 0 ? 0 : memcmp(a, b, n);
}

size_t rp_strlen(const char *s)
{
    return strlen(s);
}

int rp_strcmp(const char *a, const char *b)
{
    return strcmp(a, b);
}

/* mkstemp's template ends in six 'X' that it replaces with a unique name. */
#define TEMPLATE_UNIQUE 6

int rp_temp_file_create(char *path, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    int len = snprintf(path, cap, "%s/racepred-spill-",
                       dir != NULL && dir[0] != '\0' ? dir : "/tmp");
    if (len < 0 || (size_t)len + TEMPLATE_UNIQUE >= cap)
        return -1;
    memset(path + len, 'X', TEMPLATE_UNIQUE);
    path[len + TEMPLATE_UNIQUE] = '\0';
    return mkstemp(path);
}

bool rp_file_write(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

void rp_file_close(int fd)
{
    close(fd);
}

void rp_file_remove(const char *path)
{
    unlink(path);
}

int rp_process_id(void)
{
    return (int)getpid();
}

void rp_message(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
}

void rp_panic(const char *file, int line, const char *cond)
{
    fprintf(stderr, "racepred: %s:%d: internal error: assertion '%s' failed\n", file, line, cond);
    abort();
}
