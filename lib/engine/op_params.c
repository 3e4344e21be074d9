/* The table of every operation's parameters (gpuimg.h, parameters) and the
 * one check of a value against its range, which the command line, Python
 * and gpuimg serve's decoder all call. */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/gi_error.h"

#define AT(field) offsetof(gi_op, field)

static const char *const blur_kernels[] = {"gaussian", "box", NULL};
static const char *const transforms[] = {"transpose", "rotate90", "rotate180", "rotate270",
                                         "fliph", "flipv", NULL};
static const char *const resize_fits[] = {"inside", "fill", "cover", NULL};
static const char *const resize_filters[] = {"lanczos3", "lanczos2", "cubic", "linear", "area",
                                             "nearest", NULL};

/* Grouped by operation, each group in --help's order, which is also the
 * order of gpuimg serve's requests (lib/serve/request.c). The ranges are
 * those of 8-bit images; where an image's depth widens one (hist's bins,
 * sobel's scale and threshold at 16 bits), the operation checks the
 * wider rule itself. Each row: operation, name, short option, value name,
 * type, form, min, max, min excluded, choices, default, the default as
 * help says it, help, where in gi_op, where its "given" flag is. */
static const gi_op_param table[] = {
    {GI_OP_BLUR, "kernel", 'k', "K", GI_PARAM_CHOICE, GI_PARAM_OPTION, 0, 0, 0, blur_kernels,
     GI_BLUR_GAUSSIAN, "gaussian", "the kernel; box is the (2R+1)^2 mean", AT(blur.kernel), 0},
    {GI_OP_BLUR, "sigma", 's', "S", GI_PARAM_DOUBLE, GI_PARAM_OPTION, 0, INFINITY, 1, NULL, 1, "1",
     "Gaussian standard deviation", AT(blur.sigma), 0},
    {GI_OP_BLUR, "radius", 0, "R", GI_PARAM_INT, GI_PARAM_OPTION, 0, GI_BLUR_MAX_RADIUS, 0, NULL,
     -1, "ceil(3 * sigma)", "kernel radius", AT(blur.radius), 0},
    {GI_OP_BLUR, "border", 0, NULL, GI_PARAM_BORDER, GI_PARAM_OWN, 0, 0, 0, NULL, 0, "mirror",
     "how pixels outside the image read", AT(blur.border), 0},

    {GI_OP_SOBEL, "scale", 0, "S", GI_PARAM_DOUBLE, GI_PARAM_OPTION, 0, INFINITY, 0, NULL, 1, "1",
     "multiply the magnitude by S", AT(sobel.scale), 0},
    {GI_OP_SOBEL, "threshold", 't', "T", GI_PARAM_DOUBLE, GI_PARAM_OPTION, -INFINITY, INFINITY, 0, NULL,
     0, NULL, "binary edges: 255 (65535 at 16 bits) where scale * magnitude >= T, else 0", AT(sobel.threshold),
     AT(sobel.use_threshold)},
    {GI_OP_SOBEL, "gray", 'g', NULL, GI_PARAM_FLAG, GI_PARAM_OPTION, 0, 1, 0, NULL, 0, NULL,
     "filter luma (77R + 150G + 29B + 128) >> 8; write one channel", AT(sobel.gray), 0},
    {GI_OP_SOBEL, "border", 0, NULL, GI_PARAM_BORDER, GI_PARAM_OWN, 0, 0, 0, NULL, 0, "mirror",
     "how pixels outside the image read", AT(sobel.border), 0},

    {GI_OP_TRANSFORM, "transform", 0, NULL, GI_PARAM_CHOICE, GI_PARAM_OWN, 0, 0, 0, transforms,
     GI_TRANSPOSE, NULL, "the permutation: the command's name and its word", AT(transform), 0},

    {GI_OP_HIST, "bins", 'b', "N", GI_PARAM_INT, GI_PARAM_OPTION, 1, GI_HIST_MAX_BINS, 0, NULL,
     256, "256", "number of bins: 1..256 for 8-bit images, 1..65536 for 16-bit ones; value v"
     " falls in bin v * N / 256 (16 bits: v * N / 65536)", AT(bins), 0},

    {GI_OP_CONVOLVE, "kernel", 'k', "MASK", GI_PARAM_MASK, GI_PARAM_OWN, 1, GI_CONVOLVE_MAX_SIZE,
     0, NULL, 0, NULL, "the mask: a file, or rows like \"1 2 1; 2 4 2; 1 2 1\"", AT(convolve), 0},
    {GI_OP_CONVOLVE, "normalize", 'n', NULL, GI_PARAM_FLAG, GI_PARAM_OPTION, 0, 1, 0, NULL, 0,
     NULL, "divide the mask by the sum of its values", AT(convolve.normalize), 0},
    {GI_OP_CONVOLVE, "border", 0, NULL, GI_PARAM_BORDER, GI_PARAM_OWN, 0, 0, 0, NULL, 0, "mirror",
     "how pixels outside the image read", AT(convolve.border), 0},

    {GI_OP_RESIZE, "width", 'W', "W", GI_PARAM_INT, GI_PARAM_OPTION, 1, GI_RESIZE_MAX_SIDE, 0,
     NULL, 0, NULL, "output width; alone, the height keeps the aspect ratio", AT(resize.width), 0},
    {GI_OP_RESIZE, "height", 'H', "H", GI_PARAM_INT, GI_PARAM_OPTION, 1, GI_RESIZE_MAX_SIDE, 0,
     NULL, 0, NULL, "output height; alone, the width keeps the aspect ratio", AT(resize.height),
     0},
    {GI_OP_RESIZE, "scale", 0, "S", GI_PARAM_DOUBLE, GI_PARAM_OPTION, 0, INFINITY, 1, NULL, 0, NULL,
     "scale both sides by S: 0.5 halves, 2 doubles", AT(resize.scale), 0},
    {GI_OP_RESIZE, "fit", 0, "FIT", GI_PARAM_CHOICE, GI_PARAM_OPTION, 0, 0, 0, resize_fits,
     GI_FIT_INSIDE, "inside", "needs both a width and a height: the largest size of the "
     "image's aspect within that box (inside), exactly the box, stretched (fill), or the "
     "smallest that covers it (cover)", AT(resize.fit), 0},
    {GI_OP_RESIZE, "filter", 0, "F", GI_PARAM_CHOICE, GI_PARAM_OPTION, 0, 0, 0, resize_filters,
     GI_RESIZE_LANCZOS3, "lanczos3", "the resampling filter; cubic is Catmull-Rom, area the box average",
     AT(resize.filter), 0},

    {GI_OP_CROP, "x", 0, "X", GI_PARAM_INT, GI_PARAM_POSITIONAL, 0, INT32_MAX, 0, NULL, 0, NULL,
     "left column of the rectangle", AT(crop.x), 0},
    {GI_OP_CROP, "y", 0, "Y", GI_PARAM_INT, GI_PARAM_POSITIONAL, 0, INT32_MAX, 0, NULL, 0, NULL,
     "top row of the rectangle", AT(crop.y), 0},
    {GI_OP_CROP, "width", 0, "W", GI_PARAM_INT, GI_PARAM_POSITIONAL, 0, INT32_MAX, 0, NULL, 0,
     NULL, "width of the rectangle; 0 reaches the right edge", AT(crop.width), 0},
    {GI_OP_CROP, "height", 0, "H", GI_PARAM_INT, GI_PARAM_POSITIONAL, 0, INT32_MAX, 0, NULL, 0,
     NULL, "height of the rectangle; 0 reaches the bottom edge", AT(crop.height), 0},
    {GI_OP_CROP, "centre", 0, NULL, GI_PARAM_FLAG, GI_PARAM_OWN, 0, 1, 0, NULL, 0, NULL,
     "take W H from the middle (--gravity centre)", AT(crop.centre), 0},
};

#define TABLE_SIZE ((int)(sizeof table / sizeof *table))

const gi_op_param *gi_op_params(gi_op_kind kind, int *count)
{
    int first = 0;
    if (!count) return NULL;
    while (first < TABLE_SIZE && table[first].op != kind) first++;
    int n = 0;
    while (first + n < TABLE_SIZE && table[first + n].op == kind) n++;
    *count = n;
    return n ? &table[first] : NULL;
}

const gi_op_param *gi_op_param_find(gi_op_kind kind, const char *name)
{
    int n;
    const gi_op_param *p = gi_op_params(kind, &n);
    for (int i = 0; i < n && name; i++)
        if (strcmp(p[i].name, name) == 0) return &p[i];
    return NULL;
}

static int choice_count(const gi_op_param *p)
{
    int n = 0;
    while (p->choices[n]) n++;
    return n;
}

/* "expected gaussian or box", "expected inside, fill or cover". */
static gi_status no_such_choice(const gi_op_param *p, const char *shown)
{
    char list[256] = "";
    int n = choice_count(p);
    for (int i = 0; i < n; i++) {
        size_t len = strlen(list);
        snprintf(list + len, sizeof list - len, "%s%s", i == 0 ? "" : i == n - 1 ? " or " : ", ",
                 p->choices[i]);
    }
    return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s '%s': expected %s", p->name, shown, list);
}

gi_status gi_op_param_check(const gi_op_param *p, double v, const char *shown)
{
    GI__REFUSE_NULL(p, shown);
    const char *name = p->name;
    switch (p->type) {
    case GI_PARAM_DOUBLE:
        if (!isfinite(v))
            return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s '%s': not a finite number", name, shown);
        if (p->min_exclusive && !(v > p->min))
            return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s '%s': must be greater than %g", name,
                            shown, p->min);
        if (v < p->min)
            return p->min == 0 ? gi__fail(GI_ERR_INVALID_ARGUMENT, "%s '%s': must not be negative",
                                          name, shown)
                               : gi__fail(GI_ERR_INVALID_ARGUMENT, "%s '%s': must be at least %g",
                                          name, shown, p->min);
        if (v > p->max)
            return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s '%s': must be at most %g", name, shown,
                            p->max);
        return GI_OK;
    case GI_PARAM_INT:
        if (!(v >= p->min && v <= p->max) || v != floor(v))
            return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s '%s': must be an integer from %.0f to %.0f",
                            name, shown, p->min, p->max);
        return GI_OK;
    case GI_PARAM_CHOICE:
        if (!(v >= 0 && v < choice_count(p)) || v != floor(v)) return no_such_choice(p, shown);
        return GI_OK;
    case GI_PARAM_FLAG:
        if (v != 0 && v != 1)
            return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s '%s': expected 0 or 1", name, shown);
        return GI_OK;
    default:
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s: not a single value", name);
    }
}

gi_status gi_op_param_set(const gi_op_param *p, double v, const char *shown, gi_op *op)
{
    GI__REFUSE_NULL(p, shown, op);
    gi_status st = gi_op_param_check(p, v, shown);
    if (st != GI_OK) return st;
    char *at = (char *)op + p->offset;
    if (p->type == GI_PARAM_DOUBLE) *(double *)at = v;
    else *(int *)at = (int)v; /* ints and enums alike: gpuimg.h's enums are int-sized */
    if (p->given_offset) *(int *)((char *)op + p->given_offset) = 1;
    return GI_OK;
}

double gi_op_param_get(const gi_op_param *p, const gi_op *op)
{
    if (!p || !op) return 0;
    const char *at = (const char *)op + p->offset;
    if (p->type == GI_PARAM_DOUBLE) return *(const double *)at;
    if (p->type == GI_PARAM_INT || p->type == GI_PARAM_CHOICE || p->type == GI_PARAM_FLAG)
        return *(const int *)at;
    return 0;
}

gi_status gi_op_param_parse(const gi_op_param *p, const char *text, gi_op *op)
{
    GI__REFUSE_NULL(p, op);
    if (p->type == GI_PARAM_FLAG && !text) return gi_op_param_set(p, 1, "", op);
    if (!text) return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s: needs a value", p->name);
    char *end;
    errno = 0;
    switch (p->type) {
    case GI_PARAM_DOUBLE: {
        double v = strtod(text, &end);
        /* decimal only, as the integers are read (base 10) and as Python's
         * float() reads a str: strtod's hexadecimal made --scale 0x10 16 */
        if (end == text || *end || strpbrk(text, "xX"))
            return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s '%s': not a number", p->name, text);
        if (errno == ERANGE && isinf(v)) v = INFINITY; /* "not a finite number" */
        return gi_op_param_set(p, v, text, op);
    }
    case GI_PARAM_INT: {
        long v = strtol(text, &end, 10);
        if (end == text || *end || errno == ERANGE) v = (long)p->min - 1; /* the range message */
        return gi_op_param_set(p, (double)v, text, op);
    }
    case GI_PARAM_CHOICE:
        for (int i = 0; p->choices[i]; i++)
            if (strcmp(text, p->choices[i]) == 0) return gi_op_param_set(p, i, text, op);
        return no_such_choice(p, text);
    case GI_PARAM_FLAG:
        if (strcmp(text, "0") == 0 || strcmp(text, "1") == 0)
            return gi_op_param_set(p, text[0] - '0', text, op);
        return gi_op_param_check(p, -1, text);
    default:
        return gi__fail(GI_ERR_INVALID_ARGUMENT, "%s: not a single value", p->name);
    }
}

void gi_op_default(gi_op_kind kind, gi_op *op)
{
    if (!op) return;
    memset(op, 0, sizeof *op);
    op->kind = kind;
    int n;
    const gi_op_param *p = gi_op_params(kind, &n);
    for (int i = 0; i < n; i++) {
        char *at = (char *)op + p[i].offset;
        switch (p[i].type) {
        case GI_PARAM_DOUBLE: *(double *)at = p[i].default_value; break;
        case GI_PARAM_INT:
        case GI_PARAM_CHOICE:
        case GI_PARAM_FLAG: *(int *)at = (int)p[i].default_value; break;
        case GI_PARAM_BORDER: ((gi_border *)at)->mode = GI_BORDER_MIRROR; break;
        case GI_PARAM_MASK: break;
        }
    }
}
