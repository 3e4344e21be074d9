/* image_io.c's entry for files encoded elsewhere: a backend's JPEG writer
 * (backend.h, gi__chain_jpeg_out: the CUDA backend's, or the CPU blur's
 * that codes rows as they come) makes the file; the saving rules (options,
 * metadata, gi_last_codec) stay gi_encode's. */
#ifndef GI_IMAGE_IO_H
#define GI_IMAGE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "gpuimg.h"

/* What gi_encode gives for opts (format JPEG, the exact encoder) from
 * `file`, the exact writer's bytes of the image (malloc'd; taken, freed
 * on failure too): the metadata embedded. gi_last_codec says `codec`
 * (the encoder's name). */
gi_status gi__encoded_jpeg(uint8_t *file, size_t length, const char *codec,
                           const gi_save_options *opts, uint8_t **bytes, size_t *size);

#endif
