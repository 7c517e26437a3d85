/* bench/scaling.c — a synthetic pthread workload for the scaling curves.
 *
 * Each thread does OPS operations.  An operation is, with probability
 * PCT %, a read-modify-write of a random shared location under the mutex
 * that guards it (location i is guarded by lock i % LOCKS), else a
 * read-modify-write of a random word of the thread's own private array.
 * The choices come from a per-thread xorshift generator seeded by the
 * thread's index, so every run does the same work whatever the
 * interleaving; the final checksum (sums commute) is the same too, unless
 * -r makes the program racy.
 *
 * Race-free by default: every shared access is under its lock, so a race
 * detector should report nothing.  -r N skips the lock on the first and
 * then every Nth shared access of each thread: real races.
 *
 * Usage: scaling [-t threads] [-s shared] [-n ops] [-f pct] [-k locks]
 *                [-p private] [-r N]
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int nthreads = 4;
static long nshared = 1000;     /* shared locations, 8 bytes each */
static long nops = 100000;      /* operations per thread */
static int pct_shared = 20;     /* % of operations on shared data */
static int nlocks = 16;
static long nprivate = 1024;    /* private words per thread */
static long racy_every;         /* 0: race-free */

static volatile long *shared;   /* volatile: -O1 must keep every access */
static pthread_mutex_t *locks;

struct worker { int id; long sum; };

/* xorshift64: cheap, and deterministic per thread */
static uint64_t next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static void *work(void *arg)
{
    struct worker *w = arg;
    uint64_t rng = 0x9E3779B97F4A7C15ull * (uint64_t)(w->id + 1);
    /* allocated by the thread itself: never seen by another thread */
    volatile long *priv = calloc((size_t)nprivate, sizeof *priv);
    long nth_shared = 0, sum = 0;

    if (priv == NULL) {
        perror("calloc");
        exit(1);
    }
    for (long op = 0; op < nops; op++) {
        uint64_t r = next(&rng);
        if ((long)(r % 100) < pct_shared) {
            long i = (long)((r >> 8) % (uint64_t)nshared);
            pthread_mutex_t *m = &locks[i % nlocks];
            /* -r: a thread's first shared access comes before it has
               synchronised with anyone, so it races with what earlier threads
               did (a race every detector sees); every Nth one after that is
               ordered only by chance through other locks (predicted ones) */
            int racy = racy_every && nth_shared++ % racy_every == 0;
            if (!racy)
                pthread_mutex_lock(m);
            shared[i] += (long)(r >> 40);
            if (!racy)
                pthread_mutex_unlock(m);
        } else {
            long j = (long)((r >> 8) % (uint64_t)nprivate);
            priv[j] += (long)(r >> 40);
        }
    }
    for (long j = 0; j < nprivate; j++)
        sum += priv[j];
    free((void *)priv);
    w->sum = sum;
    return NULL;
}

static long arg_long(const char *s, long lo, long hi, char opt)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "scaling: -%c wants an integer in [%ld, %ld]\n", opt, lo, hi);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    int c;
    while ((c = getopt(argc, argv, "t:s:n:f:k:p:r:")) != -1) {
        switch (c) {
        case 't': nthreads = (int)arg_long(optarg, 1, 1024, 't'); break;
        case 's': nshared = arg_long(optarg, 1, 1L << 30, 's'); break;
        case 'n': nops = arg_long(optarg, 0, 1L << 40, 'n'); break;
        case 'f': pct_shared = (int)arg_long(optarg, 0, 100, 'f'); break;
        case 'k': nlocks = (int)arg_long(optarg, 1, 1 << 20, 'k'); break;
        case 'p': nprivate = arg_long(optarg, 1, 1L << 30, 'p'); break;
        case 'r': racy_every = arg_long(optarg, 0, 1L << 40, 'r'); break;
        default:
            fprintf(stderr, "usage: scaling [-t threads] [-s shared] [-n ops/thread] "
                    "[-f %%shared] [-k locks] [-p private words] [-r N (racy)]\n");
            return 2;
        }
    }

    shared = calloc((size_t)nshared, sizeof *shared);
    locks = calloc((size_t)nlocks, sizeof *locks);
    pthread_t *tids = calloc((size_t)nthreads, sizeof *tids);
    struct worker *ws = calloc((size_t)nthreads, sizeof *ws);
    if (!shared || !locks || !tids || !ws) {
        perror("calloc");
        return 1;
    }
    for (int k = 0; k < nlocks; k++)
        pthread_mutex_init(&locks[k], NULL);
    /* main touches every shared location before any thread starts, so the
       memory a tool spends on them is all there in every run */
    for (long i = 0; i < nshared; i++)
        shared[i] = i;

    for (int t = 0; t < nthreads; t++) {
        ws[t].id = t;
        if (pthread_create(&tids[t], NULL, work, &ws[t]) != 0) {
            fprintf(stderr, "scaling: pthread_create failed at thread %d\n", t);
            return 1;
        }
    }
    long sum = 0;
    for (int t = 0; t < nthreads; t++) {
        pthread_join(tids[t], NULL);
        sum += ws[t].sum;
    }
    for (long i = 0; i < nshared; i++)
        sum += shared[i];
    printf("threads %d shared %ld ops/thread %ld shared%% %d locks %d checksum %ld\n",
           nthreads, nshared, nops, pct_shared, nlocks, sum);
    return 0;
}
