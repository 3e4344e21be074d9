/* jpeg_decode_gpu: the JPEG decoder's arithmetic half on the GPU
 * (lib/cuda/jpeg_device.h) gives the CPU's bytes (jpeg_reconstruct.h) for
 * every colour mode stb has (gray, YCbCr, RGB by ids or Adobe 0, CMYK,
 * YCCK, each to 1 or 3 channels), every upsampler (none, v2, h2, hv2 and
 * nearest, chroma larger than luma too), sizes from 1x1 and off the MCU
 * grid, on random coefficients (small ones as in photos, and extremes
 * that wrap the 16-bit dequantization and saturate the IDCT) and random
 * quantization tables. Both outputs are poisoned first, with padded rows
 * on the CPU's side. Shrink-on-load too: each gray or YCbCr layout it
 * takes, shrunk by 2, 4 and 8 on the GPU, against the CPU's
 * gi__jpeg_image_shrunk (jpeg_shrink.h). Exits 77 without a GPU. GPUIMG_TEST_SMALL=1 leaves
 * out the large sizes (for compute-sanitizer). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "codec/jpeg/jpeg_coeffs.h"
#include "cuda/jpeg_device.h"
#include "codec/jpeg/jpeg_reconstruct.h"
#include "codec/jpeg/jpeg_shrink.h"

typedef struct {
    int ncomp, adobe, jfif, rgb_ids, out_channels;
    int hv[4][2];
} layout;

static const int samplings[][4][2] = {
    {{1, 1}, {1, 1}, {1, 1}, {1, 1}}, {{2, 1}, {1, 1}, {1, 1}, {2, 1}},
    {{1, 2}, {1, 1}, {1, 1}, {1, 2}}, {{2, 2}, {1, 1}, {1, 1}, {2, 2}},
    {{4, 1}, {1, 1}, {1, 1}, {4, 1}}, {{3, 1}, {1, 1}, {1, 1}, {1, 1}},
    {{1, 3}, {1, 1}, {1, 1}, {1, 1}}, {{4, 2}, {2, 1}, {1, 1}, {4, 2}},
    {{1, 1}, {2, 2}, {1, 1}, {1, 1}}, {{2, 2}, {2, 1}, {1, 2}, {1, 1}},
    {{4, 4}, {2, 2}, {1, 1}, {4, 4}},
};

static const int sizes[][2] = {{1, 1},   {1, 17}, {17, 1},  {7, 13},    {31, 29},  {64, 48},
                               {97, 131}, {257, 3}, {3, 257}, {1023, 769}, {3000, 2001}};

static int16_t random_coefficient(int k, int extreme)
{
    if (extreme) return (int16_t)th_rand_int(-32768, 32767);
    int spread = k == 0 ? 512 : 64 / (1 + k / 4);
    return th_rand_int(0, 3) ? 0 : (int16_t)th_rand_int(-spread, spread);
}

/* A coefficient set of layout l for a w x h frame, or storage NULL when
 * out of memory. */
static gi_jpeg_coeffs make_coeffs(const layout *l, int w, int h, int extreme)
{
    gi_jpeg_coeffs c;
    memset(&c, 0, sizeof c);
    c.width = w;
    c.height = h;
    c.ncomp = l->ncomp;
    c.jfif = l->jfif;
    c.adobe_transform = l->adobe;
    c.out_channels = l->out_channels;
    for (int i = 0; i < c.ncomp; i++) {
        c.hmax = l->hv[i][0] > c.hmax ? l->hv[i][0] : c.hmax;
        c.vmax = l->hv[i][1] > c.vmax ? l->hv[i][1] : c.vmax;
    }
    c.mcus_x = (w + 8 * c.hmax - 1) / (8 * c.hmax);
    c.mcus_y = (h + 8 * c.vmax - 1) / (8 * c.vmax);
    size_t total = 0;
    for (int i = 0; i < c.ncomp; i++) {
        gi_jpeg_plane *p = &c.plane[i];
        p->id = l->rgb_ids ? "RGB?"[i] : i + 1;
        p->h = l->hv[i][0];
        p->v = l->hv[i][1];
        p->tq = th_rand_int(0, 3);
        p->width = (w * p->h + c.hmax - 1) / c.hmax;
        p->height = (h * p->v + c.vmax - 1) / c.vmax;
        p->blocks_w = c.mcus_x * p->h;
        p->blocks_h = c.mcus_y * p->v;
        p->block_len = 64;
        total += (size_t)p->blocks_w * (size_t)p->blocks_h * 64;
    }
    for (int t = 0; t < 4; t++)
        for (int k = 0; k < 64; k++)
            c.quant[t][k] = (uint16_t)(th_rand_int(0, 7) ? th_rand_int(1, 40) : th_rand_int(1, 255));
    c.storage = malloc(total * sizeof(int16_t));
    if (!c.storage) return c;
    c.storage_bytes = total * sizeof(int16_t);
    int16_t *next = c.storage;
    for (int i = 0; i < c.ncomp; i++) {
        gi_jpeg_plane *p = &c.plane[i];
        p->coeffs = next;
        p->offset = (size_t)(next - c.storage);
        size_t n = (size_t)p->blocks_w * (size_t)p->blocks_h * 64;
        for (size_t k = 0; k < n; k++) next[k] = random_coefficient((int)(k % 64), extreme);
        next += n;
    }
    return c;
}

/* c shrunk by s on both devices: the same bytes. */
static int compare_shrunk(gi_jpeg_coeffs *c, const layout *l, int s, int extreme)
{
    c->shrink = s;
    int w, h;
    gi__jpeg_output_size(c, &w, &h);
    const size_t row = (size_t)w * (size_t)l->out_channels;
    gi_image cpu = {0};
    uint8_t *gpu = malloc(row * (size_t)h);
    int ok = th_check(gpu != NULL, "out of memory") &&
             th_check(gi__jpeg_image_shrunk(&cpu, c, s, 1) == 1, "CPU shrink");
    if (ok) {
        memset(gpu, 0xC3, row * (size_t)h);
        gi_status st = gi__cuda_jpeg_reconstruct_host(c, gpu, row);
        ok = th_check(st == GI_OK, "GPU shrink: %s", gi_last_error()) &&
             th_check(cpu.width == w && cpu.height == h, "CPU shrink %dx%d, GPU %dx%d", cpu.width,
                      cpu.height, w, h);
    }
    for (int y = 0; ok && y < h; y++)
        if (memcmp(cpu.data + (size_t)y * cpu.stride, gpu + (size_t)y * row, row) != 0) {
            int x = 0;
            while (cpu.data[(size_t)y * cpu.stride + x] == gpu[(size_t)y * row + x]) x++;
            ok = th_check(0, "%dx%d shrunk by %d, ncomp %d -> %d ch, sampling %dx%d/%dx%d/%dx%d%s: "
                          "row %d byte %d CPU %d GPU %d", c->width, c->height, s, l->ncomp,
                          l->out_channels, l->hv[0][0], l->hv[0][1], l->hv[1][0], l->hv[1][1],
                          l->hv[2][0], l->hv[2][1], extreme ? " extreme" : "", y, x,
                          cpu.data[(size_t)y * cpu.stride + x], gpu[(size_t)y * row + x]);
        }
    if (ok) th_check(1, "%dx%d shrunk by %d", c->width, c->height, s);
    gi_image_free(&cpu);
    free(gpu);
    c->shrink = 0;
    return ok;
}

/* c with the planes that a 1/8 shrink reads for their DC alone stored as
 * their DCs alone (jpeg_coeffs.h, block_len 1), after the planes of
 * blocks of 64, as the decoder lays them out for a thumbnail; storage
 * NULL where no plane is such (or memory ran out). */
static gi_jpeg_coeffs dc_alone_copy(const gi_jpeg_coeffs *c)
{
    gi_jpeg_coeffs d = *c;
    d.storage = NULL;
    const unsigned alone = gi__jpeg_dc_only_components(c, 1);
    if (!alone) return d;
    size_t total = 0;
    for (int i = 0; i < c->ncomp; i++)
        total += (size_t)c->plane[i].blocks_w * (size_t)c->plane[i].blocks_h * (alone >> i & 1u ? 1 : 64);
    if (!(d.storage = malloc(total * sizeof(int16_t)))) return d;
    d.storage_bytes = total * sizeof(int16_t);
    size_t next = 0;
    for (unsigned pass = 0; pass < 2; pass++)
        for (int i = 0; i < c->ncomp; i++) {
            if ((alone >> i & 1u) != pass) continue;
            gi_jpeg_plane *p = &d.plane[i];
            const size_t blocks = (size_t)p->blocks_w * (size_t)p->blocks_h;
            p->block_len = pass ? 1 : 64;
            p->offset = next;
            p->coeffs = d.storage + next;
            for (size_t b = 0; b < blocks; b++)
                if (pass) p->coeffs[b] = c->plane[i].coeffs[64 * b];
                else memcpy(p->coeffs + 64 * b, c->plane[i].coeffs + 64 * b, 64 * sizeof(int16_t));
            next += blocks * (size_t)p->block_len;
        }
    return d;
}

/* The planes of DCs alone shrunk by 8: the same bytes on both devices, and
 * as the planes of 64 coefficients a block give; refused at full size. */
static int compare_dc_alone(const gi_jpeg_coeffs *c, const layout *l, int extreme)
{
    gi_jpeg_coeffs d = dc_alone_copy(c);
    if (!d.storage) return 1; /* none of its planes is read for the DC alone */
    int ok = compare_shrunk(&d, l, 8, extreme);
    gi_image whole = {0}, alone = {0};
    if (ok && th_check(gi__jpeg_image_shrunk(&whole, c, 8, 1) == 1 &&
                           gi__jpeg_image_shrunk(&alone, &d, 8, 1) == 1,
                       "CPU shrink of both layouts")) {
        const size_t row = (size_t)whole.width * (size_t)whole.channels;
        for (int y = 0; ok && y < whole.height; y++)
            ok = th_check(memcmp(whole.data + (size_t)y * whole.stride,
                                 alone.data + (size_t)y * alone.stride, row) == 0,
                          "%dx%d: DCs alone shrunk by 8 differ from the blocks of 64 at row %d",
                          c->width, c->height, y);
    }
    gi_image_free(&whole);
    gi_image_free(&alone);
    /* a full-size image reads the AC coefficients the planes lack */
    uint8_t *out = malloc((size_t)c->width * (size_t)c->height * (size_t)l->out_channels);
    if (out) {
        d.shrink = 0;
        ok = th_check(gi__jpeg_reconstruct(&d, &(gi_jpeg_rows_out){.pixels = out,
                                                                 .stride = (size_t)c->width * (size_t)l->out_channels},
                                           1) != 0,
                      "CPU: DCs alone taken at full size") && ok;
        ok = th_check(gi__cuda_jpeg_reconstruct_host(&d, out, (size_t)c->width * (size_t)l->out_channels) != GI_OK,
                      "GPU: DCs alone taken at full size") && ok;
        free(out);
    }
    free(d.storage);
    return ok;
}

static int compare_one(const layout *l, int w, int h, int extreme)
{
    gi_jpeg_coeffs c = make_coeffs(l, w, h, extreme);
    if (!c.storage) return th_check(0, "out of memory for %dx%d", w, h);
    size_t row = (size_t)w * (size_t)l->out_channels, stride = row + 13;
    uint8_t *cpu = malloc(stride * (size_t)h), *gpu = malloc(row * (size_t)h);
    int ok = cpu && gpu;
    if (ok) {
        memset(cpu, 0x5A, stride * (size_t)h);
        memset(gpu, 0xC3, row * (size_t)h);
        int threads = th_rand_int(1, 4);
        ok = th_check(gi__jpeg_reconstruct(&c, &(gi_jpeg_rows_out){.pixels = cpu, .stride = stride}, threads) == 0, "CPU reconstruct");
        gi_status st = gi__cuda_jpeg_reconstruct_host(&c, gpu, row);
        ok = ok && th_check(st == GI_OK, "GPU reconstruct: %s", gi_last_error());
        for (int y = 0; ok && y < h; y++)
            if (memcmp(cpu + (size_t)y * stride, gpu + (size_t)y * row, row) != 0) {
                int x = 0;
                while (cpu[(size_t)y * stride + x] == gpu[(size_t)y * row + x]) x++;
                ok = th_check(0,
                              "%dx%d ncomp %d adobe %d jfif %d ids %d -> %d ch, sampling "
                              "%dx%d/%dx%d/%dx%d%s: row %d byte %d CPU %d GPU %d",
                              w, h, l->ncomp, l->adobe, l->jfif, l->rgb_ids, l->out_channels,
                              l->hv[0][0], l->hv[0][1], l->hv[1][0], l->hv[1][1], l->hv[2][0],
                              l->hv[2][1], extreme ? " extreme" : "", y, x,
                              cpu[(size_t)y * stride + x], gpu[(size_t)y * row + x]);
            }
        if (ok) th_check(1, "%dx%d", w, h);
    }
    for (int s = 2; ok && s <= 8 && gi__jpeg_shrinkable(&c); s *= 2)
        ok = compare_shrunk(&c, l, s, extreme);
    if (ok) ok = compare_dc_alone(&c, l, extreme);
    free(cpu);
    free(gpu);
    free(c.storage); /* the test's own malloc, not the decoder's allocator */
    return ok;
}

int main(void)
{
    const char *why = "";
    if (gi_cuda_device_count(&why) == 0) {
        printf("skip: %s\n", why);
        return 77;
    }
    const int small = getenv("GPUIMG_TEST_SMALL") != NULL;
    th_seed();
    /* ncomp, Adobe transform, JFIF, R/G/B ids: every branch of the colour choice */
    static const int kinds[][4] = {{1, -1, 1, 0}, {3, -1, 1, 0}, {3, -1, 0, 1}, {3, 0, 0, 0},
                                   {3, 1, 0, 0}, {4, 0, 0, 0}, {4, 2, 0, 0}, {4, -1, 0, 0}};
    for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
        for (size_t s = 0; s < sizeof samplings / sizeof *samplings; s++)
            for (int out = 1; out <= 3; out += 2)
                for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++) {
                    if (sizes[z][0] * sizes[z][1] > (small ? 20000 : 1000000) &&
                        (s % 3 != 0 || out == 1))
                        continue; /* the large sizes for a third of the samplings */
                    if (small && sizes[z][0] * sizes[z][1] > 20000) continue;
                    layout l = {.ncomp = kinds[k][0], .adobe = kinds[k][1], .jfif = kinds[k][2],
                                .rgb_ids = kinds[k][3], .out_channels = out};
                    if (kinds[k][0] == 1 && s > 0) continue; /* gray: one component, 1x1 */
                    memcpy(l.hv, samplings[s], sizeof l.hv);
                    if (l.ncomp == 1) l.hv[0][0] = l.hv[0][1] = 1;
                    compare_one(&l, sizes[z][0], sizes[z][1], 0);
                    if (z < 6) compare_one(&l, sizes[z][0], sizes[z][1], 1);
                }
    return th_finish();
}
