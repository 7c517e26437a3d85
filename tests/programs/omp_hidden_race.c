/* hidden_race.c with an OpenMP lock: thread 0 writes `shared`, then takes
 * and releases `m`; thread 1, which the pipe makes run only afterwards,
 * takes and releases `m`, then writes `shared`.  The lock orders the two
 * writes in this schedule (--detector=hb reports nothing); in the schedule
 * where thread 1's critical section runs first they are adjacent, and the
 * default detectors report the race as predicted, with that witness.  As
 * the loads and stores of a synchronising object, libgomp's lock would
 * order the sections as a happens-before edge (rp_intercepts_omp.c). */
#include <omp.h>
#include <stdio.h>
#include <unistd.h>

int shared;
int first_owner, second_owner;
static omp_lock_t m;
static int order[2];

static void first_thread(void)
{
    shared = 1;
    omp_set_lock(&m);
    first_owner = 1;
    omp_unset_lock(&m);
    if (write(order[1], "x", 1) != 1)
        return;
}

static void second_thread(void)
{
    char c;

    if (read(order[0], &c, 1) != 1)
        return;
    omp_set_lock(&m);
    second_owner = 2;
    omp_unset_lock(&m);
    shared = 2;
}

int main(void)
{
    if (pipe(order) != 0)
        return 2;
    omp_init_lock(&m);
#pragma omp parallel num_threads(2)
    {
        if (omp_get_thread_num() == 0)
            first_thread();
        else
            second_thread();
    }
    omp_destroy_lock(&m);
    printf("shared=%d\n", shared);
    return 0;
}
