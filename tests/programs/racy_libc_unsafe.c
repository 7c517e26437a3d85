/* libc functions that are not thread-safe, called by two threads without
 * ordering (rp_intercepts_unsafe.c): localtime's static struct tm, read
 * by main while the other thread's call rewrites it; strtok's saved
 * position, used by both threads; getenv in main against setenv in the
 * other thread; and getpwuid's static struct passwd, read by main while
 * the other thread's call rewrites it.  The other thread goes first (main waits for a byte
 * on a pipe, run with --fd-sync=no so that the order is invisible to the
 * detectors).  Four races. */
#include <pthread.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct tm *when;
static const struct passwd *user;
static int order[2];

static void *worker(void *arg)
{
    time_t later = 86400;
    char words[] = "one two";

    localtime(&later);
    strtok(words, " ");
    setenv("RACEPRED_TEST", "1", 1);
    getpwuid(0);
    if (write(order[1], "x", 1) != 1)
        perror("write");
    return arg;
}

int main(void)
{
    pthread_t t;
    time_t now = 0;
    char byte, line[] = "a,b";

    if (pipe(order) != 0)
        return 1;
    when = localtime(&now);
    user = getpwuid(0);
    pthread_create(&t, NULL, worker, NULL);
    if (read(order[0], &byte, 1) != 1)
        perror("read");
    printf("year %d\n", when->tm_year > 0);
    printf("token %s\n", strtok(line, ","));
    printf("set %d\n", getenv("RACEPRED_TEST") != NULL);
    printf("root %d\n", user != NULL && user->pw_uid == 0);
    pthread_join(t, NULL);
    return 0;
}
