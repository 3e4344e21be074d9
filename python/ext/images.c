/* Images between Python and gpuimg.h: any uint8 (8-bit) or native uint16
 * (16-bit) buffer whose pixels are contiguous within each row is used in place (the library takes a row
 * stride); the package copies other layouts before they get here. Pixels
 * the library allocated (gi_load_file) are handed to numpy without a copy
 * through a small owner that exports them as a buffer. */
#include <limits.h>
#include <string.h>

#include "ext.h"

static int fail_layout(gpx_host_image *h, const char *role, const char *why)
{
    PyErr_Format(PyExc_ValueError, "%s: %s", role, why);
    PyBuffer_Release(&h->view);
    return -1;
}

int gpx_host_image_get(PyObject *obj, int writable, const char *role, gpx_host_image *out)
{
    memset(out, 0, sizeof *out);
    int flags = writable ? PyBUF_RECORDS : PyBUF_RECORDS_RO;
    if (PyObject_GetBuffer(obj, &out->view, flags) != 0) {
        PyErr_Format(PyExc_TypeError, "%s: expected a%s uint8 or uint16 array, not %.80s", role,
                     writable ? " writable" : "", Py_TYPE(obj)->tp_name);
        return -1;
    }
    const Py_buffer *v = &out->view;
    const char *fmt = v->format ? v->format : "B";
    /* '=' and '@' are the machine's order; '<' or '>' only where it is */
    const char native = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? '<' : '>';
    if (*fmt == '=' || *fmt == '@' || *fmt == native) fmt++;
    else if ((*fmt == '<' || *fmt == '>') && strcmp(fmt + 1, "B") == 0) fmt++;
    const Py_ssize_t item = v->itemsize;
    if (!((item == 1 && strcmp(fmt, "B") == 0) || (item == 2 && strcmp(fmt, "H") == 0)))
        return fail_layout(out, role, "expected uint8 or uint16 (native byte order) samples");
    if (v->ndim != 2 && v->ndim != 3)
        return fail_layout(out, role, "expected a (height, width) or (height, width, channels) array");
    Py_ssize_t h = v->shape[0], w = v->shape[1], c = v->ndim == 3 ? v->shape[2] : 1;
    if (h < 1 || w < 1 || h > INT_MAX || w > INT_MAX)
        return fail_layout(out, role, "height and width must be 1 or more (and fit an int)");
    if (c < 1 || c > 4) return fail_layout(out, role, "expected 1 to 4 channels");
    /* Strides of dimensions of length 1 say nothing: numpy may set any. */
    int pixel_ok = w == 1 || v->strides[1] == c * item;
    int sample_ok = c == 1 || v->ndim == 2 || v->strides[2] == item;
    Py_ssize_t stride = h == 1 ? w * c * item : v->strides[0];
    if (!pixel_ok || !sample_ok || stride < w * c * item || stride % item != 0)
        return fail_layout(out, role, "pixels must be contiguous within each row, rows top to bottom");
    out->img = (gi_image){.width = (int)w, .height = (int)h, .channels = (int)c,
                          .stride = (size_t)stride, .data = v->buf, .owns_data = 0,
                          .depth = (int)item * 8};
    return 0;
}

void gpx_host_image_release(gpx_host_image *h)
{
    PyBuffer_Release(&h->view);
}

/* ---------------------------------------------------------------- pixels owner */

typedef struct {
    PyObject_HEAD
    gi_image img;
    Py_ssize_t shape[3], strides[3];
} gpx_pixels;

PyObject *gpx_pixels_new(gi_image *img)
{
    gpx_pixels *p = PyObject_New(gpx_pixels, &gpx_pixels_type);
    if (!p) {
        gi_image_free(img);
        return NULL;
    }
    p->img = *img;
    memset(img, 0, sizeof *img);
    p->shape[0] = p->img.height;
    p->shape[1] = p->img.width;
    p->shape[2] = p->img.channels;
    const Py_ssize_t item = gi_image_sample_bytes(&p->img);
    p->strides[0] = (Py_ssize_t)p->img.stride;
    p->strides[1] = p->img.channels * item;
    p->strides[2] = item;
    return (PyObject *)p;
}

static void pixels_dealloc(PyObject *self)
{
    gi_image_free(&((gpx_pixels *)self)->img);
    PyObject_Free(self);
}

static int pixels_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    gpx_pixels *p = (gpx_pixels *)self;
    /* (H, W, C) with strides is the one layout offered; numpy asks for it */
    if ((flags & PyBUF_STRIDES) != PyBUF_STRIDES) {
        PyErr_SetString(PyExc_BufferError, "gpuimg pixels are exported with strides only");
        return -1;
    }
    view->buf = p->img.data;
    view->obj = Py_NewRef(self);
    const Py_ssize_t item = gi_image_sample_bytes(&p->img);
    view->len = (Py_ssize_t)(p->img.stride * (size_t)(p->img.height - 1)) +
                (Py_ssize_t)p->img.width * p->img.channels * item;
    view->readonly = 0;
    view->itemsize = item;
    view->format = (flags & PyBUF_FORMAT) ? (item == 2 ? "H" : "B") : NULL;
    view->ndim = 3;
    view->shape = p->shape;
    view->strides = p->strides;
    view->suboffsets = NULL;
    view->internal = NULL;
    return 0;
}

static PyBufferProcs pixels_as_buffer = {.bf_getbuffer = pixels_getbuffer};

PyTypeObject gpx_pixels_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gpuimg._gpuimg.Pixels",
    .tp_basicsize = sizeof(gpx_pixels),
    .tp_dealloc = pixels_dealloc,
    .tp_as_buffer = &pixels_as_buffer,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Pixels decoded by gpuimg, exported as an (H, W, C) uint8 or uint16 buffer.",
};
