/* Racy: the root thread fills an array of structures field by field (four
 * instructions per 8-byte element, so every element's granule remembers
 * the same four accesses: under --detector=hb the granules share one cell
 * set), while a second thread, after a pause, reads one field of one
 * element without synchronisation.  The report must name the write of
 * that field, not of a neighbour, whether granules share cells or not. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#define ELEMENTS 256

struct point {
    short x, y, z, w;
};

static struct point points[ELEMENTS];

static void *reader(void *arg)
{
    (void)arg;
    usleep(200000);
    return (void *)(long)points[100].z;
}

int main(void)
{
    pthread_t t;
    void *z;

    pthread_create(&t, NULL, reader, NULL);
    for (int i = 0; i < ELEMENTS; i++) {
        points[i].x = (short)i;
        points[i].y = (short)(i + 1);
        points[i].z = (short)(i + 2);
        points[i].w = (short)(i + 3);
    }
    pthread_join(t, &z);
    printf("done\n");
    return 0;
}
