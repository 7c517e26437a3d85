/* OpenMP, race-free: one parallel region fills an array, the next reads
 * it (ordered by the end of the first region and the start of the
 * second, inside libgomp); within a region, a barrier separates writing
 * one's own slot from reading the neighbours'; a reduction and a critical
 * section combine the results. */
#include <omp.h>
#include <stdio.h>

#define N 4000
#define THREADS 4

static double data[N];
static long slot[THREADS];

int main(void)
{
    double sum = 0;
    long neighbours = 0, critical_total = 0;

    omp_set_num_threads(THREADS);
#pragma omp parallel for
    for (int i = 0; i < N; i++)
        data[i] = i * 0.5;
#pragma omp parallel for reduction(+ : sum)
    for (int i = 0; i < N; i++)
        sum += data[N - 1 - i];
#pragma omp parallel reduction(+ : neighbours)
    {
        int me = omp_get_thread_num(), n = omp_get_num_threads();

        slot[me] = me + 1;
#pragma omp barrier
        neighbours += slot[(me + 1) % n];
#pragma omp critical
        critical_total += slot[me];
    }
    printf("sum=%.1f neighbours=%ld critical=%ld\n", sum, neighbours, critical_total);
    return 0;
}
