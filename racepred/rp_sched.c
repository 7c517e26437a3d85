/* rp_sched.c — fair thread scheduling by default; see rp_sched.h. */
#include "pub_tool_basics.h"
#include "pub_tool_clientstate.h"
#include "pub_tool_libcbase.h"
#include "pub_tool_xarray.h"

#include "rp_sched.h"

/* The core's --fair-sched setting (pub_core_options.h, not in the tool
 * API; the same three values since Valgrind 3.8).  The core reads it
 * when it creates the big lock, after the tool's post_clo_init. */
enum rp_core_fair_sched { RP_FAIR_SCHED_NO, RP_FAIR_SCHED_YES, RP_FAIR_SCHED_TRY };
extern enum rp_core_fair_sched VG_(clo_fair_sched);

static Bool user_chose_fair_sched(void)
{
    Word i;

    for (i = 0; i < VG_(sizeXA)(VG_(args_for_valgrind)); i++) {
        const HChar *arg = *(HChar **)VG_(indexXA)(VG_(args_for_valgrind), i);

        if (VG_(strncmp)(arg, "--fair-sched=", 13) == 0)
            return True;
    }
    return False;
}

void rp_sched_prefer_fair(void)
{
    if (!user_chose_fair_sched())
        VG_(clo_fair_sched) = RP_FAIR_SCHED_TRY;
}
