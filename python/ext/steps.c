/* Steps as the package hands them over, one tuple per step, its kind
 * first (gi_op_kind), the values already resolved from names:
 *   (GI_OP_BLUR, kernel, sigma, radius, border, border_value)
 *   (GI_OP_SOBEL, scale, use_threshold, threshold, gray, border, border_value)
 *   (GI_OP_TRANSFORM, transform)
 *   (GI_OP_HIST, bins)
 *   (GI_OP_CONVOLVE, mask (float64 bytes, rows top first), width, height,
 *    normalize, border, border_value)
 *   (GI_OP_RESIZE, width, height, scale, fit, filter)
 *   (GI_OP_CROP, x, y, width, height, centre)
 * Ranges the library checks (sigma, scale, bins, mask sizes) are left to
 * it, so its messages reach Python; enumerations are checked here. */
#include <string.h>

#include "ext.h"

static int border_of(int mode, int value, gi_border *b)
{
    if (mode < GI_BORDER_ZERO || mode > GI_BORDER_WRAP) {
        PyErr_Format(PyExc_ValueError, "unknown border mode %d", mode);
        return -1;
    }
    if (value < 0 || value > 255) {
        PyErr_Format(PyExc_ValueError, "border_value %d: must be an integer from 0 to 255", value);
        return -1;
    }
    *b = (gi_border){(gi_border_mode)mode, (uint8_t)value};
    return 0;
}

static int parse_blur(PyObject *t, gi_op *op)
{
    int kind, kernel, radius, mode, value;
    double sigma;
    if (!PyArg_ParseTuple(t, "iidiii:blur step", &kind, &kernel, &sigma, &radius, &mode, &value))
        return -1;
    if (kernel != GI_BLUR_GAUSSIAN && kernel != GI_BLUR_BOX) {
        PyErr_Format(PyExc_ValueError, "unknown blur kernel %d", kernel);
        return -1;
    }
    gi_blur_params_default(&op->blur);
    op->blur.kernel = (gi_blur_kernel)kernel;
    op->blur.sigma = sigma;
    op->blur.radius = radius;
    return border_of(mode, value, &op->blur.border);
}

static int parse_sobel(PyObject *t, gi_op *op)
{
    int kind, use_threshold, gray, mode, value;
    double scale, threshold;
    if (!PyArg_ParseTuple(t, "idpdpii:sobel step", &kind, &scale, &use_threshold, &threshold,
                          &gray, &mode, &value))
        return -1;
    gi_sobel_params_default(&op->sobel);
    op->sobel.scale = scale;
    op->sobel.use_threshold = use_threshold;
    op->sobel.threshold = threshold;
    op->sobel.gray = gray;
    return border_of(mode, value, &op->sobel.border);
}

static int parse_convolve(PyObject *t, gi_op *op, double **mask)
{
    int kind, w, h, normalize, mode, value;
    Py_buffer bytes;
    if (!PyArg_ParseTuple(t, "iy*iipii:convolve step", &kind, &bytes, &w, &h, &normalize, &mode,
                          &value))
        return -1;
    int rc = -1;
    if (w < 1 || h < 1 || w > GI_CONVOLVE_MAX_SIZE || h > GI_CONVOLVE_MAX_SIZE)
        PyErr_Format(PyExc_ValueError, "the mask is %dx%d; at most %dx%d", w, h,
                     GI_CONVOLVE_MAX_SIZE, GI_CONVOLVE_MAX_SIZE);
    else if (bytes.len != (Py_ssize_t)sizeof(double) * w * h)
        PyErr_SetString(PyExc_ValueError, "the mask's bytes do not match its size");
    else if (!(*mask = PyMem_Malloc((size_t)bytes.len)))
        PyErr_NoMemory();
    else {
        memcpy(*mask, bytes.buf, (size_t)bytes.len);
        op->convolve = (gi_convolve_params){.width = w, .height = h, .mask = *mask,
                                            .normalize = normalize};
        rc = border_of(mode, value, &op->convolve.border);
    }
    PyBuffer_Release(&bytes);
    return rc;
}

static int parse_resize(PyObject *t, gi_op *op)
{
    int kind, fit, filter;
    gi_resize_params_default(&op->resize);
    gi_resize_params *p = &op->resize;
    if (!PyArg_ParseTuple(t, "iiidii:resize step", &kind, &p->width, &p->height, &p->scale, &fit,
                          &filter))
        return -1;
    if (fit < GI_FIT_INSIDE || fit > GI_FIT_COVER || filter < GI_RESIZE_LANCZOS3 ||
        filter > GI_RESIZE_NEAREST) {
        PyErr_Format(PyExc_ValueError, "unknown resize fit %d or filter %d", fit, filter);
        return -1;
    }
    p->fit = (gi_resize_fit)fit;
    p->filter = (gi_resize_filter)filter;
    return 0;
}

static int parse_one(PyObject *t, gi_op *op, double **mask)
{
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) < 1) {
        PyErr_SetString(PyExc_TypeError, "a step is a tuple starting with its kind");
        return -1;
    }
    long kind = PyLong_AsLong(PyTuple_GET_ITEM(t, 0));
    if (kind == -1 && PyErr_Occurred()) return -1;
    memset(op, 0, sizeof *op);
    op->kind = (gi_op_kind)kind;
    int unused;
    switch (kind) {
    case GI_OP_BLUR: return parse_blur(t, op);
    case GI_OP_SOBEL: return parse_sobel(t, op);
    case GI_OP_CONVOLVE: return parse_convolve(t, op, mask);
    case GI_OP_TRANSFORM: {
        int tr;
        if (!PyArg_ParseTuple(t, "ii:transform step", &unused, &tr)) return -1;
        op->transform = (gi_transform)tr; /* the library refuses unknown ones */
        return 0;
    }
    case GI_OP_HIST:
        return PyArg_ParseTuple(t, "ii:hist step", &unused, &op->bins) ? 0 : -1;
    case GI_OP_RESIZE: return parse_resize(t, op);
    case GI_OP_CROP:
        return PyArg_ParseTuple(t, "iiiiip:crop step", &unused, &op->crop.x, &op->crop.y,
                                &op->crop.width, &op->crop.height, &op->crop.centre)
                   ? 0
                   : -1;
    }
    PyErr_Format(PyExc_ValueError, "unknown step kind %ld", kind);
    return -1;
}

int gpx_steps_parse(PyObject *seq, gpx_steps *out)
{
    memset(out, 0, sizeof *out);
    PyObject *fast = PySequence_Fast(seq, "steps must be a sequence");
    if (!fast) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(fast);
    int rc = 0;
    if (n < 1 || n > GI_MAX_STEPS) {
        PyErr_Format(PyExc_ValueError, "%zd steps: a chain has 1..%d", n, GI_MAX_STEPS);
        rc = -1;
    }
    for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
        rc = parse_one(PySequence_Fast_GET_ITEM(fast, i), &out->ops[i], &out->masks[i]);
        out->n = (int)i + 1;
    }
    Py_DECREF(fast);
    if (rc) gpx_steps_free(out);
    return rc;
}

void gpx_steps_free(gpx_steps *s)
{
    for (int i = 0; i < GI_MAX_STEPS; i++) {
        PyMem_Free(s->masks[i]);
        s->masks[i] = NULL;
    }
    s->n = 0;
}
