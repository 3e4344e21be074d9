#include <gpuimg.h>
#include <stdio.h>

/* golden_test GOLDEN OUT: exit 0 when OUT matches GOLDEN within +-1 per sample. */
int main(int argc, char **argv)
{
    if (argc != 3) return 2;
    gi_image golden = {0}, out = {0};
    gi_context *ctx = NULL;
    gi_compare_result r;
    gi_compare_params p;
    gi_compare_params_default(&p);
    p.tolerance = 1;
    int rc = 2;
    if (gi_load_file(&golden, argv[1], NULL) == GI_OK &&
        gi_load_file(&out, argv[2], NULL) == GI_OK &&
        gi_context_create(&ctx, NULL) == GI_OK) {
        if (golden.width != out.width || golden.height != out.height ||
            golden.channels != out.channels) {
            printf("%s: size or channels differ\n", argv[2]);
            rc = 1;
        } else if (gi_compare(ctx, &golden, &out, &p, &r) == GI_OK) {
            printf("%s: %llu pixels differ, max %d, PSNR %.2f dB, SSIM %.6f\n", argv[2],
                   (unsigned long long)r.different_pixels, r.max_abs_diff[0], r.psnr, r.ssim);
            rc = r.different_pixels == 0 ? 0 : 1;
        }
    }
    if (rc == 2) fprintf(stderr, "golden_test: %s\n", gi_last_error());
    gi_context_destroy(ctx);
    gi_image_free(&golden);
    gi_image_free(&out);
    return rc;
}
