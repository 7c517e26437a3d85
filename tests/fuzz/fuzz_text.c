/* fuzz_text.c — libFuzzer target: the text trace reader (rp_trace.h), then
 * the detectors on what it accepted (fuzz_common.h).  Built and run by
 * `make fuzz-smoke` (tests/fuzz/fuzz.am). */
#include "fuzz_common.h"
#include "rp_trace.h"

#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
    rp_trace trace;
    rp_trace_error err;
    if (!rp_trace_parse((const char *)data, len, &trace, &err)) {
        /* The error names a line of the input, in a terminated message. */
        if (err.line == 0 || memchr(err.message, '\0', sizeof err.message) == NULL)
            abort();
        return 0;
    }
    fuzz_run run;
    fuzz_start(&run, data, len);
    for (uint32_t i = 0; i < trace.n_events; i++) {
        const rp_event *e = &trace.events[i];
        /* Names the analyser prints must exist. */
        if (e->tid >= trace.n_threads)
            abort();
        fuzz_event(&run, e);
    }
    fuzz_end(&run, true);
    for (uint32_t i = 0; i < trace.n_expects; i++)
        (void)rp_trace_find_expect(&trace, trace.expects[i].relation);
    rp_trace_free(&trace);
    return 0;
}
