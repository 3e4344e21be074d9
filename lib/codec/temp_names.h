/* The names of the temporary files an atomic write renames into place,
 * and the sweep that removes those a killed process left behind. */
#ifndef GI_TEMP_NAMES_H
#define GI_TEMP_NAMES_H

#include <stddef.h>
#include <sys/types.h>

/* Writes into tmp the temporary name for the file `base` (one component)
 * of this process's n-th write: ".BASE.gpuimg-PID-N.tmp". A base too long
 * for that to fit NAME_MAX is cut and a hash of the whole base takes the
 * cut part's place, so every output name a file system takes has a
 * temporary name it takes too. Returns -1 if tmp_size is too small. */
int gi__temp_name(const char *base, pid_t pid, unsigned n, char *tmp, size_t tmp_size);

/* Whether `name` is exactly such a temporary name; *pid: the PID in it. */
int gi__parse_temp_name(const char *name, pid_t *pid);

/* Once per directory per process: removes from the directory `dir`
 * (relative to dir_fd; "" is dir_fd itself) the temporary files of this
 * user whose writer is dead (the PID in the name names no process), left
 * by a gpuimg that was killed before it could remove them. */
void gi__sweep_stale_temps(int dir_fd, const char *dir);

#endif
