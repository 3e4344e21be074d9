/* The parts of a job that the batch's stages run apart (batch_image.c):
 * decode with the metadata, the steps after the orientation, the save
 * options that carry the metadata. */
#ifndef GI_JOB_FLOW_H
#define GI_JOB_FLOW_H

#include "gpuimg.h"

/* Decodes `in` into *img and reads its metadata into *meta (emptied
 * first): all of it, only the orientation when the job strips and orients,
 * none when it only strips. Metadata never makes the decode fail. */
gi_status gi__job_decode(const gi_job *job, const void *in, size_t size, const char *name,
                         gi_image *img, gi_metadata *meta);
/* Allocates *dst (not for a chain ending in hist) and runs the job's steps
 * on src, after the orientation steps when the job orients, in one chain;
 * then sets meta's orientation to 1. */
gi_status gi__job_apply(gi_context *ctx, const gi_job *job, const gi_image *src,
                        gi_metadata *meta, gi_image *dst, gi_histogram *hist);
/* The job's save options, carrying `meta` unless the job strips. */
gi_save_options gi__job_save_options(const gi_job *job, const gi_metadata *meta);

#endif
