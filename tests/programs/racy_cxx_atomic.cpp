// A flag published with a release std::atomic store and read once with an
// acquire load (synchronisation, as racepred knows from the atomic's
// source: --atomic-sources), and a plain variable the writer sets after
// the store, which the reader reads after its load: that one races.  Only
// it is reported, not the flag nor what the store published.  Built -O2.
//
// The pipe only makes the reader wait until the writer is done; racepred
// runs it with --fd-sync=no.
#include <atomic>
#include <cstdio>
#include <pthread.h>
#include <unistd.h>

static int before_store, after_store;
static std::atomic<int> ready{0};
static int order[2];

static void *writer(void *)
{
    before_store = 1;
    ready.store(1, std::memory_order_release);
    after_store = 2;
    if (write(order[1], "x", 1) != 1)
        return nullptr;
    return nullptr;
}

int main()
{
    pthread_t t;
    char c;
    int sum = 0;

    if (pipe(order) != 0 || pthread_create(&t, nullptr, writer, nullptr) != 0)
        return 1;
    if (read(order[0], &c, 1) != 1)
        return 1;
    if (ready.load(std::memory_order_acquire) != 0)
        sum = before_store + after_store;
    pthread_join(t, nullptr);
    printf("%d\n", sum);
    return 0;
}
