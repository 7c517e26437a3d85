/* OpenMP, race-free: a thread publishes a flag with `omp atomic write`
 * after a flush and another polls it with `omp atomic read acquire`
 * (DataRaceBench's acquirerelease-no).  Plain moves on x86, so only the polling loop's
 * shape shows that the flag synchronises (rp_spin.h).  clang -O0 compiles
 * the poll to the check, the load into a temporary and a call of
 * __kmpc_flush, and after the call copies the temporary into the variable
 * the check tests (rp_waitcall.h). */
#include <omp.h>
#include <stdio.h>

int main(void)
{
    int x = 0, y = 0;

#pragma omp parallel num_threads(2) shared(x, y)
    {
        if (omp_get_thread_num() == 0) {
            x = 10;
#pragma omp flush
#pragma omp atomic write
            y = 1;
        } else {
            int tmp = 0;

            while (tmp == 0) {
#pragma omp atomic read acquire
                tmp = y;
            }
            if (x != 10)
                printf("x = %d\n", x);
        }
    }
    printf("ok\n");
    return 0;
}
