/* How much work an input will be, from its header, so that a batch can
 * start the heaviest images first. */
#ifndef GPUIMG_WORK_ESTIMATE_H
#define GPUIMG_WORK_ESTIMATE_H

#include "gpuimg.h"

/* A relative cost: the decoded bytes, weighted by what encoding into
 * out_format costs. 0 when the file's header cannot be read (such an
 * input usually fails at once, so it can go last). */
double gi__estimate_work(const char *path, gi_format out_format);

#endif
