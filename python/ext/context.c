/* gpuimg._gpuimg.Context: one gi_context, used by one thread at a time (a
 * lock taken with the GIL released, so other threads run meanwhile). The
 * package keeps a pool of them per device; a user's gpuimg.Context holds
 * one of its own, warm across calls. */
#include <string.h>

#include "ext.h"

typedef struct {
    PyObject_HEAD
    gi_context *ctx;
    PyThread_type_lock lock;
} gpx_context;

static int context_init(PyObject *op, PyObject *args, PyObject *kwargs)
{
    gpx_context *self = (gpx_context *)op;
    static char *names[] = {"device", "threads", "gpu", NULL};
    int device = GI_DEVICE_AUTO, threads = 0, gpu = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|iii:Context", names, &device, &threads, &gpu))
        return -1;
    if (device < GI_DEVICE_AUTO || device > GI_DEVICE_CUDA || threads < 0 || gpu < 0 ||
        gpu >= GI_MAX_GPUS) {
        PyErr_SetString(PyExc_ValueError, "device must be 0..2, threads >= 0 and gpu 0..63");
        return -1;
    }
    if (self->ctx) {
        PyErr_SetString(PyExc_RuntimeError, "Context is initialised already");
        return -1;
    }
    if (!self->lock && !(self->lock = PyThread_allocate_lock())) {
        PyErr_NoMemory();
        return -1;
    }
    gi_context_options o;
    gi_context_options_default(&o);
    o.device = (gi_device)device;
    o.cpu_threads = threads;
    o.gpu = gpu;
    gi_status st;
    gi_context *ctx = NULL;
    Py_BEGIN_ALLOW_THREADS
    st = gi_context_create(&ctx, &o);
    Py_END_ALLOW_THREADS
    if (st != GI_OK) return gpx_raise(st), -1;
    self->ctx = ctx;
    return 0;
}

static void context_dealloc(PyObject *op)
{
    gpx_context *self = (gpx_context *)op;
    if (self->ctx) {
        Py_BEGIN_ALLOW_THREADS
        gi_context_destroy(self->ctx);
        Py_END_ALLOW_THREADS
    }
    if (self->lock) PyThread_free_lock(self->lock);
    Py_TYPE(op)->tp_free(op);
}

/* Takes the context for this thread, the GIL released while waiting. */
static gi_context *take(gpx_context *self)
{
    if (!self->ctx) {
        PyErr_SetString(PyExc_ValueError, "the context is closed");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    PyThread_acquire_lock(self->lock, WAIT_LOCK);
    Py_END_ALLOW_THREADS
    if (!self->ctx) { /* closed while this thread waited */
        PyThread_release_lock(self->lock);
        PyErr_SetString(PyExc_ValueError, "the context is closed");
        return NULL;
    }
    return self->ctx;
}

static PyObject *context_close(PyObject *op, PyObject *unused)
{
    (void)unused;
    gpx_context *self = (gpx_context *)op;
    gi_context *ctx = self->ctx ? take(self) : NULL;
    if (!ctx) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    self->ctx = NULL;
    Py_BEGIN_ALLOW_THREADS
    gi_context_destroy(ctx);
    Py_END_ALLOW_THREADS
    PyThread_release_lock(self->lock);
    Py_RETURN_NONE;
}

/* The counts of the first `channels` channels and `bins` bins, as the
 * bytes of a native int64 array (C, bins). */
static PyObject *hist_result(const gi_histogram *h)
{
    PyObject *bytes = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)h->channels * h->bins * 8);
    if (!bytes) return NULL;
    int64_t *out = (int64_t *)PyBytes_AS_STRING(bytes);
    for (int c = 0; c < h->channels; c++)
        for (int b = 0; b < h->bins; b++) out[c * h->bins + b] = (int64_t)h->counts[c][b];
    return Py_BuildValue("(iiN)", h->channels, h->bins, bytes);
}

/* The chain's result size, or -1 with the library's message raised. */
static int result_size(const gi_image *src, const gpx_steps *steps, int *w, int *h, int *c)
{
    gi_status st = gi_apply_size(src, steps->ops, steps->n, w, h, c);
    return st == GI_OK ? 0 : (gpx_raise(st), -1);
}

static int ends_in_hist(const gpx_steps *s)
{
    return s->ops[s->n - 1].kind == GI_OP_HIST;
}

/* apply(src, steps, alloc): runs the steps on a host image; alloc((h, w, c),
 * depth) returns the writable array the result goes to (operations keep
 * the depth), which is returned; a
 * chain ending in hist returns (channels, bins, int64 counts as bytes). */
static PyObject *context_apply(PyObject *op, PyObject *args)
{
    gpx_context *self = (gpx_context *)op;
    PyObject *src_obj, *steps_obj, *alloc, *out = NULL;
    if (!PyArg_ParseTuple(args, "OOO:apply", &src_obj, &steps_obj, &alloc)) return NULL;
    gpx_host_image src, dst;
    gpx_steps steps;
    gi_histogram *hist = NULL; /* 2 MiB: on the heap */
    if (gpx_host_image_get(src_obj, 0, "image", &src)) return NULL;
    if (gpx_steps_parse(steps_obj, &steps)) goto release_src;
    int w, h, c;
    if (result_size(&src.img, &steps, &w, &h, &c)) goto release_steps;
    const int is_hist = ends_in_hist(&steps);
    if (is_hist && !(hist = PyMem_RawMalloc(sizeof *hist))) {
        PyErr_NoMemory();
        goto release_steps;
    }
    if (!is_hist) {
        out = PyObject_CallFunction(alloc, "((iii)i)", h, w, c, src.img.depth == 16 ? 16 : 8);
        if (!out) goto release_steps;
        if (gpx_host_image_get(out, 1, "result", &dst)) goto fail;
    }
    gi_context *ctx = take(self);
    if (!ctx) goto release_dst;
    gi_status st;
    Py_BEGIN_ALLOW_THREADS
    st = gi_apply(ctx, &src.img, steps.ops, steps.n, is_hist ? NULL : &dst.img, hist);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    if (!is_hist) gpx_host_image_release(&dst);
    if (st != GI_OK) {
        gpx_raise(st);
        goto fail;
    }
    if (is_hist) out = hist_result(hist);
    goto release_steps;
release_dst:
    if (!is_hist) gpx_host_image_release(&dst);
fail:
    Py_CLEAR(out);
release_steps:
    PyMem_RawFree(hist);
    gpx_steps_free(&steps);
release_src:
    gpx_host_image_release(&src);
    return out;
}

/* A device image from (address, height, width, channels, stride, depth). */
static int device_image(PyObject *t, const char *role, gi_image *img)
{
    unsigned long long address;
    int h, w, c, depth;
    Py_ssize_t stride;
    if (!PyArg_ParseTuple(t, "Kiiini", &address, &h, &w, &c, &stride, &depth)) {
        PyErr_Format(PyExc_TypeError, "%s: expected (address, height, width, channels, stride, "
                     "depth)", role);
        return -1;
    }
    if (stride < 0) {
        PyErr_Format(PyExc_ValueError, "%s: negative stride", role);
        return -1;
    }
    *img = (gi_image){.width = w, .height = h, .channels = c, .stride = (size_t)stride,
                      .data = (uint8_t *)(uintptr_t)address, .depth = depth};
    return 0;
}

/* apply_device(src, steps, alloc): as apply on device memory. src is
 * (address, height, width, channels, stride, depth); alloc((h, w, c), depth) returns
 * (array, address, stride) and the array is returned. */
static PyObject *context_apply_device(PyObject *op, PyObject *args)
{
    gpx_context *self = (gpx_context *)op;
    PyObject *src_obj, *steps_obj, *alloc, *got = NULL, *out = NULL;
    gi_image src, dst = {0};
    gpx_steps steps;
    gi_histogram *hist = NULL; /* 2 MiB: on the heap */
    if (!PyArg_ParseTuple(args, "OOO:apply_device", &src_obj, &steps_obj, &alloc)) return NULL;
    if (device_image(src_obj, "image", &src) || gpx_steps_parse(steps_obj, &steps)) return NULL;
    int w, h, c;
    if (result_size(&src, &steps, &w, &h, &c)) goto done;
    const int is_hist = ends_in_hist(&steps);
    if (is_hist && !(hist = PyMem_RawMalloc(sizeof *hist))) {
        PyErr_NoMemory();
        goto done;
    }
    if (!is_hist) {
        unsigned long long address;
        Py_ssize_t stride;
        got = PyObject_CallFunction(alloc, "((iii)i)", h, w, c, src.depth == 16 ? 16 : 8);
        if (!got) goto done;
        if (!PyTuple_Check(got) || !PyArg_ParseTuple(got, "OKn", &out, &address, &stride)) {
            out = NULL;
            PyErr_SetString(PyExc_TypeError, "alloc must return (array, address, stride)");
            goto done;
        }
        Py_INCREF(out);
        if (stride < 0) {
            PyErr_SetString(PyExc_ValueError, "result: negative stride");
            goto fail;
        }
        dst = (gi_image){.width = w, .height = h, .channels = c, .stride = (size_t)stride,
                         .data = (uint8_t *)(uintptr_t)address, .depth = src.depth};
    }
    gi_context *ctx = take(self);
    if (!ctx) goto fail;
    gi_status st;
    Py_BEGIN_ALLOW_THREADS
    st = gi_apply_device(ctx, &src, steps.ops, steps.n, is_hist ? NULL : &dst, hist);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    if (st != GI_OK) {
        gpx_raise(st);
        goto fail;
    }
    if (is_hist) out = hist_result(hist);
    goto done;
fail:
    Py_CLEAR(out);
done:
    PyMem_RawFree(hist);
    Py_XDECREF(got);
    gpx_steps_free(&steps);
    return out;
}

static PyObject *int_tuple(const int *v, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(v[i]));
    return t;
}

static PyObject *double_tuple(const double *v, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) PyTuple_SET_ITEM(t, i, PyFloat_FromDouble(v[i]));
    return t;
}

/* compare(expected, actual, tolerance, ssim) -> dict of gi_compare_result */
static PyObject *context_compare(PyObject *op, PyObject *args)
{
    gpx_context *self = (gpx_context *)op;
    PyObject *e_obj, *a_obj, *out = NULL;
    gi_compare_params p;
    gi_compare_params_default(&p);
    if (!PyArg_ParseTuple(args, "OOip:compare", &e_obj, &a_obj, &p.tolerance, &p.ssim))
        return NULL;
    gpx_host_image e, a;
    if (gpx_host_image_get(e_obj, 0, "expected", &e)) return NULL;
    if (gpx_host_image_get(a_obj, 0, "actual", &a)) goto release_e;
    gi_context *ctx = take(self);
    if (!ctx) goto release_a;
    gi_compare_result r;
    gi_status st;
    Py_BEGIN_ALLOW_THREADS
    st = gi_compare(ctx, &e.img, &a.img, &p, &r);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    if (st != GI_OK) {
        gpx_raise(st);
        goto release_a;
    }
    out = Py_BuildValue("{s:i,s:i,s:i,s:K,s:K,s:d,s:N,s:K,s:K,s:d,s:d,s:d,s:d,s:N}",
        "width", r.width, "height", r.height, "channels", r.channels,
        "pixels", (unsigned long long)r.pixels,
        "different_pixels", (unsigned long long)r.different_pixels,
        "different_percent", r.different_percent,
        "max_abs_diff", int_tuple(r.max_abs_diff, r.channels),
        "sum_abs_diff", (unsigned long long)r.sum_abs_diff,
        "sum_squared_diff", (unsigned long long)r.sum_squared_diff,
        "mean_abs_diff", r.mean_abs_diff, "mse", r.mse, "psnr", r.psnr, "ssim", r.ssim,
        "ssim_channel", double_tuple(r.ssim_channel, r.channels));
release_a:
    gpx_host_image_release(&a);
release_e:
    gpx_host_image_release(&e);
    return out;
}

/* The context's device words: backend() may wait for CUDA's start-up. */
static PyObject *context_backend(PyObject *op, PyObject *unused)
{
    (void)unused;
    gpx_context *self = (gpx_context *)op;
    gi_context *ctx = take(self);
    if (!ctx) return NULL;
    const char *name;
    Py_BEGIN_ALLOW_THREADS
    name = gi_context_backend(ctx);
    PyThread_release_lock(self->lock);
    Py_END_ALLOW_THREADS
    return PyUnicode_FromString(name);
}

static PyObject *context_last(PyObject *op, PyObject *unused)
{
    (void)unused;
    gpx_context *self = (gpx_context *)op;
    gi_context *ctx = take(self);
    if (!ctx) return NULL;
    PyObject *r = Py_BuildValue("(ssss)", gi_context_last_backend(ctx),
                                gi_context_last_choice(ctx), gi_context_last_fallback(ctx),
                                gi_context_fallback_reason(ctx));
    PyThread_release_lock(self->lock);
    return r;
}

/* last_times() -> (startup, upload, kernel, download) ms of the last operation */
static PyObject *context_last_times(PyObject *op, PyObject *unused)
{
    (void)unused;
    gpx_context *self = (gpx_context *)op;
    gi_context *ctx = take(self);
    if (!ctx) return NULL;
    gi_op_times t;
    gi_context_last_times(ctx, &t);
    PyThread_release_lock(self->lock);
    return Py_BuildValue("(dddd)", t.startup_ms, t.upload_ms, t.kernel_ms, t.download_ms);
}

static PyMethodDef context_methods[] = {
    {"apply", context_apply, METH_VARARGS, "apply(image, steps, alloc) on host memory"},
    {"apply_device", context_apply_device, METH_VARARGS,
     "apply_device(image, steps, alloc) on device memory"},
    {"compare", context_compare, METH_VARARGS, "compare(expected, actual, tolerance, ssim)"},
    {"backend", context_backend, METH_NOARGS, "'cpu' or 'cuda': the backend settled on"},
    {"last", context_last, METH_NOARGS,
     "(last backend, last choice, last fallback, fallback reason)"},
    {"last_times", context_last_times, METH_NOARGS,
     "(startup, upload, kernel, download): ms of the last operation (gi_context_last_times)"},
    {"close", context_close, METH_NOARGS, "releases the context (idempotent)"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject gpx_context_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gpuimg._gpuimg.Context",
    .tp_basicsize = sizeof(gpx_context),
    .tp_dealloc = context_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Context(device=0, threads=0): one gi_context (device 0 auto, 1 cpu, 2 cuda).",
    .tp_methods = context_methods,
    .tp_init = context_init,
    .tp_new = PyType_GenericNew,
};
