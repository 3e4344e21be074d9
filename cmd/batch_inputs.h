/* The inputs of a batch and where each one's output goes. */
#ifndef GPUIMG_BATCH_INPUTS_H
#define GPUIMG_BATCH_INPUTS_H

#include <stddef.h>

#include "options.h"

typedef struct {
    gi_batch_item *items;
    size_t count;
} batch_list;

/* Collects the inputs named on the command line (files, or directories
 * with -r) and by --files-from, sorted by input path, each with its output
 * path under the output directory:
 *   - a file named on the command line or by --files-from keeps its base
 *     name (a path with none, "/" or "..", fails alone);
 *   - a file found under a directory keeps its path below that directory;
 *   - with --format, a name whose extension says another format gets the
 *     format's extension instead (.png .jpg .pnm .pam).
 * Standard input ("-") fails alone. Two inputs with one output file
 * refuse the batch (gi_batch_check_outputs, over the whole list, so that
 * every shard refuses it alike). Of the sorted list, the items kept are
 * those of --shard K/N (position mod N is K). Returns 0, or an exit code
 * after printing why. */
int batch_collect(const cli_common *c, char **args, int count, batch_list *list);
void batch_list_free(batch_list *list);

#endif
