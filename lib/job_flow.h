/* The parts of a job that the batch's stages run apart (batch_image.c):
 * decode with the metadata and the save options that carry it (the steps
 * in between are the public gi_job_apply). */
#ifndef GI_JOB_FLOW_H
#define GI_JOB_FLOW_H

#include "gpuimg.h"

/* Decodes `in` into *img and reads its metadata into *meta (emptied
 * first): all of it, only the orientation when the job strips and orients,
 * none when it only strips. Metadata never makes the decode fail. */
gi_status gi__job_decode(const gi_job *job, const void *in, size_t size, const char *name,
                         gi_image *img, gi_metadata *meta);
/* The job's save options, carrying `meta` unless the job strips. */
gi_save_options gi__job_save_options(const gi_job *job, const gi_metadata *meta);

#endif
