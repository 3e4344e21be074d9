/* gpuimg._gpuimg: the extension under the gpuimg package, over gpuimg.h
 * alone. It takes and gives buffers (no numpy C API: the package makes the
 * arrays), releases the GIL around every library call, and turns a
 * gi_status into the exception for it with gi_last_error()'s message.
 * The pieces: ../ext/images.c (buffers as gi_image), steps.c (step tuples
 * as gi_op), context.c (Context: apply, apply_device, compare), batch.c,
 * dlpack.c, metadata.c, errors.c (the exceptions). */
#include "ext.h"

/* load(path) -> (pixels, metadata): the file's pixels as stored and what
 * travels with them (its orientation among it). */
static PyObject *mod_load(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *path;
    gi_load_limits limits;
    gi_load_limits_default(&limits);
    if (!PyArg_ParseTuple(args, "O&|i:load", PyUnicode_FSConverter, &path, &limits.shrink_to))
        return NULL;
    if (limits.shrink_to < 0) limits.shrink_to = 0;
    gi_image img = {0};
    gi_metadata meta = {0};
    gi_status st;
    Py_BEGIN_ALLOW_THREADS
    st = gi_load_file_with_metadata(&img, PyBytes_AS_STRING(path), &limits, &meta);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (st != GI_OK) {
        gi_metadata_free(&meta);
        return gpx_raise_read(st);
    }
    PyObject *m = gpx_metadata_new(&meta);
    PyObject *pixels = m ? gpx_pixels_new(&img) : NULL;
    if (!pixels) gi_image_free(&img);
    return pixels ? Py_BuildValue("(NN)", pixels, m) : (Py_XDECREF(m), NULL);
}

/* pixels(height, width, channels, depth) -> Pixels: a result's memory from
 * the library's pool of mappings (gi_image_alloc_depth), which a loop's
 * results reuse once freed. numpy's own took a fresh mapping for every
 * array past glibc's mmap threshold (32 MB at most), and the kernel's
 * zeroing of its pages was 30% of a 2x enlargement of a 9 MP photo. */
static PyObject *mod_pixels(PyObject *self, PyObject *args)
{
    (void)self;
    int h, w, c, depth;
    if (!PyArg_ParseTuple(args, "iiii:pixels", &h, &w, &c, &depth)) return NULL;
    gi_image img;
    gi_status st = gi_image_alloc_depth(&img, w, h, c, depth);
    if (st != GI_OK) return gpx_raise(st);
    PyObject *pixels = gpx_pixels_new(&img);
    if (!pixels) gi_image_free(&img);
    return pixels;
}

/* save(image, path, format, quality, png_level, png_filter, metadata[, depth[, tiff_compression]]) */
static PyObject *mod_save(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *img_obj, *path, *meta_obj;
    gi_save_options o;
    gi_save_options_default(&o);
    int format, filter, compression = GI_TIFF_DEFLATE;
    if (!PyArg_ParseTuple(args, "OO&iiiiO|ii:save", &img_obj, PyUnicode_FSConverter, &path,
                          &format, &o.jpeg_quality, &o.png_level, &filter, &meta_obj, &o.depth,
                          &compression))
        return NULL;
    gpx_host_image img;
    o.metadata = gpx_metadata_of(meta_obj);
    if (PyErr_Occurred()) {
        /* a wrong metadata type, said */
    } else if (format < GI_FORMAT_AUTO || format > GI_FORMAT_TIFF ||
               filter < GI_PNG_FILTER_DEFAULT || filter > GI_PNG_FILTER_PAETH ||
               compression < GI_TIFF_DEFLATE || compression > GI_TIFF_UNCOMPRESSED) {
        PyErr_SetString(PyExc_ValueError, "save: format, png_filter or tiff_compression out of range");
    } else if (gpx_host_image_get(img_obj, 0, "image", &img) == 0) {
        o.format = (gi_format)format;
        o.png_filter = (gi_png_filter)filter;
        o.tiff_compression = (gi_tiff_compression)compression;
        gi_status st;
        Py_BEGIN_ALLOW_THREADS
        st = gi_save_file(&img.img, PyBytes_AS_STRING(path), &o);
        Py_END_ALLOW_THREADS
        gpx_host_image_release(&img);
        if (st != GI_OK) gpx_raise(st);
    }
    Py_DECREF(path);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

/* format_from_path(path) -> the format its extension names, FORMAT_AUTO
 * when none (gi_format_from_path): save() says what to do in Python terms
 * before the library would name the CLI's --format. */
static PyObject *mod_format_from_path(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *path;
    if (!PyArg_ParseTuple(args, "O&:format_from_path", PyUnicode_FSConverter, &path))
        return NULL;
    gi_format f = gi_format_from_path(PyBytes_AS_STRING(path));
    Py_DECREF(path);
    return PyLong_FromLong(f);
}

/* orientation_steps(o) -> the transforms that show stored pixels as a
 * viewer does (gi_orientation_steps) */
static PyObject *mod_orientation_steps(PyObject *self, PyObject *arg)
{
    (void)self;
    long o = PyLong_AsLong(arg);
    if (o == -1 && PyErr_Occurred()) return NULL;
    gi_transform t[2];
    int n = gi_orientation_steps(o < 0 || o > 8 ? 0 : (int)o, t);
    PyObject *r = PyTuple_New(n);
    for (int i = 0; r && i < n; i++) PyTuple_SET_ITEM(r, i, PyLong_FromLong(t[i]));
    return r;
}

/* border_parse(name) -> mode, with the CLI's names and aliases */
static PyObject *mod_border_parse(PyObject *self, PyObject *arg)
{
    (void)self;
    const char *name = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;
    if (!name) {
        if (!PyErr_Occurred())
            PyErr_Format(PyExc_TypeError, "border must be a str, not %.80s", Py_TYPE(arg)->tp_name);
        return NULL;
    }
    gi_border_mode mode;
    if (gi_border_parse(name, &mode) != 0)
        return PyErr_Format(PyExc_ValueError,
                            "border '%s': expected zero, replicate, reflect, mirror or wrap "
                            "(aliases: constant, clamp, nearest, edge, symmetric, reflect101, "
                            "periodic, tile)", name);
    return PyLong_FromLong(mode);
}

static PyObject *mod_border_name(PyObject *self, PyObject *arg)
{
    (void)self;
    long mode = PyLong_AsLong(arg);
    if (mode == -1 && PyErr_Occurred()) return NULL;
    if (mode < GI_BORDER_ZERO || mode > GI_BORDER_WRAP)
        return PyErr_Format(PyExc_ValueError, "unknown border mode %ld", mode);
    return Py_BuildValue("(ss)", gi_border_name((gi_border_mode)mode),
                         gi_border_pattern((gi_border_mode)mode));
}

/* blur_radius(kernel, sigma, radius) -> the radius the blur uses */
static PyObject *mod_blur_radius(PyObject *self, PyObject *args)
{
    (void)self;
    gi_blur_params p;
    gi_blur_params_default(&p);
    int kernel;
    if (!PyArg_ParseTuple(args, "idi:blur_radius", &kernel, &p.sigma, &p.radius)) return NULL;
    p.kernel = kernel == GI_BLUR_BOX ? GI_BLUR_BOX : GI_BLUR_GAUSSIAN;
    return PyLong_FromLong(gi_blur_radius(&p));
}

static PyObject *mod_cuda_devices(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    const char *why = "";
    int n;
    Py_BEGIN_ALLOW_THREADS
    n = gi_cuda_device_count(&why);
    Py_END_ALLOW_THREADS
    return Py_BuildValue("(is)", n, n ? "" : why);
}

static PyObject *mod_cuda_compiled(PyObject *self, PyObject *unused)
{
    (void)self;
    (void)unused;
    return PyBool_FromLong(gi_cuda_compiled());
}

static PyMethodDef module_methods[] = {
    {"load", mod_load, METH_VARARGS,
     "load(path, shrink_to=0) -> (pixels, metadata); shrink_to: gi_load_limits's"},
    {"pixels", mod_pixels, METH_VARARGS,
     "pixels(height, width, channels, depth) -> Pixels from the library's pool"},
    {"save", mod_save, METH_VARARGS,
     "save(image, path, format, quality, png_level, png_filter, metadata[, depth[, "
     "tiff_compression]])"},
    {"format_from_path", mod_format_from_path, METH_VARARGS,
     "format_from_path(path) -> format (FORMAT_AUTO: none)"},
    {"orientation_steps", mod_orientation_steps, METH_O, "orientation_steps(o) -> transforms"},
    {"border_parse", mod_border_parse, METH_O, "border_parse(name) -> mode"},
    {"border_name", mod_border_name, METH_O, "border_name(mode) -> (name, pattern)"},
    {"blur_radius", mod_blur_radius, METH_VARARGS, "blur_radius(kernel, sigma, radius) -> R"},
    {"cuda_devices", mod_cuda_devices, METH_NOARGS, "(count, why none)"},
    {"cuda_compiled", mod_cuda_compiled, METH_NOARGS, "was the CUDA backend built in?"},
    {"op_params", gpx_op_params, METH_O, "op_params(kind) -> the table's parameters, as dicts"},
    {"op_param", gpx_op_param, METH_VARARGS,
     "op_param(kind, name, value, shown) -> value checked by the table (ValueError)"},
    {"dlpack_open", gpx_dlpack_open, METH_O, "dlpack_open(capsule) -> DLPackTensor"},
    {"batch", (PyCFunction)(void (*)(void))gpx_batch, METH_VARARGS | METH_KEYWORDS,
     "batch(inputs, outputs, steps, on_item=None, device=0, jobs=0, ...) -> item results"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT, "_gpuimg", "libgpuimg for the gpuimg package.", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

/* gpuimg.h's enumerations, so that the package never repeats their values. */
static int add_constants(PyObject *m)
{
    static const struct {
        const char *name;
        int value;
    } c[] = {
        {"OP_BLUR", GI_OP_BLUR}, {"OP_SOBEL", GI_OP_SOBEL}, {"OP_TRANSFORM", GI_OP_TRANSFORM},
        {"OP_HIST", GI_OP_HIST}, {"OP_CONVOLVE", GI_OP_CONVOLVE},
        {"OP_RESIZE", GI_OP_RESIZE}, {"OP_CROP", GI_OP_CROP},
        {"RESIZE_LANCZOS3", GI_RESIZE_LANCZOS3}, {"RESIZE_LANCZOS2", GI_RESIZE_LANCZOS2},
        {"RESIZE_CUBIC", GI_RESIZE_CUBIC}, {"RESIZE_LINEAR", GI_RESIZE_LINEAR},
        {"RESIZE_AREA", GI_RESIZE_AREA}, {"RESIZE_NEAREST", GI_RESIZE_NEAREST},
        {"FIT_INSIDE", GI_FIT_INSIDE}, {"FIT_FILL", GI_FIT_FILL}, {"FIT_COVER", GI_FIT_COVER},
        {"RESIZE_MAX_SIDE", GI_RESIZE_MAX_SIDE},
        {"BLUR_GAUSSIAN", GI_BLUR_GAUSSIAN}, {"BLUR_BOX", GI_BLUR_BOX},
        {"TRANSPOSE", GI_TRANSPOSE}, {"ROTATE_90", GI_ROTATE_90}, {"ROTATE_180", GI_ROTATE_180},
        {"ROTATE_270", GI_ROTATE_270}, {"FLIP_H", GI_FLIP_H}, {"FLIP_V", GI_FLIP_V},
        {"DEVICE_AUTO", GI_DEVICE_AUTO}, {"DEVICE_CPU", GI_DEVICE_CPU},
        {"DEVICE_CUDA", GI_DEVICE_CUDA},
        {"FORMAT_AUTO", GI_FORMAT_AUTO}, {"FORMAT_PNG", GI_FORMAT_PNG},
        {"FORMAT_JPEG", GI_FORMAT_JPEG}, {"FORMAT_PNM", GI_FORMAT_PNM},
        {"FORMAT_PAM", GI_FORMAT_PAM}, {"FORMAT_TIFF", GI_FORMAT_TIFF},
        {"TIFF_DEFLATE", GI_TIFF_DEFLATE}, {"TIFF_UNCOMPRESSED", GI_TIFF_UNCOMPRESSED},
        {"PNG_FILTER_DEFAULT", GI_PNG_FILTER_DEFAULT}, {"PNG_FILTER_AUTO", GI_PNG_FILTER_AUTO},
        {"PNG_FILTER_NONE", GI_PNG_FILTER_NONE}, {"PNG_FILTER_SUB", GI_PNG_FILTER_SUB},
        {"PNG_FILTER_UP", GI_PNG_FILTER_UP}, {"PNG_FILTER_AVERAGE", GI_PNG_FILTER_AVERAGE},
        {"PNG_FILTER_PAETH", GI_PNG_FILTER_PAETH},
        {"MAX_STEPS", GI_MAX_STEPS}, {"BLUR_MAX_RADIUS", GI_BLUR_MAX_RADIUS},
        {"HIST_MAX_BINS", GI_HIST_MAX_BINS}, {"CONVOLVE_MAX_SIZE", GI_CONVOLVE_MAX_SIZE},
        {"DEVICE_ALIGN", GI_DEVICE_ALIGN},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
        if (PyModule_AddIntConstant(m, c[i].name, c[i].value)) return -1;
    return PyModule_AddStringConstant(m, "VERSION", GI_VERSION_STRING);
}

static int add_type(PyObject *m, PyTypeObject *type, const char *name)
{
    if (PyType_Ready(type)) return -1;
    Py_INCREF(type);
    if (PyModule_AddObject(m, name, (PyObject *)type) == 0) return 0;
    Py_DECREF(type);
    return -1;
}

static int add_exception(PyObject *m, PyObject **slot, const char *name, PyObject *base,
                         const char *doc)
{
    *slot = PyErr_NewExceptionWithDoc(name, doc, base, NULL);
    if (!*slot) return -1;
    Py_INCREF(*slot);
    if (PyModule_AddObject(m, strrchr(name, '.') + 1, *slot) == 0) return 0;
    Py_DECREF(*slot);
    return -1;
}

PyMODINIT_FUNC PyInit__gpuimg(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (!m) return NULL;
    if (add_constants(m) || add_type(m, &gpx_context_type, "Context") ||
        add_type(m, &gpx_pixels_type, "Pixels") || add_type(m, &gpx_dlpack_type, "DLPackTensor") ||
        add_type(m, &gpx_metadata_type, "Metadata") ||
        add_exception(m, &gpx_decode_error, "gpuimg.DecodeError", PyExc_OSError,
                      "The file is not an image gpuimg can decode (PNG, JPEG, PNM/PAM, TIFF), "
                      "or one of a kind it does not read (a CMYK TIFF, a PAM of 5 channels).") ||
        add_exception(m, &gpx_device_error, "gpuimg.DeviceError", PyExc_RuntimeError,
                      "CUDA was asked for and is absent, or a CUDA call failed.")) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
