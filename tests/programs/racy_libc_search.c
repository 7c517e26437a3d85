/* Racy: a worker writes eight strings without a lock and writes a byte
 * into a pipe; main reads the byte (which orders nothing under run.sh's
 * --fd-sync=no) and then searches, compares and parses the strings with
 * libc's strstr, strcasecmp, strspn, strpbrk, memmem, strtol, atoi and
 * strtod.
 * Built with -fno-builtin so that the calls stay calls into libc, which
 * racepred does not instrument: the preload's wrappers announce the
 * bytes each function reads (up to the match, the difference, the end of
 * the span or of the number), and each read races with the worker's
 * writes.  Eight races, one per string, and three more where printf's %s
 * reads what strstr, strpbrk and memmem found (rp_format_args.h): a
 * report names the call site of the wrapped function, so each call is a
 * code location of its own. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

static char text[32], word[32], digits[32], list[32], block[32], number[32], count[32],
    real[32];
static int order[2];

static void fill(char *dst, const char *src)
{
    while ((*dst++ = *src++) != '\0')
        ;
}

static void *writer(void *arg)
{
    fill(text, "find the needle here");
    fill(word, "Racepred");
    fill(digits, "12345abc");
    fill(list, "alpha,beta");
    fill(block, "xxxyxx");
    fill(number, "  -4096 rest");
    fill(count, "77 items");
    fill(real, "2.5e3 left");
    if (write(order[1], "x", 1) != 1)
        perror("write");
    return arg;
}

int main(void)
{
    pthread_t t;
    char c, *end;

    if (pipe(order) != 0)
        return 1;
    pthread_create(&t, NULL, writer, NULL);
    if (read(order[0], &c, 1) != 1)
        return 1;
    printf("strstr: %s\n", strstr(text, "needle"));
    printf("strcasecmp: %d\n", strcasecmp(word, "RACEPRED") == 0);
    printf("strspn: %zu\n", strspn(digits, "0123456789"));
    printf("strpbrk: %s\n", strpbrk(list, ",;"));
    printf("memmem: %s\n", (char *)memmem(block, 6, "y", 1));
    printf("strtol: %ld\n", strtol(number, &end, 10));
    printf("atoi: %d\n", atoi(count));
    printf("strtod: %g\n", strtod(real, &end));
    pthread_join(t, NULL);
    return 0;
}
