/* libFuzzer target: the CLI option parser (cmd/options.c, compiled in)
 * on an argv cut from the input at NUL bytes, with the common options, the
 * image options (when the first byte is odd) and one option per value
 * parser that commands use, --kernel parsing mask text (cmd/mask_parse.c).
 * Oracles: what a successful parse stored is inside the documented ranges,
 * and a second parse of a fresh copy of the same argv (the first copy
 * freed) gives the same result: cli_parse must not keep state between
 * calls. */
#include <math.h>
#include <string.h>

#include "fuzz.h"
#include "mask_parse.h"
#include "options.h"

#define MAX_ARGS 64

typedef struct {
    double any, positive, nonneg;
    int radius, flag;
    parsed_mask mask;
} own_values;

static int opt_radius(const cli_option *o, const char *arg)
{
    return opt_int_range(o, arg, 0, GI_BLUR_MAX_RADIUS);
}

/* As gpuimg convolve reads --kernel, without the file lookup. */
static int opt_mask_text(const cli_option *o, const char *arg)
{
    char why[256];
    return mask_parse_text(arg, o->target, why, sizeof why) == 0 ? 0 : -1;
}

static void check_mask(const parsed_mask *m)
{
    FUZZ_REQUIRE(m->width >= 1 && m->width <= GI_CONVOLVE_MAX_SIZE);
    FUZZ_REQUIRE(m->height >= 1 && m->height <= GI_CONVOLVE_MAX_SIZE);
    if (!(m->width & 1) || !(m->height & 1)) return;
    gi_convolve_params p = {m->width, m->height, m->values, 0, {GI_BORDER_MIRROR, 0}};
    static gi_convolve_weights w;
    if (gi_convolve_quantize(&p, &w) == GI_OK) FUZZ_REQUIRE(w.shift >= 0 && w.shift <= 24);
}

static void check_common(const cli_common *c)
{
    FUZZ_REQUIRE(c->verbosity >= 0 && c->verbosity <= 2);
    FUZZ_REQUIRE((unsigned)c->device <= GI_DEVICE_CUDA);
    FUZZ_REQUIRE(c->jobs >= 0 && c->jobs <= 256);
    FUZZ_REQUIRE((unsigned)c->border.mode <= GI_BORDER_WRAP);
    FUZZ_REQUIRE(c->quality >= 1 && c->quality <= 100);
    FUZZ_REQUIRE(c->png_level >= 0 && c->png_level <= 12);
    FUZZ_REQUIRE((unsigned)c->png_filter <= GI_PNG_FILTER_PAETH);
    FUZZ_REQUIRE((unsigned)c->tiff_compression <= GI_TIFF_UNCOMPRESSED);
    FUZZ_REQUIRE(c->shard >= 0 && c->shard < c->shard_count);
    FUZZ_REQUIRE(c->limits.max_pixels > 0 && c->limits.max_input_bytes > 0);
}

/* Parses a fresh copy of the input; returns cli_parse's status and, on
 * success, checks what it stored. */
static int parse_once(const uint8_t *data, size_t size, int *positional_count)
{
    /* The strings live in one NUL-terminated copy of the input. */
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    char *argv[MAX_ARGS + 1] = {"fuzz"};
    int argc = 1;
    for (size_t at = 1; at <= size && argc < MAX_ARGS; at += strlen(text + at) + 1)
        argv[argc++] = text + at;
    argv[argc] = NULL;

    own_values v = {0};
    const cli_option own[] = {
        {"any", 'a', "X", "", opt_double, &v.any},
        {"positive", 'p', "X", "", opt_double_positive, &v.positive},
        {"nonneg", 'n', "X", "", opt_double_nonneg, &v.nonneg},
        {"radius", 0, "R", "", opt_radius, &v.radius},
        {"flag", 'f', NULL, "", opt_flag, &v.flag},
        {"kernel", 'k', "MASK", "", opt_mask_text, &v.mask},
        {0},
    };
    cli_common common;
    cli_common_init(&common, "fuzz");
    char **positional;
    int count = -1;
    int rc = cli_parse(argc, argv, &common, own, text[0] & 1, &positional, &count);
    if (rc == 0) {
        check_common(&common);
        FUZZ_REQUIRE(count >= 0 && count < argc && positional + count == argv + argc);
        FUZZ_REQUIRE(isfinite(v.any) && v.positive >= 0 && isfinite(v.positive) && v.nonneg >= 0);
        FUZZ_REQUIRE(v.radius >= 0 && v.radius <= GI_BLUR_MAX_RADIUS);
        if (v.mask.height) check_mask(&v.mask);
    }
    free(text);
    *positional_count = count;
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0 || size > 4096) return 0;
    int first_count, second_count;
    int first = parse_once(data, size, &first_count);
    int second = parse_once(data, size, &second_count);
    FUZZ_REQUIRE(first == second && first_count == second_count);
    return 0;
}
