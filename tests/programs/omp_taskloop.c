/* OpenMP, race-free: taskloops whose tasks write their own elements, over
 * long and unsigned long long iterations (GOMP_taskloop and
 * GOMP_taskloop_ull), one that may not defer (if(0): its tasks run on the
 * block itself), one with a reduction (passed on unwrapped) and one with a
 * firstprivate array (a larger argument block).  The tasks overlap where
 * they may (rp_intercepts_omp.c yields at their start); their bounds must
 * come out right, which the sums check.  gcc calls GOMP_taskloop_ull for
 * an unsigned long long loop whose bound it does not know (n). */
#include <omp.h>
#include <stdio.h>

#define N 1000

long a[N], b[N], c[N];

int main(int argc, char **argv)
{
    unsigned long long n = N + 1 - (unsigned long long)argc;
    long sum = 0, weights[16];
    int i;

    (void)argv;
    for (i = 0; i < 16; i++)
        weights[i] = i + 1;
#pragma omp parallel num_threads(2)
#pragma omp single
    {
#pragma omp taskloop grainsize(100)
        for (long k = 0; k < N; k++)
            a[k] = 2 * k;
#pragma omp taskloop num_tasks(3)
        for (unsigned long long k = 5; k < n; k += 3)
            b[k] = (long)k + 1;
#pragma omp taskloop if(0) num_tasks(4)
        for (long k = N - 1; k >= 0; k--)
            c[k] = k % 7;
#pragma omp taskloop reduction(+ : sum) num_tasks(2)
        for (long k = 0; k < N; k++)
            sum += a[k];
#pragma omp taskloop firstprivate(weights) num_tasks(2)
        for (long k = 0; k < N; k++)
            c[k] += weights[k % 16];
    }
    long sa = 0, sb = 0, sc = 0;
    for (i = 0; i < N; i++) {
        sa += a[i];
        sb += b[i];
        sc += c[i];
    }
    printf("%ld %ld %ld %ld\n", sa, sb, sc, sum);
    return 0;
}
