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
/* The input's metadata as the job keeps it (none under strip, but for the
 * orientation when the job applies it). */
void gi__job_read_metadata(const gi_job *job, const void *in, size_t size, gi_metadata *meta);
/* The job's whole chain for an input with this metadata: the turn that
 * auto_orient applies, then the steps; -1 when that is over GI_MAX_STEPS
 * steps (gi_job_apply then runs the turn apart). */
int gi__job_chain(const gi_job *job, const gi_metadata *meta, gi_op chain[GI_MAX_STEPS]);
gi_save_options gi__job_save_options(const gi_job *job, const gi_metadata *meta);

#endif
