/* An item's files, by name or by the descriptors a caller handed over
 * (gi_batch_item.files): every file a batch touches goes through here, so
 * a server that was given descriptors opens nothing by name. */
#ifndef GI_BATCH_FILES_H
#define GI_BATCH_FILES_H

#include <sys/stat.h>

#include "gpuimg.h"
#include "work_estimate.h"

/* The whole input (gi__read_file's contract and messages). */
gi_status gi__item_read(const gi_batch_item *it, uint64_t max_bytes, uint8_t **bytes,
                        size_t *size);
/* Writes the output atomically (gi_write_file_atomic, gi_save_file). */
gi_status gi__item_write(const gi_batch_item *it, const void *bytes, size_t size);
gi_status gi__item_save(const gi_batch_item *it, const gi_image *img, const gi_save_options *save);
/* Whether the output exists already (skip_existing). */
int gi__item_output_exists(const gi_batch_item *it);
/* The input's header, as gi__read_image_size and gi__estimate_work read it. */
int gi__item_image_size(const gi_batch_item *it, gi__image_size *size);
double gi__item_estimate_work(const gi_batch_item *it, gi_format out_format);

#endif
