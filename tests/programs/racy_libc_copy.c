/* Racy: the root thread fills a shared buffer with memset and strcpy while
 * a worker, after a pause, copies it with memcpy and measures it with
 * strlen: the copy's read races with the root thread's writes.  Built with
 * -fno-builtin so that the calls stay calls into libc, which racepred does
 * not instrument: the preload's wrappers announce their bytes.  The
 * worker's own buffer, read by main after the join, is race-free, and so
 * are libc's internal copies (printf from both threads). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static char shared[64];
static char copy[64];

static void *copier(void *arg)
{
    (void)arg;
    usleep(100000);
    memcpy(copy, shared, sizeof shared);
    printf("worker copied %zu bytes\n", strlen(copy));
    return NULL;
}

int main(void)
{
    pthread_t t;

    pthread_create(&t, NULL, copier, NULL);
    memset(shared, 0, sizeof shared);
    strcpy(shared, "a racy string");
    pthread_join(t, NULL);
    printf("main sees '%s'\n", copy);
    return 0;
}
