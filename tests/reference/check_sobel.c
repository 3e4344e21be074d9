/* Sobel against the double reference: the library computes the magnitude in
 * double from the same integer gradients, so every byte must be equal. */
#include "checks.h"
#include "ref_ops.h"
#include "../harness.h"
#include "../testimg.h"

#include <stdio.h>

#define NVARIANTS 6

static gi_sobel_params variant(int v, gi_border border)
{
    gi_sobel_params p;
    gi_sobel_params_default(&p);
    p.border = border;
    p.gray = v >= 4;
    switch (v % 4) {
    case 0: break; /* plain magnitude */
    case 1: p.scale = th_rand_int(0, 1) ? 0.5 : th_rand_double(0.05, 4.0); break;
    case 2: p.use_threshold = 1; p.threshold = th_rand_double(0.0, 400.0); break;
    case 3: p.use_threshold = 1; p.scale = 0.5; p.threshold = th_rand_int(0, 300); break;
    }
    return p;
}

static void sobel_case(gi_context *ctx, int w, int h, int ch, const gi_sobel_params *p)
{
    char label[48], why[96];
    int ow, oh, och;
    gi_image src = ti_random(w, h, ch), dst, want;
    gi_sobel_size(&src, p, &ow, &oh, &och);
    ref_border_label(p->border, label, sizeof label);
    th_check(ow == w && oh == h && och == (p->gray ? 1 : ch),
             "gi_sobel_size(%dx%dx%d, gray=%d) = %dx%dx%d", w, h, ch, p->gray, ow, oh, och);
    dst = ti_blank(w, h, p->gray ? 1 : ch);
    want = ti_blank(w, h, p->gray ? 1 : ch);
    if (th_check(gi_sobel(ctx, &src, &dst, p) == GI_OK, "sobel %dx%dx%d: %s", w, h, ch,
                 gi_last_error())) {
        ref_sobel(&src, p, &want);
        th_check(ti_same(&dst, &want, why, sizeof why),
                 "sobel %dx%dx%d %s scale=%g %s%g gray=%d: %s (library vs reference)", w, h,
                 ch, label, p->scale, p->use_threshold ? "threshold=" : "", p->use_threshold ?
                 p->threshold : 0.0, p->gray, why);
        th_check(ti_padding_intact(&dst), "sobel %dx%dx%d: wrote into the row padding", w, h, ch);
    }
    ti_free(&src);
    ti_free(&dst);
    ti_free(&want);
}

void check_sobel(gi_context *ctx)
{
    for (int s = 0; s < REF_NSIZES; s++)
        for (int b = 0; b < REF_NBORDERS; b++)
            for (int ch = 1; ch <= 4; ch++)
                for (int v = 0; v < NVARIANTS; v++) {
                    gi_sobel_params p = variant(v, ref_border(b));
                    sobel_case(ctx, ref_sizes[s][0], ref_sizes[s][1], ch, &p);
                }
}
