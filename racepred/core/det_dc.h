/* det_dc.h — the engine shared by the "dc" and "wdc" detectors (det_dc.c,
 * det_wdc.c): the same vector-clock analysis, with or without DC's
 * release–release rule (b).  Only those two modules include this header.
 */
#ifndef DET_DC_H
#define DET_DC_H

#include "rp_detector.h"

void *dc_create_relation(const rp_detector_env *env, bool rule_b);
void dc_destroy(void *self);
void dc_access(void *self, const rp_event *e);
void dc_acquire(void *self, const rp_event *e);
void dc_release(void *self, const rp_event *e);
void dc_acquire_shared(void *self, const rp_event *e);
void dc_release_shared(void *self, const rp_event *e);
void dc_fork(void *self, const rp_event *e);
void dc_join(void *self, const rp_event *e);
void dc_thread_end(void *self, rp_tid_t tid);
void dc_thread_gone(void *self, rp_tid_t tid);
void dc_kept(void *self, rp_history_stats *stats);
void dc_sync_send(void *self, const rp_event *e);
void dc_sync_recv(void *self, const rp_event *e);
void dc_forget(void *self, const rp_event *e);
void dc_finish(void *self);

#endif
