// The C++ standard library's synchronisation, each handing data written
// before it to another thread: std::promise/std::future, std::async,
// std::latch, std::counting_semaphore, std::shared_mutex,
// std::condition_variable, std::call_once, std::jthread's stop token
// (polled with std::this_thread::yield), std::atomic<T>::wait with the
// value stored before the wait and after it, and std::barrier over three
// phases.  Race-free; built -O2, as users build, so that libstdc++'s
// inline code is compiled into the program (atomic waits poll with a
// bounded spin of pauses, then sched_yield, then a futex wait:
// rp_waitcall.h).
#include <condition_variable>
#include <barrier>
#include <chrono>
#include <cstdio>
#include <future>
#include <latch>
#include <mutex>
#include <semaphore>
#include <shared_mutex>
#include <stop_token>
#include <thread>

static int data[12];

static int promise_future()
{
    std::promise<int> promise;
    std::future<int> result = promise.get_future();
    std::thread t([&] { data[0] = 1; promise.set_value(2); });
    int sum = result.get() + data[0];
    t.join();
    return sum;
}

static int async_result()
{
    std::future<int> result = std::async(std::launch::async, [] { data[1] = 3; return 4; });
    return result.get() + data[1];
}

static int latch_count_down()
{
    std::latch done(1);
    std::thread t([&] { data[2] = 5; done.count_down(); });
    done.wait();
    int sum = data[2];
    t.join();
    return sum;
}

static int semaphore_release()
{
    std::counting_semaphore<4> ready(0);
    std::thread t([&] { data[3] = 6; ready.release(); });
    ready.acquire();
    int sum = data[3];
    t.join();
    return sum;
}

// What the reader sees depends on the schedule; only the last value is
// printed.
static int shared_mutex_readers()
{
    std::shared_mutex guard;
    std::thread writer([&] { std::unique_lock lock(guard); data[4] += 7; });
    {
        std::shared_lock lock(guard);
        volatile int seen = data[4];
        (void)seen;
    }
    writer.join();
    std::shared_lock lock(guard);
    return data[4];
}

static int condition_variable_handoff()
{
    std::mutex m;
    std::condition_variable changed;
    bool ready = false;
    std::thread t([&] {
        data[5] = 8;
        std::lock_guard lock(m);
        ready = true;
        changed.notify_one();
    });
    {
        std::unique_lock lock(m);
        changed.wait(lock, [&] { return ready; });
    }
    int sum = data[5];
    t.join();
    return sum;
}

static int call_once_init()
{
    static std::once_flag once;
    auto init = [] { std::call_once(once, [] { data[6] = 9; }); return data[6]; };
    std::future<int> other = std::async(std::launch::async, init);
    return init() + other.get();
}

static int jthread_stop()
{
    std::jthread worker([](std::stop_token stop) {
        while (!stop.stop_requested())
            std::this_thread::yield();
        data[7] = 10;
    });
    worker.request_stop();
    worker.join();
    return data[7];
}

// The value is there before the wait (late) or comes after it (early).
static int atomic_wait(bool late, int slot)
{
    std::atomic<int> ready{0};
    std::thread t([&] {
        if (!late)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        data[slot] = 11;
        ready.store(1, std::memory_order_release);
        ready.notify_one();
    });
    if (late)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ready.wait(0, std::memory_order_acquire);
    int sum = data[slot];
    t.join();
    return sum;
}

// Two threads swap halves of data[10..11] across three phases.
static int barrier_phases()
{
    std::barrier phase(2);
    int seen = 0;
    std::thread t([&] {
        for (int i = 0; i < 3; i++) {
            data[10] = i;
            phase.arrive_and_wait();
            seen += data[11];
            phase.arrive_and_wait();
        }
    });
    int mine = 0;
    for (int i = 0; i < 3; i++) {
        data[11] = 10 * i;
        phase.arrive_and_wait();
        mine += data[10];
        phase.arrive_and_wait();
    }
    t.join();
    return mine + seen;
}

int main()
{
    std::printf("promise_future %d\n", promise_future());
    std::printf("async_result %d\n", async_result());
    std::printf("latch_count_down %d\n", latch_count_down());
    std::printf("semaphore_release %d\n", semaphore_release());
    std::printf("shared_mutex_readers %d\n", shared_mutex_readers());
    std::printf("condition_variable_handoff %d\n", condition_variable_handoff());
    std::printf("call_once_init %d\n", call_once_init());
    std::printf("jthread_stop %d\n", jthread_stop());
    std::printf("atomic_wait_late %d\n", atomic_wait(true, 8));
    std::printf("atomic_wait_early %d\n", atomic_wait(false, 9));
    std::printf("barrier_phases %d\n", barrier_phases());
    return 0;
}
