/* The CPU backend's chain from a JPEG's coefficients (backend.h): the
 * arithmetic half (jpeg_reconstruct.h) on the backend's threads, into host
 * pixels (the shrunk image for shrink-on-load), then the chain as from
 * any host source. The CUDA backend does
 * the same on its device; this is the reference it is compared with. */
#include "cpu_backend.h"
#include "codec/jpeg/jpeg_reconstruct.h"
#include "codec/jpeg/jpeg_shrink.h"
#include "base/pixel_alloc.h"

gi_status gi__cpu_run_chain_from_jpeg(void *state, const gi_jpeg_coeffs *c,
                                      const gi__chain *chain)
{
    /* A deferred scan is the device's: its file decodes from the start
     * (gi__job_apply_jpeg), as gi_load_memory decodes it. */
    if (c->deferred) return gi__fail(GI_ERR_DECODE, "a deferred JPEG scan on the CPU backend");
    gi__op_call steps[GI_MAX_STEPS];
    gi__chain from_pixels;
    if (c->shrink > 1) { /* shrink-on-load: the reduced IDCT's image */
        gi_image shrunk;
        if (!gi__jpeg_image_shrunk(&shrunk, c, c->shrink))
            return gi__fail(GI_ERR_NO_MEMORY, "out of memory for a %dx%d JPEG shrunk by %d",
                            c->width, c->height, c->shrink);
        gi__chain_from(chain, &shrunk, GI__HOST, steps, &from_pixels);
        gi_status st = gi__cpu_run_chain(state, &from_pixels);
        gi_image_free(&shrunk);
        return st;
    }
    const size_t stride = (size_t)c->width * (size_t)c->out_channels;
    uint8_t *pixels = gi__pixels_alloc(stride * (size_t)c->height);
    if (!pixels || gi__jpeg_reconstruct(c, &(gi_jpeg_rows_out){.pixels = pixels, .stride = stride},
                                            gi__cpu_threads(state)) != 0) {
        gi__pixels_free(pixels);
        return gi__fail(GI_ERR_NO_MEMORY, "out of memory for a %dx%d JPEG's pixels", c->width,
                        c->height);
    }
    const gi_image src = {.data = pixels, .width = c->width, .height = c->height,
                          .channels = c->out_channels, .stride = stride};
    gi__chain_from(chain, &src, GI__HOST, steps, &from_pixels);
    gi_status st = gi__cpu_run_chain(state, &from_pixels);
    gi__pixels_free(pixels);
    return st;
}
