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

/* The same from a descriptor already open, which stays open; `path` only
 * names it in messages ("-": standard input). A regular file is read from
 * its start, whatever the descriptor's offset. */
gi_status gi__read_fd(int fd, const char *path, uint64_t max_bytes, uint8_t **bytes, size_t *size);

/* Whether `path` may be read here and again by another path: not
 * standard input, a pipe or a device, which give their bytes once. */
int gi__file_rereadable(const char *path);

/* gi_output_open for `name` relative to the directory dir_fd (AT_FDCWD:
 * the working directory; "-" is standard output only there): the
 * temporary file is created in that directory and renamed into place
 * there by gi_output_close. `path` names the output in messages. Lets a
 * caller that was handed a directory (gpuimg serve) write into it without
 * a path. */
gi_status gi__output_open_at(gi_output **result, int dir_fd, const char *name, const char *path);
/* An output written straight to fd, which stays the caller's (a standard
 * output handed over): no temporary file, as "-" is written. */
gi_status gi__output_open_fd(gi_output **result, int fd, const char *path);

/* Appends bytes to an output (gi_output_open); after a failure it keeps
 * returning that failure. */
gi_status gi__output_write(gi_output *out, const void *bytes, size_t size);
/* The path the output was opened with ("-" for standard output). */
const char *gi__output_path(const gi_output *out);

#endif
