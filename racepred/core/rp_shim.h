/* rp_shim.h — the portable core's only link to its host.
 *
 * The core (everything under racepred/core/) includes no Valgrind header and
 * no libc header beyond the freestanding ones (<stdint.h>, <stddef.h>,
 * <stdbool.h>, <stdarg.h>).  Whatever it needs from the outside world goes
 * through the functions declared here.  Two implementations exist:
 *   - racepred/rp_shim_vg.c   inside the tool (VG_(malloc), tl_assert, ...)
 *   - racepred/core/rp_shim_libc.c   for racepred-analyze and the unit tests.
 * rp_malloc/rp_calloc/rp_realloc never return NULL: on exhaustion the host
 * stops the program with a message.
 */
#ifndef RP_SHIM_H
#define RP_SHIM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void *rp_malloc(const char *cost_centre, size_t n);
void *rp_calloc(const char *cost_centre, size_t count, size_t n);
void *rp_realloc(const char *cost_centre, void *p, size_t n);
void rp_free(void *p);

/* Zero-filled memory for a large table whose pages are touched sparsely
 * (shadow chunks): memory the host hands out for the first time is fresh,
 * so a page never written costs no resident memory; freed memory it may
 * keep for reuse.  bytes is a multiple of 4096 and the same at both
 * calls. */
void *rp_pages_alloc(const char *cost_centre, size_t bytes);
void rp_pages_free(void *p, size_t bytes);

void rp_memset(void *dst, int c, size_t n);
void rp_memcpy(void *dst, const void *src, size_t n);
int rp_memcmp(const void *a, const void *b, size_t n);
size_t rp_strlen(const char *s);
int rp_strcmp(const char *a, const char *b);

/* The core's bulk memory (shadow chunks, race-pair cell pools) grew or
 * shrank by `bytes`: the host may bound it (the tool's --max-memory). */
void rp_bulk_alloc(size_t bytes);
void rp_bulk_free(size_t bytes);

/* Temporary files (the offline detectors' spill, rp_spill.h): a new file
 * in the host's temporary directory, created exclusively, its name written
 * to path[0 .. cap); returns a descriptor, or -1 when none can be made.
 * rp_file_write writes everything or returns false. */
int rp_temp_file_create(char *path, size_t cap);
bool rp_file_write(int fd, const void *data, size_t len);
void rp_file_close(int fd);
void rp_file_remove(const char *path);
/* The host process (a forked child must not write to its parent's
 * files). */
int rp_process_id(void);

/* printf-style diagnostics to the host's error channel. */
void rp_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Stops the host: an internal invariant was violated. */
void rp_panic(const char *file, int line, const char *cond) __attribute__((noreturn));

#define rp_assert(cond) \
    ((cond) ? (void)0 : rp_panic(__FILE__, __LINE__, #cond))

#endif
