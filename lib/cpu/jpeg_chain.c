/* The CPU backend's chain from a JPEG's coefficients (backend.h): the
 * arithmetic half (jpeg_reconstruct.h) on the backend's threads, into host
 * pixels (the shrunk image for shrink-on-load), then the chain as from any
 * host source. The CUDA backend does the same on its device; this is the
 * reference it is compared with. */
#include "cpu_backend.h"
#include "codec/jpeg/jpeg_decode.h"

gi_status gi__cpu_run_chain_from_jpeg(void *state, const gi_jpeg_coeffs *c,
                                      const gi__chain *chain)
{
    /* A deferred scan is the device's: its file decodes from the start
     * (gi__job_apply_jpeg), as gi_load_memory decodes it. */
    if (c->deferred) return gi__fail(GI_ERR_DECODE, "a deferred JPEG scan on the CPU backend");
    gi_image src;
    if (!gi__jpeg_image_from_coeffs(&src, c, gi__cpu_threads(state))) {
        int w, h;
        gi__jpeg_output_size(c, &w, &h);
        return gi__fail(GI_ERR_NO_MEMORY, "out of memory for a %dx%d JPEG's pixels", w, h);
    }
    gi__op_call steps[GI_MAX_STEPS];
    gi__chain from_pixels;
    gi__chain_from(chain, &src, GI__HOST, steps, &from_pixels);
    gi_status st = gi__cpu_run_chain(state, &from_pixels);
    gi_image_free(&src);
    return st;
}
