// Blocks from operator new, new[] and the aligned new are fresh memory and
// deleted ones are withdrawn: each round a worker fills an object and
// deletes it; the next round's object (often at the same address) is
// filled by another thread that was never ordered after the first.
// Race-free.
#include <pthread.h>
#include <unistd.h>
#include <cstdio>
#include <new>

struct alignas(64) Wide {
    int v[16];
};

struct Job {
    int kind;
    void *p;
};

static void *fill_and_delete(void *arg)
{
    Job *job = static_cast<Job *>(arg);

    if (job->kind == 0) {
        int *one = static_cast<int *>(job->p);
        *one = 1;
        delete one;
    } else if (job->kind == 1) {
        int *many = static_cast<int *>(job->p);
        for (int i = 0; i < 16; i++)
            many[i] = i;
        delete[] many;
    } else {
        Wide *w = static_cast<Wide *>(job->p);
        for (int i = 0; i < 16; i++)
            w->v[i] = i;
        delete w;
    }
    return nullptr;
}

int main()
{
    static Job jobs[3][4];

    for (int kind = 0; kind < 3; kind++) {
        for (int round = 0; round < 4; round++) {
            Job *job = &jobs[kind][round];
            pthread_t t;

            job->kind = kind;
            if (kind == 0)
                job->p = new int(0);
            else if (kind == 1)
                job->p = new int[16];
            else
                job->p = new Wide;
            pthread_create(&t, nullptr, fill_and_delete, job);
            pthread_detach(t);
            usleep(2000);
        }
    }
    std::printf("done\n");
    return 0;
}
