/* rp_sched.c — fair thread scheduling by default; see rp_sched.h. */
#include "pub_tool_basics.h"

#include "rp_sched.h"
#include "rp_tool.h"

/* The core's --fair-sched setting (pub_core_options.h, not in the tool
 * API; the same three values since Valgrind 3.8).  The core reads it
 * when it creates the big lock, after the tool's post_clo_init. */
enum rp_core_fair_sched { RP_FAIR_SCHED_NO, RP_FAIR_SCHED_YES, RP_FAIR_SCHED_TRY };
extern enum rp_core_fair_sched VG_(clo_fair_sched);

void rp_sched_prefer_fair(void)
{
    if (!rp_tool_core_option_given("--fair-sched="))
        VG_(clo_fair_sched) = RP_FAIR_SCHED_TRY;
}
