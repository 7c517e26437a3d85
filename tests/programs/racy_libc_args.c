/* Races through the arguments of printf and scanf calls, which libc reads
 * and writes with code racepred does not instrument
 * (rp_intercepts_format.c, rp_format_args.h): a worker formats a name
 * with snprintf, parses a line with sscanf into three variables, and reads
 * a counter; then main prints the name with printf's %s, the parsed word
 * with fprintf's %.3s (three bytes), reads the two parsed numbers, stores
 * the counter with printf's %n, and parses a number into a variable the
 * worker read with fscanf.  The worker goes first: main waits for a byte
 * on a pipe, run with --fd-sync=no so that the order is invisible to the
 * detectors.  Six races. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static char name[32];
static char word[16];
static int count;
static double ratio;
static int printed;
static int pid_field;
static int order[2];

static void *worker(void *arg)
{
    snprintf(name, sizeof name, "worker-%d", 7);
    if (sscanf("17 apples 0.5", "%d %15s %lf", &count, word, &ratio) != 3)
        count = -1;
    if (printed != 0 || pid_field != 0)
        count = -2;
    if (write(order[1], "x", 1) != 1)
        perror("write");
    return arg;
}

int main(void)
{
    pthread_t t;
    FILE *stat;
    char byte;

    if (pipe(order) != 0)
        return 1;
    pthread_create(&t, NULL, worker, NULL);
    if (read(order[0], &byte, 1) != 1)
        perror("read");
    printf("name %s\n", name);
    fprintf(stdout, "word %.3s\n", word);
    printf("numbers %d %.1f\n", count, ratio);
    printf("counted%n\n", &printed);
    stat = fopen("/proc/self/stat", "r");
    if (stat != NULL) {
        if (fscanf(stat, "%d", &pid_field) != 1)
            pid_field = -1;
        fclose(stat);
    }
    printf("parsed %d\n", pid_field > 0);
    pthread_join(t, NULL);
    return 0;
}
