/* How many cores the process may run on, found once per process. */
#ifndef GI_CORES_H
#define GI_CORES_H

/* The cores this process may run on (its affinity mask's; the cores online
 * where that cannot be read), no more than its control groups' CPU quota
 * allows, at least 1, as at the first call: cheap to ask per image or per
 * call. */
int gi__process_cores(void);

#endif
