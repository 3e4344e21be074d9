/* --summary-json: what a batch did, per file, for scripts that merge the
 * summaries of many runs (a Slurm array, GNU parallel chunks). */
#ifndef GPUIMG_BATCH_SUMMARY_H
#define GPUIMG_BATCH_SUMMARY_H

#include "batch_inputs.h"
#include "progress.h"

/* Writes the summary atomically; prints why and returns -1 on failure. */
int batch_summary_write(const cli_common *c, const batch_list *list, const progress *p,
                        double elapsed_s, int interrupted);

#endif
