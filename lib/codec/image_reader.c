/* gi_reader: images one after another from a file descriptor (see
 * gpuimg.h). One buffer holds the unread bytes; each binary Netpbm image
 * is read to the length its header gives and no further than one read()
 * past it, so the buffer stays about one image long however long the
 * stream. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/gi_error.h"
#include "codec/pnm/pnm.h"

#define FIRST_READ (1u << 16)

struct gi_reader {
    int fd;
    char *name;              /* "standard input" or the path */
    gi_load_limits limits;
    uint8_t *buf;
    size_t cap, start, end;  /* the unread bytes are buf[start, end) */
    int eof;
    size_t count;            /* images returned */
    gi_status failed;        /* once set, every later call fails */
    char label[4200];        /* the name, and the image's number for Netpbm */
};

gi_status gi_reader_open(gi_reader **reader, const char *path, const gi_load_limits *limits)
{
    GI__REFUSE_NULL(reader, path);
    *reader = NULL;
    gi_reader *r = calloc(1, sizeof *r);
    int is_stdin = strcmp(path, "-") == 0;
    if (!r || !(r->name = strdup(is_stdin ? "standard input" : gi_quote_name(path)))) {
        free(r);
        return gi__fail(GI_ERR_NO_MEMORY, "%s: out of memory", gi_quote_name(path));
    }
    if (limits) r->limits = *limits;
    else gi_load_limits_default(&r->limits);
    r->fd = is_stdin ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0) {
        gi_status st = gi__fail(GI_ERR_IO, "%s: %s", r->name, strerror(errno));
        gi_reader_close(r);
        return st;
    }
    *reader = r;
    return GI_OK;
}

void gi_reader_close(gi_reader *r)
{
    if (!r) return;
    if (r->fd > STDIN_FILENO) close(r->fd);
    free(r->buf);
    free(r->name);
    free(r);
}

size_t gi_reader_count(const gi_reader *r)
{
    return r ? r->count : 0;
}

static gi_status reader_fail(gi_reader *r, gi_status st)
{
    r->failed = st;
    return st;
}

/* Room for `want` unread bytes: the unread ones moved to the front, the
 * buffer grown when they would not fit. */
static gi_status make_room(gi_reader *r, size_t want)
{
    if (r->start) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    if (want <= r->cap) return GI_OK;
    if (want < FIRST_READ) want = FIRST_READ;
    uint8_t *bigger = realloc(r->buf, want);
    if (!bigger) return gi__fail(GI_ERR_NO_MEMORY, "%s: out of memory", r->label);
    r->buf = bigger;
    r->cap = want;
    return GI_OK;
}

/* One read(), into a buffer doubled when full; sets eof at the end. */
static gi_status read_some(gi_reader *r)
{
    size_t unread = r->end - r->start;
    gi_status st = make_room(r, unread == r->cap ? 2 * r->cap : 0);
    while (st == GI_OK) {
        ssize_t n = read(r->fd, r->buf + r->end, r->cap - r->end);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return gi__fail(GI_ERR_IO, "%s: %s", r->name, strerror(errno));
        if (n == 0) r->eof = 1;
        r->end += (size_t)n;
        break;
    }
    return st;
}

/* Reads until `want` bytes are unread or the input ends. */
static gi_status read_at_least(gi_reader *r, size_t want)
{
    gi_status st = r->end - r->start >= want ? GI_OK : make_room(r, want);
    while (st == GI_OK && r->end - r->start < want && !r->eof) st = read_some(r);
    return st;
}

/* Reads the rest of the input, up to max_input_bytes. */
static gi_status read_to_end(gi_reader *r)
{
    gi_status st = GI_OK;
    while (st == GI_OK && !r->eof) {
        st = read_some(r);
        if (st == GI_OK && r->end - r->start > r->limits.max_input_bytes)
            st = gi__fail(GI_ERR_TOO_LARGE, "%s: input larger than the %llu-byte limit", r->label,
                          (unsigned long long)r->limits.max_input_bytes);
    }
    return st;
}

static int is_blank(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Blanks may sit between two Netpbm images (a plain image's last line). */
static gi_status skip_blanks_between(gi_reader *r)
{
    for (;;) {
        while (r->start < r->end && is_blank(r->buf[r->start])) r->start++;
        if (r->start < r->end || r->eof) return GI_OK;
        gi_status st = read_some(r);
        if (st != GI_OK) return st;
    }
}

/* A Netpbm image: its header, then its bytes (binary), or the rest of the
 * input (plain: its length shows only while decoding). */
static gi_status next_netpbm(gi_reader *r, gi_image *img)
{
    gi_pnm_header h;
    int short_header;
    gi_status st;
    for (;;) {
        st = gi__pnm_header(r->buf + r->start, r->end - r->start, r->label, &r->limits, &h,
                            &short_header);
        if (st == GI_OK || !short_header || r->eof) break;
        if (r->end - r->start > r->limits.max_input_bytes)
            return gi__fail(GI_ERR_TOO_LARGE, "%s: a header longer than the %llu-byte input "
                            "limit", r->label, (unsigned long long)r->limits.max_input_bytes);
        st = read_some(r);
        if (st != GI_OK) return st;
    }
    if (st != GI_OK) return st;
    st = h.plain ? read_to_end(r) : read_at_least(r, h.image_bytes);
    if (st != GI_OK) return st;
    if (!h.plain && r->end - r->start < h.image_bytes)
        return gi__fail(GI_ERR_DECODE, "%s: truncated: %zu of %zu bytes", r->label,
                        r->end - r->start, h.image_bytes);
    size_t used;
    st = gi__pnm_decode(img, r->buf + r->start, r->end - r->start, &used, r->label, &r->limits);
    if (st == GI_OK) r->start += used;
    return st;
}

gi_status gi_reader_next(gi_reader *reader, gi_image *img)
{
    GI__REFUSE_NULL(reader, img);
    return gi_reader_next_with_metadata(reader, img, NULL);
}

/* gi_reader_next_with_metadata, r and img known to be there. */
static gi_status next_image(gi_reader *r, gi_image *img, gi_metadata *meta)
{
    memset(img, 0, sizeof *img);
    if (meta) gi_metadata_free(meta);
    snprintf(r->label, sizeof r->label, "%s", r->name);
    if (r->failed)
        return gi__fail(r->failed, "%s: no image after a failure", r->name);
    gi_status st = r->count ? skip_blanks_between(r) : read_at_least(r, 2);
    if (st == GI_OK && r->count == 0 && r->start == r->end)
        st = gi__fail(GI_ERR_DECODE, "%s: empty, no image", r->name);
    if (st != GI_OK) return reader_fail(r, st);
    if (r->start == r->end) return GI_OK; /* the end, after at least one image */
    st = read_at_least(r, 2);
    if (st != GI_OK) return reader_fail(r, st);
    int netpbm = gi__pnm_sniff(r->buf + r->start, r->end - r->start);
    if (netpbm || r->count)
        snprintf(r->label, sizeof r->label, "%s: image %zu", r->name, r->count + 1);
    if (netpbm) {
        st = next_netpbm(r, img);
    } else {
        st = read_to_end(r);
        if (st == GI_OK)
            st = gi_load_memory(img, r->buf + r->start, r->end - r->start, r->label, &r->limits);
        /* Out of memory for the metadata only leaves a note in meta->dropped. */
        if (st == GI_OK && meta) (void)gi_metadata_read(r->buf + r->start, r->end - r->start, meta);
        r->start = r->end;
    }
    if (st != GI_OK) return reader_fail(r, st);
    r->count++;
    return GI_OK;
}

gi_status gi_reader_next_with_metadata(gi_reader *reader, gi_image *img, gi_metadata *meta)
{
    GI__REFUSE_NULL(reader, img);
    return next_image(reader, img, meta);
}
