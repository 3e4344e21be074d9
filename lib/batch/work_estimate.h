/* How much work an input will be, from its header, so that a batch can
 * start the heaviest images first and AUTO can plan before decoding. */
#ifndef GPUIMG_WORK_ESTIMATE_H
#define GPUIMG_WORK_ESTIMATE_H

#include "gpuimg.h"

/* A relative cost: the decoded bytes, weighted by what encoding into
 * out_format costs. 0 when the file's header cannot be read (such an
 * input usually fails at once, so it can go last). */
double gi__estimate_work(const char *path, gi_format out_format);
/* The same from an open descriptor (-1: unreadable), read with pread. */
double gi__estimate_work_fd(int fd, gi_format out_format);

typedef struct {
    uint32_t width, height;
    int channels;     /* as stb will decode them (a PNG palette gives RGB) */
    gi_format format; /* GI_FORMAT_PNG or GI_FORMAT_JPEG (AUTO: neither) */
} gi__image_size;

/* The size of a PNG or JPEG from its header; -1 (and zeros) when the file
 * cannot be read or is neither. */
int gi__read_image_size(const char *path, gi__image_size *size);
int gi__read_image_size_fd(int fd, gi__image_size *size); /* -1: fails */

/* How long decoding an image of that size takes, at the quick end. */
double gi__estimate_decode_ms(const gi__image_size *size);

#endif
