/* --summary-json: what a batch did, per file, for scripts that merge the
 * summaries of many runs (a Slurm array, GNU parallel chunks). */
#ifndef GPUIMG_BATCH_SUMMARY_H
#define GPUIMG_BATCH_SUMMARY_H

#include "batch_inputs.h"
#include "progress.h"

/* Whether the summary can be written where --summary-json asks, tried
 * before the batch runs, so that a path that cannot take it is heard of
 * before the outputs are written: the temporary file that the write at
 * the end makes beside it is made and removed. Devices and FIFOs, written
 * as they are at the end, are left alone. 0, or -1 after printing why. */
int batch_summary_check(const cli_common *c);

/* Writes the summary atomically; prints why and returns -1 on failure. */
int batch_summary_write(const cli_common *c, const batch_list *list, const progress *p,
                        double elapsed_s, int interrupted);

#endif
