/* OpenMP's locks, race-free: counters under the unnamed and a named
 * critical, omp_set_lock, an omp_test_lock loop, a nestable lock taken
 * twice, and an `omp atomic` on a long double, which libgomp does under
 * its atomic lock (GOMP_atomic_start).  Must be silent under every
 * detector (rp_intercepts_omp.c reports these as locks). */
#include <omp.h>
#include <stdio.h>

#define ROUNDS 200

int main(void)
{
    long unnamed = 0, named = 0, locked = 0, tested = 0, nested = 0;
    long double total = 0;
    omp_lock_t lock;
    omp_nest_lock_t nest;

    omp_init_lock(&lock);
    omp_init_nest_lock(&nest);
#pragma omp parallel num_threads(2)
    for (int i = 0; i < ROUNDS; i++) {
#pragma omp critical
        unnamed++;
#pragma omp critical(counter)
        named += i;
        omp_set_lock(&lock);
        locked++;
        omp_unset_lock(&lock);
        while (!omp_test_lock(&lock))
            ;
        tested++;
        omp_unset_lock(&lock);
        omp_set_nest_lock(&nest);
        if (omp_test_nest_lock(&nest) == 2)
            nested++;
        omp_unset_nest_lock(&nest);
        omp_unset_nest_lock(&nest);
#pragma omp atomic
        total += 0.5L;
    }
    omp_destroy_nest_lock(&nest);
    omp_destroy_lock(&lock);
    printf("%ld %ld %ld %ld %ld %.1Lf\n", unnamed, named, locked, tested, nested, total);
    return 0;
}
