/* batch(): files to files through the library's batch engine
 * (gi_batch_run: codec workers, compute lanes, bounded queues), the GIL
 * released while it runs. on_item is called with each item's result as it
 * ends, under the GIL, from whichever of the batch's threads ended it; if
 * it raises, no new item starts and the exception comes out of batch(). */
#include <string.h>

#include "ext.h"

typedef struct {
    PyObject *on_item; /* or None */
    PyObject *error_type, *error_value, *error_tb; /* the first one on_item raised */
    volatile sig_atomic_t stop;
} batch_user;

static const char *status_word(gi_item_status s)
{
    switch (s) {
    case GI_ITEM_OK: return "ok";
    case GI_ITEM_FAILED: return "failed";
    case GI_ITEM_SKIPPED: return "skipped";
    default: return "not started";
    }
}

static PyObject *item_dict(const gi_batch_item *it)
{
    PyObject *in = PyUnicode_DecodeFSDefault(it->in), *out = PyUnicode_DecodeFSDefault(it->out);
    if (!in || !out) {
        Py_XDECREF(in);
        Py_XDECREF(out);
        return NULL;
    }
    return Py_BuildValue("{s:N,s:N,s:s,s:s,s:d,s:s,s:s}", "input", in, "output", out, "status",
                         status_word(it->status), "reason", it->reason ? it->reason : "", "ms",
                         it->ms, "backend", it->backend ? it->backend : "", "choice", it->choice);
}

static void item_ended(void *user, const gi_batch_item *item)
{
    batch_user *u = user;
    if (u->on_item == Py_None) return;
    PyGILState_STATE g = PyGILState_Ensure();
    if (!u->error_type) {
        PyObject *d = item_dict(item);
        PyObject *r = d ? PyObject_CallOneArg(u->on_item, d) : NULL;
        Py_XDECREF(d);
        if (!r) {
            PyErr_Fetch(&u->error_type, &u->error_value, &u->error_tb);
            u->stop = 1;
        }
        Py_XDECREF(r);
    }
    PyGILState_Release(g);
}

/* Paths as bytes (os.fsencode), kept in `keep` while the batch runs. */
static int paths_of(PyObject *seq, PyObject *keep, Py_ssize_t *count)
{
    PyObject *fast = PySequence_Fast(seq, "inputs and outputs must be sequences of paths");
    if (!fast) return -1;
    *count = PySequence_Fast_GET_SIZE(fast);
    for (Py_ssize_t i = 0; i < *count; i++) {
        PyObject *b = NULL;
        if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(fast, i), &b) ||
            PyList_Append(keep, b)) {
            Py_XDECREF(b);
            Py_DECREF(fast);
            return -1;
        }
        Py_DECREF(b);
    }
    Py_DECREF(fast);
    return 0;
}

PyObject *gpx_batch(PyObject *module, PyObject *args, PyObject *kwargs)
{
    (void)module;
    static char *names[] = {"inputs", "outputs", "steps", "on_item", "device", "jobs",
                            "skip_existing", "auto_orient", "strip", "format", "quality",
                            "png_level", "png_filter", "depth", "gpu", "tiff_compression",
                            NULL};
    PyObject *inputs, *outputs, *steps_obj, *result = NULL;
    batch_user u = {.on_item = Py_None};
    gi_batch_options o;
    gi_batch_options_default(&o);
    int device = 0, format = 0, filter = 0, gpu = -1, compression = GI_TIFF_DEFLATE;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOO|Oiipppiiiiiii:batch", names, &inputs,
                                     &outputs, &steps_obj, &u.on_item, &device, &o.codec_workers,
                                     &o.skip_existing, &o.job.auto_orient, &o.job.strip, &format,
                                     &o.job.save.jpeg_quality, &o.job.save.png_level, &filter,
                                     &o.job.save.depth, &gpu, &compression))
        return NULL;
    if (u.on_item != Py_None && !PyCallable_Check(u.on_item)) {
        PyErr_SetString(PyExc_TypeError, "on_item must be callable or None");
        return NULL;
    }
    if (device < GI_DEVICE_AUTO || device > GI_DEVICE_CUDA || format < GI_FORMAT_AUTO ||
        format > GI_FORMAT_TIFF || filter < GI_PNG_FILTER_DEFAULT || filter > GI_PNG_FILTER_PAETH ||
        o.codec_workers < 0 || gpu < -1 || gpu >= GI_MAX_GPUS ||
        compression < GI_TIFF_DEFLATE || compression > GI_TIFF_UNCOMPRESSED ||
        (o.job.save.depth != 0 && o.job.save.depth != 8 && o.job.save.depth != 16)) {
        PyErr_SetString(PyExc_ValueError,
                        "batch: device, format, png_filter, jobs, depth, gpu or "
                        "tiff_compression out of range");
        return NULL;
    }
    o.device = (gi_device)device;
    if (gpu >= 0) o.gpus = (gi_gpus){.count = 1, .index = {gpu}}; /* else every GPU */
    o.job.save.format = (gi_format)format;
    o.job.save.png_filter = (gi_png_filter)filter;
    o.job.save.tiff_compression = (gi_tiff_compression)compression;
    gpx_steps steps;
    if (gpx_steps_parse(steps_obj, &steps)) return NULL;
    PyObject *in_paths = PyList_New(0), *out_paths = PyList_New(0);
    gi_batch_item *items = NULL;
    Py_ssize_t n_in = 0, n_out = 0;
    if (!in_paths || !out_paths || paths_of(inputs, in_paths, &n_in) ||
        paths_of(outputs, out_paths, &n_out))
        goto done;
    if (n_in != n_out) {
        PyErr_Format(PyExc_ValueError, "%zd inputs but %zd outputs", n_in, n_out);
        goto done;
    }
    items = PyMem_Calloc(n_in ? (size_t)n_in : 1, sizeof *items);
    if (!items) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n_in; i++) {
        items[i].in = PyBytes_AS_STRING(PyList_GET_ITEM(in_paths, i));
        items[i].out = PyBytes_AS_STRING(PyList_GET_ITEM(out_paths, i));
    }
    o.job.steps = steps.ops;
    o.job.n_steps = steps.n;
    o.on_item = item_ended;
    o.user = &u;
    o.stop = &u.stop;
    gi_status st;
    Py_BEGIN_ALLOW_THREADS
    st = gi_batch_run(&o, items, (size_t)n_in);
    Py_END_ALLOW_THREADS
    if (u.error_type) {
        PyErr_Restore(u.error_type, u.error_value, u.error_tb);
    } else if (st != GI_OK) {
        gpx_raise(st);
    } else if ((result = PyList_New(n_in))) {
        for (Py_ssize_t i = 0; i < n_in; i++) {
            PyObject *d = item_dict(&items[i]);
            if (!d) {
                Py_CLEAR(result);
                break;
            }
            PyList_SET_ITEM(result, i, d);
        }
    }
done:
    for (Py_ssize_t i = 0; items && i < n_in; i++) gi_free(items[i].reason);
    PyMem_Free(items);
    Py_XDECREF(in_paths);
    Py_XDECREF(out_paths);
    gpx_steps_free(&steps);
    return result;
}
