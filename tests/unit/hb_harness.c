/* hb_harness.c — see hb_harness.h. */
#include "hb_harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef TRACES_DIR
#define TRACES_DIR "tests/traces"
#endif

void harness_log_race(void *ctx, const rp_race *race)
{
    race_log *log = ctx;
    if (log->count == log->cap) {
        log->cap = log->cap == 0 ? 64 : log->cap * 2;
        log->races = realloc(log->races, log->cap * sizeof *log->races);
    }
    log->races[log->count++] = *race;
}

void harness_run(const char *detectors, bool all_pairs, rp_event *events, size_t n,
                 race_log *log)
{
    rp_detector_env env = { .report = harness_log_race, .report_ctx = log, .all_pairs = all_pairs };
    rp_engine *eng = rp_engine_create(detectors, &env, NULL);
    for (size_t i = 0; i < n; i++)
        rp_engine_event(eng, &events[i]);
    rp_engine_finish(eng);
    rp_engine_destroy(eng);
}

void harness_run_filtered(const char *detectors, bool sites_suffice, rp_event *events, size_t n,
                          race_log *log, size_t **position_of)
{
    rp_detector_env env = { .report = harness_log_race, .report_ctx = log, .skip_repeats = true,
                            .sites_suffice = sites_suffice };
    rp_engine *eng = rp_engine_create(detectors, &env, NULL);
    for (size_t i = 0; i < n; i++) {
        events[i].id = 0;
        rp_engine_event(eng, &events[i]);
    }
    rp_engine_finish(eng);
    rp_engine_destroy(eng);
    *position_of = malloc((n + 1) * sizeof **position_of);
    for (size_t i = 0; i < n; i++)
        if (events[i].id != 0)
            (*position_of)[events[i].id - 1] = i;
}

static int compare_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

size_t harness_pair_keys(const race_log *log, uint64_t **keys)
{
    *keys = malloc((log->count + 1) * sizeof **keys);
    for (size_t i = 0; i < log->count; i++)
        (*keys)[i] = log->races[i].first.id << 32 | log->races[i].second.id;
    qsort(*keys, log->count, sizeof **keys, compare_u64);
    size_t n = 0;
    for (size_t i = 0; i < log->count; i++)
        if (n == 0 || (*keys)[i] != (*keys)[n - 1])
            (*keys)[n++] = (*keys)[i];
    return n;
}

char *harness_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)size + 1);
    *len = fread(buf, 1, (size_t)size, f);
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

const char *harness_traces_dir(void)
{
    const char *dir = getenv("TRACES_DIR");
    return dir != NULL && dir[0] != '\0' ? dir : TRACES_DIR;
}

uint64_t rng_state;

uint32_t rnd(uint32_t n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

rp_event harness_event(rp_event_kind kind, rp_tid_t tid, uint64_t obj, uint32_t size)
{
    rp_event e;
    memset(&e, 0, sizeof e);
    e.kind = (uint8_t)kind;
    e.tid = tid;
    e.obj = obj;
    e.size = size;
    e.site = 0;
    return e;
}
