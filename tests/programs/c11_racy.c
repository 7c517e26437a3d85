/* Two C11 threads update `total`: the second under a mutex, the first
 * without, so the second one's read and write race with the first one's
 * write (a lock taken by one side only orders nothing).
 *
 * The pipe only fixes which thread runs first, so the report is the same
 * on every run; it is not synchronisation for racepred. */
#include <stdio.h>
#include <threads.h>
#include <unistd.h>

static mtx_t lock;
static int order[2];
long total;

static int unlocked_adder(void *arg)
{
    total += 1;
    write(order[1], "x", 1);
    return arg == NULL ? 0 : 1;
}

static int locked_adder(void *arg)
{
    char c;

    read(order[0], &c, 1);
    mtx_lock(&lock);
    total += 2;
    mtx_unlock(&lock);
    return arg == NULL ? 0 : 1;
}

int main(void)
{
    thrd_t t1, t2;

    if (pipe(order) != 0)
        return 2;
    mtx_init(&lock, mtx_plain);
    thrd_create(&t1, unlocked_adder, NULL);
    thrd_create(&t2, locked_adder, NULL);
    thrd_join(t1, NULL);
    thrd_join(t2, NULL);
    printf("total=%ld\n", total);
    mtx_destroy(&lock);
    return 0;
}
