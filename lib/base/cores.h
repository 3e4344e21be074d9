/* How many cores are online, found once per process. */
#ifndef GI_CORES_H
#define GI_CORES_H

/* The cores online (at least 1), as sysconf(_SC_NPROCESSORS_ONLN) said at
 * the first call: cheap to ask per image or per call. */
int gi__online_cores(void);

#endif
