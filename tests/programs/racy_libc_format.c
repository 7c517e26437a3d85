/* Races through libc functions that write the program's memory with
 * code racepred does not instrument (rp_intercepts_format.c): a thread
 * formats into a buffer with snprintf while main reads it, sorts an array
 * with qsort while main reads an element, and reads a line with getline
 * into a buffer main reads.  The other thread goes first: main waits for
 * a byte on a pipe, run with --fd-sync=no so that the order is invisible
 * to the detectors.  Five races: the text (read by main, and parsed by
 * sscanf), the array, and getline's line: the pointer (libc may replace
 * the buffer) and the bytes. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char text[32];
static int numbers[8] = { 5, 3, 7, 1, 8, 2, 6, 4 };
static char *line;
static size_t line_room;
static int order[2];

static int by_value(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

static void *worker(void *arg)
{
    FILE *f = fopen("/proc/self/stat", "r");

    snprintf(text, sizeof text, "%d-%s", 42, "forty-two");
    qsort(numbers, 8, sizeof numbers[0], by_value);
    if (f != NULL) {
        if (getline(&line, &line_room, f) < 0)
            line[0] = '\0';
        fclose(f);
    }
    if (write(order[1], "x", 1) != 1)
        perror("write");
    return arg;
}

int main(void)
{
    pthread_t t;
    char byte;
    int number;

    if (pipe(order) != 0)
        return 1;
    line_room = 4096;
    line = malloc(line_room);
    pthread_create(&t, NULL, worker, NULL);
    if (read(order[0], &byte, 1) != 1)
        perror("read");
    printf("text %c\n", text[0]);
    printf("parsed %d\n", sscanf(text, "%d", &number) == 1 ? number : -1);
    printf("first %d\n", numbers[0]);
    printf("line %d\n", line[0] != '\0');
    pthread_join(t, NULL);
    free(line);
    return 0;
}
