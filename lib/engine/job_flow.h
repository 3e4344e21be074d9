/* The parts of a job that the batch's stages run apart (batch_image.c):
 * decode with the metadata and the save options that carry it (the steps
 * in between are the public gi_job_apply). */
#ifndef GI_JOB_FLOW_H
#define GI_JOB_FLOW_H

#include "backend/backend.h"
#include "gpuimg.h"
#include "codec/jpeg/jpeg_coeffs.h"
#include "route.h"

/* Decodes `in` into *img and reads its metadata into *meta (emptied
 * first): all of it, only the orientation when the job strips and orients,
 * none when it only strips. Metadata never makes the decode fail. */
gi_status gi__job_decode(const gi_job *job, const void *in, size_t size, const char *name,
                         gi_image *img, gi_metadata *meta);
/* gi__job_decode, but for a JPEG that the route (route.h) sends to the device:
 * then *coeffs holds its coefficients (or its deferred scan, which reads
 * `in`: keep it until *coeffs is freed) and *img only its size (no
 * pixels). *coeffs is empty otherwise. route may be NULL (pixels). why
 * (NULL, or why_size bytes) gets the plan's reason for a planned route's
 * JPEG, else "". */
gi_status gi__job_decode_routed(const gi_job *job, const void *in, size_t size, const char *name,
                                const gi__jpeg_route *route, gi_image *img,
                                gi_jpeg_coeffs *coeffs, gi_metadata *meta, char *why,
                                size_t why_size);
/* How gi__job_apply_jpeg's deferred scans were decoded: by the backend;
 * or on the CPU, from the file, where the backend declined them; or not at
 * all, the CPU refusing the file too: the status and the message are then
 * the decode's (gi_load_memory's, naming the input), as a decode on the
 * CPU from the start gives them. */
enum { GI__DECODED_BY_BACKEND, GI__DECODED_HERE, GI__DECODE_REFUSED };

/* gi_job_apply from a JPEG's coefficients (what gi__job_decode_routed
 * left in *coeffs): the same result and metadata. jpeg_out: NULL, or a
 * request for the result as an exact JPEG file (gi__apply_jpeg); when its
 * bytes come back, *dst holds no pixels to use. A deferred scan the
 * backend does not finish decodes here from its file, as gi_load_memory
 * decodes it (`name`: the input's, as gi__job_decode_routed had it);
 * *fell_back (may be NULL) says how (GI__DECODED_*; gi_last_codec names
 * the decoder that took it then). */
gi_status gi__job_apply_jpeg(gi_context *ctx, const gi_job *job, const gi_jpeg_coeffs *coeffs,
                             const char *name, gi_metadata *meta, gi_image *dst,
                             gi_histogram *hist, gi__chain_jpeg_out *jpeg_out, int *fell_back);
/* gi_job_apply with jpeg_out as gi__job_apply_jpeg takes it. */
gi_status gi__job_apply_to_jpeg(gi_context *ctx, const gi_job *job, const gi_image *src,
                                gi_metadata *meta, gi_image *dst, gi_histogram *hist,
                                gi__chain_jpeg_out *jpeg_out);
/* The exact JPEG writer's request for a job whose output format resolves
 * to `format`: into *out (its quality) and 1, or 0 when the output is not
 * a JPEG. */
int gi__job_jpeg_out(const gi_job *job, gi_format format, gi__chain_jpeg_out *out);
/* Reduces meta to what the job keeps (gpuimg.h, gi_job.strip): all of
 * it; the orientation alone; or the orientation and the colour
 * description. */
void gi__job_keep_metadata(const gi_job *job, gi_metadata *meta);
/* The job's save options, carrying `meta` unless the job strips it all. */
gi_save_options gi__job_save_options(const gi_job *job, const gi_metadata *meta);

#endif
