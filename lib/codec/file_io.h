/* Whole-file reads with a size cap, and atomic whole-file writes. */
#ifndef GI_FILE_IO_H
#define GI_FILE_IO_H

#include <stddef.h>
#include <stdint.h>

#include "gpuimg.h"

/* Reads all of `path` ("-" = standard input) into a buffer of
 * pixel_alloc.c (free it with gi__pixels_free). Refuses directories and
 * inputs over max_bytes. */
gi_status gi__read_file(const char *path, uint64_t max_bytes, uint8_t **bytes, size_t *size);

/* Appends bytes to an output (gi_output_open); after a failure it keeps
 * returning that failure. */
gi_status gi__output_write(gi_output *out, const void *bytes, size_t size);
/* The path the output was opened with ("-" for standard output). */
const char *gi__output_path(const gi_output *out);

#endif
