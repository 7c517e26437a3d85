/* OpenMP, racy: thread 0 writes `last` inside `omp critical(first)`,
 * thread 1 inside `omp critical(second)`, and thread 1 again inside
 * omp_set_lock(&lock_b) after thread 0's omp_set_lock(&lock_a): different
 * locks order nothing.  The report says which lock each write held
 * ("Locks held: 1, at address ..."): libgomp's locks are reported as
 * locks (rp_intercepts_omp.c), not as the loads and stores of a
 * synchronising object, which reports said held nothing. */
#include <omp.h>
#include <stdio.h>

int last;
int other;
static omp_lock_t lock_a, lock_b;

int main(void)
{
    omp_init_lock(&lock_a);
    omp_init_lock(&lock_b);
#pragma omp parallel num_threads(2)
    {
#pragma omp barrier
        if (omp_get_thread_num() == 0) {
#pragma omp critical(first)
            last = 1;
            omp_set_lock(&lock_a);
            other = 1;
            omp_unset_lock(&lock_a);
        } else {
#pragma omp critical(second)
            last = 2;
            omp_set_lock(&lock_b);
            other = 2;
            omp_unset_lock(&lock_b);
        }
    }
    omp_destroy_lock(&lock_a);
    omp_destroy_lock(&lock_b);
    printf("ok\n");
    return 0;
}
