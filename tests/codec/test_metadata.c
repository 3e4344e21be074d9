/* Metadata: the orientation steps against the Exif definition of each
 * orientation, Exif/ICC/XMP round trips through JPEG and PNG (a 100 KB
 * profile takes several APP2 segments), setting the orientation in place,
 * hostile Exif dropped with a note while the image still decodes, PNG
 * metadata chunks that fail their CRC dropped with a note, and a job
 * keeping, orienting and stripping. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpuimg.h"

/* The stored pixel (column, row) that a viewer shows at (x, y) for an
 * orientation, from the TIFF definition: where row 0 and column 0 of the
 * stored image appear. w, h: the stored size. */
static void shown_from(int orientation, int x, int y, int w, int h, int *c, int *r)
{
    switch (orientation) {
    case 2: *c = w - 1 - x, *r = y; break;
    case 3: *c = w - 1 - x, *r = h - 1 - y; break;
    case 4: *c = x, *r = h - 1 - y; break;
    case 5: *c = y, *r = x; break;
    case 6: *c = y, *r = h - 1 - x; break;
    case 7: *c = w - 1 - y, *r = h - 1 - x; break;
    case 8: *c = w - 1 - y, *r = x; break;
    default: *c = x, *r = y; break;
    }
}

static void check_orientation_steps(gi_context *ctx)
{
    gi_image stored, img;
    gi_image_alloc(&stored, 5, 3, 2);
    for (int i = 0; i < 5 * 3 * 2; i++) stored.data[i] = (uint8_t)(i * 7 + 1);
    for (int o = 1; o <= 8; o++) {
        gi_transform steps[2];
        int n = gi_orientation_steps(o, steps);
        gi_image_alloc(&img, 5, 3, 2);
        memcpy(img.data, stored.data, 30);
        for (int s = 0; s < n; s++) {
            gi_image next;
            int w, h;
            gi_transform_size(&img, steps[s], &w, &h);
            gi_image_alloc(&next, w, h, 2);
            th_check(gi_transform_image(ctx, &img, &next, steps[s]) == GI_OK, "transform");
            gi_image_free(&img);
            img = next;
        }
        int sideways = o >= 5, bad = 0;
        th_check(img.width == (sideways ? 3 : 5) && img.height == (sideways ? 5 : 3),
                 "orientation %d: shown size %dx%d", o, img.width, img.height);
        for (int y = 0; y < img.height && !bad; y++)
            for (int x = 0; x < img.width && !bad; x++) {
                int c, r;
                shown_from(o, x, y, 5, 3, &c, &r);
                bad = memcmp(img.data + img.stride * y + 2 * x,
                             stored.data + stored.stride * r + 2 * c, 2) != 0;
            }
        th_check(!bad, "orientation %d: the steps do not give what a viewer shows", o);
        gi_image_free(&img);
    }
    gi_transform steps[2];
    th_check(gi_orientation_steps(0, steps) == 0 && gi_orientation_steps(9, steps) == 0,
             "orientations outside 1..8 have no steps");
    gi_image_free(&stored);
}

/* A minimal Exif: IFD0 with Orientation, an Exif sub-IFD, an IFD1. */
static size_t make_exif(uint8_t *e, int big, int orientation)
{
    size_t n = 0;
#define U16(v) (big ? (e[n] = (uint8_t)((v) >> 8), e[n + 1] = (uint8_t)(v)) \
                    : (e[n] = (uint8_t)(v), e[n + 1] = (uint8_t)((v) >> 8)), n += 2)
#define U32(v) (big ? (U16((v) >> 16), U16((v) & 0xffff)) : (U16((v) & 0xffff), U16((v) >> 16)))
    memcpy(e, big ? "MM\0*" : "II*\0", 4);
    n = 4;
    U32(8);
    U16(2);                                  /* IFD0 at 8: two entries */
    U16(0x0112); U16(3); U32(1); U16(orientation); U16(0);
    U16(0x8769); U16(4); U32(1); U32(38);   /* Exif IFD at 38 */
    U32(56);                                 /* next: IFD1 at 56 */
    U16(1);                                  /* Exif IFD at 38: one entry */
    U16(0x9000); U16(7); U32(4); memcpy(e + n, "0232", 4); n += 4;
    U32(0);
    U16(0); U32(0);                          /* IFD1 at 56: empty */
#undef U16
#undef U32
    return n;
}

static void encode_small(gi_format format, uint8_t **bytes, size_t *size)
{
    gi_image img;
    gi_image_alloc(&img, 4, 3, 3);
    memset(img.data, 90, 36);
    gi_save_options opts = {.format = format};
    th_check(gi_encode(&img, &opts, bytes, size) == GI_OK, "encode");
    gi_image_free(&img);
}

static int same(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    return a && b && an == bn && memcmp(a, b, an) == 0;
}

static void check_round_trips(void)
{
    uint8_t exif[128];
    size_t icc_size = 100000;
    uint8_t *icc = malloc(icc_size);
    for (size_t i = 0; i < icc_size; i++) icc[i] = (uint8_t)(i * 2654435761u >> 13);
    static const char xmp[] = "<x:xmpmeta><rdf:Description tiff:Orientation=\"6\"/></x:xmpmeta>";
    for (int big = 0; big < 2; big++) {
        gi_metadata m = {0}, back, again;
        gi_metadata_free(&m);
        m.exif = exif;
        m.exif_size = make_exif(exif, big, 6);
        m.icc = icc;
        m.icc_size = icc_size;
        m.xmp = (uint8_t *)xmp;
        m.xmp_size = sizeof xmp - 1;
        m.gamma = 45455;
        for (int f = 0; f < 2; f++) {
            gi_format format = f ? GI_FORMAT_PNG : GI_FORMAT_JPEG;
            const char *name = f ? "PNG" : "JPEG";
            uint8_t *enc, *out;
            size_t enc_size, out_size;
            encode_small(format, &enc, &enc_size);
            th_check(gi_metadata_embed(enc, enc_size, format, &m, &out, &out_size) == GI_OK,
                     "%s embed: %s", name, gi_last_error());
            th_check(gi_metadata_read(out, out_size, &back) == GI_OK, "%s read", name);
            th_check(same(back.exif, back.exif_size, m.exif, m.exif_size), "%s: Exif kept", name);
            th_check(same(back.icc, back.icc_size, icc, icc_size), "%s: ICC kept", name);
            th_check(same(back.xmp, back.xmp_size, m.xmp, m.xmp_size), "%s: XMP kept", name);
            th_check(back.orientation == 6, "%s (%s endian): orientation %d, want 6", name,
                     big ? "big" : "little", back.orientation);
            th_check(back.gamma == (f ? 45455u : 0u), "%s: gAMA %u", name, back.gamma);
            th_check(!*back.dropped, "%s: dropped '%s'", name, back.dropped);
            th_check(gi_metadata_unwritable(&m, format, NULL, 0) == !f, "%s: unwritable", name);
            gi_image img;
            th_check(gi_load_memory(&img, out, out_size, name, NULL) == GI_OK &&
                         img.width == 4 && img.height == 3, "%s: still decodes", name);
            gi_image_free(&img);
            th_check(gi_metadata_set_orientation(&back, 1) == GI_OK, "set orientation");
            uint8_t *out2;
            size_t out2_size;
            gi_metadata_embed(enc, enc_size, format, &back, &out2, &out2_size);
            gi_metadata_read(out2, out2_size, &again);
            th_check(again.orientation == 1 && strstr((char *)again.xmp, "Orientation=\"1\""),
                     "%s: orientation set to 1 in Exif and XMP", name);
            gi_metadata_free(&again);
            gi_metadata_free(&back);
            gi_free(out2);
            gi_free(out);
            gi_free(enc);
        }
    }
    free(icc);
}

/* Damaged Exif is dropped with a reason; the file still decodes. */
static void check_hostile_exif(void)
{
    uint8_t exif[128];
    struct {
        const char *what;
        size_t at; /* byte to overwrite, in a little-endian make_exif */
        uint8_t value;
        size_t cut; /* keep only this many bytes (0: all) */
        const char *reason;
    } cases[] = {
        {"IFD1 points back at IFD0", 34, 8, 0, "loop"},
        {"Exif IFD points at itself", 52, 38, 0, "loop"},
        {"IFD0 past the end", 4, 200, 0, "past the end"},
        {"a value's offset past the end", 48, 250, 0, "past the end"},
        {"truncated", 9, 0, 20, "past the end"},
        {"no TIFF header", 0, 'X', 0, "no TIFF header"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        gi_metadata m = {0}, back;
        gi_metadata_free(&m);
        size_t n = make_exif(exif, 0, 3);
        exif[cases[i].at] = cases[i].value;
        if (cases[i].what[0] == 'a') exif[44] = 100; /* 100 bytes: stored out of line */
        m.exif = exif;
        m.exif_size = cases[i].cut ? cases[i].cut : n;
        uint8_t *enc, *out;
        size_t enc_size, out_size;
        encode_small(GI_FORMAT_JPEG, &enc, &enc_size);
        gi_metadata_embed(enc, enc_size, GI_FORMAT_JPEG, &m, &out, &out_size);
        th_check(gi_metadata_read(out, out_size, &back) == GI_OK, "%s: read", cases[i].what);
        th_check(!back.exif && back.orientation == 1 && strstr(back.dropped, cases[i].reason),
                 "%s: dropped '%s'", cases[i].what, back.dropped);
        gi_image img;
        th_check(gi_load_memory(&img, out, out_size, "x", NULL) == GI_OK, "%s: decodes",
                 cases[i].what);
        gi_image_free(&img);
        gi_metadata_free(&back);
        gi_free(out);
        gi_free(enc);
    }
}

/* The offset of the first PNG chunk of `type`, or 0. */
static size_t png_chunk(const uint8_t *png, size_t size, const char *type)
{
    for (size_t at = 8; at + 12 <= size;) {
        if (memcmp(png + at + 4, type, 4) == 0) return at;
        const uint8_t *n = png + at;
        at += 12 + ((size_t)n[0] << 24 | (size_t)n[1] << 16 | (size_t)n[2] << 8 | n[3]);
    }
    return 0;
}

/* A PNG chunk of metadata whose CRC fails is dropped with a note naming
 * it, as libpng drops an ancillary chunk that fails its CRC; the others
 * are kept, and the image still decodes. */
static void check_damaged_png_chunks(void)
{
    uint8_t exif[128];
    static const char xmp[] = "<x:xmpmeta/>";
    const char *types[] = {"eXIf", "iCCP", "iTXt", "gAMA"};
    for (int t = 0; t < 4; t++) {
        gi_metadata m = {0}, back;
        gi_metadata_free(&m);
        m.exif = exif;
        m.exif_size = make_exif(exif, 1, 6);
        m.icc = (uint8_t *)"not really a profile";
        m.icc_size = 20;
        m.xmp = (uint8_t *)xmp;
        m.xmp_size = sizeof xmp - 1;
        m.gamma = 45455;
        uint8_t *enc, *out;
        size_t enc_size, out_size;
        encode_small(GI_FORMAT_PNG, &enc, &enc_size);
        gi_metadata_embed(enc, enc_size, GI_FORMAT_PNG, &m, &out, &out_size);
        const size_t at = png_chunk(out, out_size, types[t]);
        out[at + 8] ^= 0x10; /* a data byte: the CRC no longer matches */
        th_check(gi_metadata_read(out, out_size, &back) == GI_OK, "%s damaged: read", types[t]);
        char note[64];
        snprintf(note, sizeof note, "%s chunk at byte %zu dropped: it fails its CRC", types[t], at);
        th_check(strstr(back.dropped, note) != NULL, "%s damaged: dropped '%s'", types[t],
                 back.dropped);
        th_check(!back.exif == (t == 0) && back.orientation == (t == 0 ? 1 : 6) &&
                     !back.icc == (t == 1) && !back.xmp == (t == 2) &&
                     back.gamma == (t == 3 ? 0u : 45455u),
                 "%s damaged: the wrong chunks kept", types[t]);
        gi_image img;
        th_check(gi_load_memory(&img, out, out_size, "x.png", NULL) == GI_OK && img.width == 4,
                 "%s damaged: the image does not decode: %s", types[t], gi_last_error());
        gi_image_free(&img);
        gi_metadata_free(&back);
        gi_free(out);
        gi_free(enc);
    }
}

/* gi_job keeps the metadata, orients with auto_orient, drops it with strip. */
static void check_job(gi_context *ctx)
{
    uint8_t exif[128], icc[300];
    for (size_t i = 0; i < sizeof icc; i++) icc[i] = (uint8_t)(i * 7);
    gi_metadata m = {0};
    m.exif = exif;
    m.exif_size = make_exif(exif, 1, 6);
    m.icc = icc;
    m.icc_size = sizeof icc;
    m.orientation = 6;
    uint8_t *enc, *in;
    size_t enc_size, in_size;
    encode_small(GI_FORMAT_JPEG, &enc, &enc_size);
    gi_metadata_embed(enc, enc_size, GI_FORMAT_JPEG, &m, &in, &in_size);
    gi_op blur = {.kind = GI_OP_BLUR};
    gi_blur_params_default(&blur.blur);
    blur.blur.radius = 0;
    for (int mode = 0; mode < 4; mode++) {
        int orient = mode & 1, strip = mode >> 1;
        gi_job job;
        gi_job_default(&job);
        job.steps = &blur;
        job.n_steps = 1;
        job.save.format = GI_FORMAT_PNG;
        job.auto_orient = orient;
        job.strip = strip;
        uint8_t *out;
        size_t out_size;
        gi_image img;
        gi_metadata back;
        th_check(gi_job_run_memory(ctx, &job, in, in_size, "job", &out, &out_size, NULL) == GI_OK,
                 "job (orient %d, strip %d): %s", orient, strip, gi_last_error());
        gi_load_memory(&img, out, out_size, "out", NULL);
        gi_metadata_read(out, out_size, &back);
        th_check(img.width == (orient ? 3 : 4) && img.height == (orient ? 4 : 3),
                 "job (orient %d, strip %d): %dx%d", orient, strip, img.width, img.height);
        if (strip)
            th_check(gi_metadata_empty(&back), "job --strip: metadata left");
        else
            th_check(back.orientation == (orient ? 1 : 6) && same(back.icc, back.icc_size, icc,
                                                                   sizeof icc),
                     "job (orient %d): orientation %d, ICC kept", orient, back.orientation);
        gi_metadata_free(&back);
        gi_image_free(&img);
        gi_free(out);
    }
    gi_free(in);
    gi_free(enc);
}

int main(void)
{
    gi_context *ctx;
    gi_context_options opts = {GI_DEVICE_CPU, 1, 0};
    if (gi_context_create(&ctx, &opts) != GI_OK) return 1;
    check_orientation_steps(ctx);
    check_round_trips();
    check_hostile_exif();
    check_damaged_png_chunks();
    check_job(ctx);
    gi_context_destroy(ctx);
    return th_finish();
}
