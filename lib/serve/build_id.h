/* Which build of gpuimg this is: a client uses only a server of its own
 * build, so that a call gives what its own code gives. */
#ifndef GI_SERVE_BUILD_ID_H
#define GI_SERVE_BUILD_ID_H

#include <stddef.h>

/* The file that holds this code (libgpuimg, or the program it is linked
 * into), by path, inode, size and modification time: two build trees
 * differ, a rebuild or a reinstall differs, one build is the same in every
 * process. 0, or -1 when the file cannot be found (id says so). */
int gi__serve_build_id(char *id, size_t size);
/* The same for the file at path (canonical). */
int gi__serve_build_id_of(const char *path, char *id, size_t size);

#endif
