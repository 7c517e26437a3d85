/* rp_barriers.c — pthread barriers, one sync object per round
 * (rp_barriers.h). */
#include "pub_tool_basics.h"

#include "rp_barriers.h"
#include "rp_threads.h"
#include "rp_tool.h"
#include "rp_u64map.h"

/* barrier -> count << 32 | (arrivals modulo 2 * count); a count above
 * 2^31 - 1 cannot be met by any program and counts as unknown. */
static rp_u64map barriers;

#define MAX_COUNT 0x7FFFFFFFu

static UWord round_object(Addr barrier, UWord round)
{
    return barrier + 1 + round;
}

void rp_barriers_init(void)
{
    u64map_init(&barriers);
}

void rp_barriers_init_barrier(Addr barrier, UWord count)
{
    if (count == 0 || count > MAX_COUNT) {
        u64map_remove(&barriers, barrier);
        return;
    }
    /* The count is never 0, so neither is the value. */
    u64map_put(&barriers, barrier, (void *)((UWord)count << 32));
}

UWord rp_barriers_arrive(ThreadId vg_tid, Addr barrier)
{
    UWord state = (UWord)u64map_get(&barriers, barrier);
    UWord object = round_object(barrier, 0);

    if (state != 0) {
        UWord count = state >> 32;
        UWord arrivals = state & 0xFFFFFFFFu;

        object = round_object(barrier, arrivals / count);
        arrivals = (arrivals + 1) % (2 * count);
        u64map_put(&barriers, barrier, (void *)(count << 32 | arrivals));
    }
    rp_tool_emit(RP_EV_SYNC_SEND, rp_threads_of_vg(vg_tid), object, 0, 0);
    return object;
}

void rp_barriers_depart(ThreadId vg_tid, Addr barrier, UWord object)
{
    if (object != round_object(barrier, 0) && object != round_object(barrier, 1))
        object = round_object(barrier, 0);
    rp_tool_emit(RP_EV_SYNC_RECV, rp_threads_of_vg(vg_tid), object, 0, 0);
}

void rp_barriers_destroy(Addr barrier)
{
    u64map_remove(&barriers, barrier);
}
