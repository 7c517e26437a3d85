/* rp_detectors.c — the registry of detectors (rp_detector.h).
 *
 * Adding a detector: declare its ops here and add one line to the table.
 */
#include "rp_detector.h"

#include "rp_shim.h"

extern const rp_detector_ops rp_det_hb;
extern const rp_detector_ops rp_det_shb;
extern const rp_detector_ops rp_det_lockset;
extern const rp_detector_ops rp_det_wcp;
extern const rp_detector_ops rp_det_dc;
extern const rp_detector_ops rp_det_wdc;
extern const rp_detector_ops rp_det_syncp;
extern const rp_detector_ops rp_det_m2;
extern const rp_detector_ops rp_det_osr;
extern const rp_detector_ops rp_det_wdp;
extern const rp_detector_ops rp_det_sdp;

static const rp_detector_ops *const detectors[] = {
    &rp_det_hb,
    &rp_det_shb,
    &rp_det_lockset,
    &rp_det_wcp,
    &rp_det_dc,
    &rp_det_wdc,
    &rp_det_syncp,
    &rp_det_m2,
    &rp_det_osr,
    &rp_det_wdp,
    &rp_det_sdp,
};

#define DETECTOR_COUNT (sizeof detectors / sizeof detectors[0])

unsigned rp_detector_count(void)
{
    return DETECTOR_COUNT;
}

const rp_detector_ops *rp_detector_at(unsigned i)
{
    return i < DETECTOR_COUNT ? detectors[i] : NULL;
}

const rp_detector_ops *rp_detector_find(const char *name)
{
    for (unsigned i = 0; i < DETECTOR_COUNT; i++)
        if (rp_strcmp(detectors[i]->name, name) == 0)
            return detectors[i];
    return NULL;
}
