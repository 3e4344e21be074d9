/* Image sizes read from a few header bytes with pread, without reading
 * (or decoding) the file: a PNG's IHDR sits at a fixed offset, a JPEG's
 * frame header is found by stepping over the segments before it, and a
 * Netpbm file's length is about its decoded size. */
#include <fcntl.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>

#include "work_estimate.h"
#include "base/byte_order.h"

/* Per decoded byte, a PNG encode (libdeflate level 6, filter up) took 1.5
 * to 2.5 times a JPEG encode's time on the photos of the benchmarks
 * (README, "Folders of photos"), and the two decoders cost about the same:
 * decoding plus a PNG encode is about 1.5 times decoding plus a JPEG one. */
#define PNG_OUTPUT_WEIGHT 1.5

/* The channels stb gives for a PNG colour type (a palette becomes RGB). */
static int png_channels(int colour_type)
{
    switch (colour_type) {
    case 0: return 1;
    case 4: return 2;
    case 2:
    case 3: return 3;
    case 6: return 4;
    }
    return 0;
}

static int png_size(int fd, gi__image_size *size)
{
    uint8_t h[26]; /* signature, IHDR's length and type, width, height, depth, colour type */
    if (pread(fd, h, sizeof h, 0) != (ssize_t)sizeof h) return -1;
    *size = (gi__image_size){gi__be32(h + 16), gi__be32(h + 20), png_channels(h[25]), GI_FORMAT_PNG};
    return 0;
}

static int is_frame_marker(int m)
{
    /* SOF0..SOF15 but DHT (C4), JPG (C8) and DAC (CC) */
    return m >= 0xC0 && m <= 0xCF && m != 0xC4 && m != 0xC8 && m != 0xCC;
}

static int jpeg_size(int fd, gi__image_size *size)
{
    off_t at = 2; /* after SOI */
    for (int segments = 0; segments < 256; segments++) {
        uint8_t s[10]; /* marker, length, and a frame header's precision, height, width, components */
        if (pread(fd, s, sizeof s, at) != (ssize_t)sizeof s || s[0] != 0xFF) return -1;
        if (is_frame_marker(s[1])) {
            *size = (gi__image_size){gi__be16(s + 7), gi__be16(s + 5), s[9], GI_FORMAT_JPEG};
            return 0;
        }
        at += 2 + (off_t)gi__be16(s + 2);
    }
    return -1;
}

int gi__read_image_size(const char *path, gi__image_size *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    int rc = gi__read_image_size_fd(fd, size);
    if (fd >= 0) close(fd);
    return rc;
}

int gi__read_image_size_fd(int fd, gi__image_size *size)
{
    *size = (gi__image_size){0, 0, 0, GI_FORMAT_AUTO};
    if (fd < 0) return -1;
    uint8_t magic[2];
    int rc = -1;
    if (pread(fd, magic, sizeof magic, 0) == (ssize_t)sizeof magic)
        rc = magic[0] == 0x89 && magic[1] == 'P' ? png_size(fd, size)
             : magic[0] == 0xFF && magic[1] == 0xD8 ? jpeg_size(fd, size)
                                                    : -1;
    if (rc != 0) *size = (gi__image_size){0, 0, 0, GI_FORMAT_AUTO};
    return rc;
}

/* A binary Netpbm file is its samples and a short header; plain ones are
 * longer than their pixels, which only puts them earlier. */
static double netpbm_bytes(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 ? (double)st.st_size : 0;
}

double gi__estimate_work(const char *path, gi_format out_format)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    double work = gi__estimate_work_fd(fd, out_format);
    if (fd >= 0) close(fd);
    return work;
}

double gi__estimate_work_fd(int fd, gi_format out_format)
{
    gi__image_size s;
    double bytes = 0;
    if (gi__read_image_size_fd(fd, &s) == 0) {
        bytes = (double)s.width * s.height * s.channels;
    } else {
        uint8_t magic[2];
        if (fd >= 0 && pread(fd, magic, sizeof magic, 0) == (ssize_t)sizeof magic &&
            magic[0] == 'P' && magic[1] >= '1' && magic[1] <= '7')
            bytes = netpbm_bytes(fd);
    }
    return out_format == GI_FORMAT_PNG ? bytes * PNG_OUTPUT_WEIGHT : bytes;
}

/* stb decoded the 9 MP photos of the benchmarks in 75 to 130 ms on one
 * core of the GPU machine (README, "Folders of photos"): 8 ns a pixel is
 * the quick end, so the start-up hidden behind decoding is not overrated. */
#define DECODE_NS_PER_PIXEL 8.0

double gi__estimate_decode_ms(const gi__image_size *size)
{
    return (double)size->width * size->height * DECODE_NS_PER_PIXEL / 1e6;
}
