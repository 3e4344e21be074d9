/* The inputs of a batch and where each one's output goes. */
#ifndef GPUIMG_BATCH_INPUTS_H
#define GPUIMG_BATCH_INPUTS_H

#include <stddef.h>

#include "options.h"

typedef struct {
    gi_batch_item *items;
    size_t count, cap;
} batch_list;

/* Collects the inputs named on the command line (files, or directories
 * with -r) and by --files-from, sorted by input path, each with its output
 * path under the output directory:
 *   - a file named on the command line keeps its base name;
 *   - a file found under a directory keeps its path below that directory;
 *   - a --files-from path is mirrored with leading '/' and every '.' and
 *     '..' component dropped, so no output lands outside the directory;
 *   - with --format, a name whose extension says another format gets the
 *     format's extension instead (.png .jpg .pnm .pam).
 * Two inputs with one output path: the later ones fail. Returns 0, or an
 * exit code after printing why. */
int batch_collect(const cli_common *c, char **args, int count, batch_list *list);
/* Keeps the items whose position in the sorted list is shard mod count. */
void batch_keep_shard(batch_list *list, int shard, int count);
void batch_list_free(batch_list *list);

#endif
