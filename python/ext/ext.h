/* The pieces of the extension module gpuimg._gpuimg, over gpuimg.h alone.
 * Every call that does work releases the GIL; messages come from
 * gi_last_error(), read on the same thread right after the call. */
#ifndef GPUIMG_PY_EXT_H
#define GPUIMG_PY_EXT_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "gpuimg.h"

#if PY_VERSION_HEX < 0x030A0000
static inline PyObject *Py_NewRef(PyObject *o)
{
    Py_INCREF(o);
    return o;
}
#endif

/* Exceptions of the module: DecodeError (OSError: a file that is no
 * image), DeviceError (RuntimeError: CUDA absent or failing). */
extern PyObject *gpx_decode_error, *gpx_device_error;

/* Raises the exception for `st` with gi_last_error()'s message: ValueError
 * for arguments and limits, OSError for I/O and encoding, DecodeError,
 * MemoryError, DeviceError. Returns NULL. */
PyObject *gpx_raise(gi_status st);
/* The same for a file being read: one of a kind gpuimg does not decode (a
 * CMYK TIFF, a PAM of 5 channels; GI_ERR_UNSUPPORTED) is a
 * gpuimg.DecodeError, an OSError, as a file that is no image is, so that
 * a loop over a folder that skips what it cannot read (except OSError)
 * skips it too. */
PyObject *gpx_raise_read(gi_status st);

/* A host image over a Python buffer (numpy array, memoryview): uint8,
 * (H, W) or (H, W, C) with C 1..4, pixels contiguous within each row. */
typedef struct {
    Py_buffer view;
    gi_image img;
} gpx_host_image;
/* 0, or -1 with TypeError/ValueError naming `role`. */
int gpx_host_image_get(PyObject *obj, int writable, const char *role, gpx_host_image *out);
void gpx_host_image_release(gpx_host_image *h);

/* Steps from Python: a sequence of tuples, one per step (see steps.c). */
typedef struct {
    gi_op ops[GI_MAX_STEPS];
    double *masks[GI_MAX_STEPS]; /* convolve masks, PyMem-owned */
    int n;
} gpx_steps;
int gpx_steps_parse(PyObject *seq, gpx_steps *out);
void gpx_steps_free(gpx_steps *s);

/* The extension's types and module-level functions defined in other files. */
extern PyTypeObject gpx_context_type;   /* context.c */
extern PyTypeObject gpx_pixels_type;    /* images.c */
extern PyTypeObject gpx_dlpack_type;    /* dlpack.c */
extern PyTypeObject gpx_metadata_type;  /* metadata.c */
PyObject *gpx_metadata_new(gi_metadata *m); /* takes ownership of m's buffers */
/* NULL for None (no error set) or on a wrong type (TypeError set). */
const gi_metadata *gpx_metadata_of(PyObject *obj);
PyObject *gpx_pixels_new(gi_image *img); /* takes ownership of img's pixels */
PyObject *gpx_dlpack_open(PyObject *self, PyObject *capsule);
PyObject *gpx_batch(PyObject *self, PyObject *args, PyObject *kwargs); /* batch.c */
PyObject *gpx_op_params(PyObject *self, PyObject *arg);  /* params.c */
PyObject *gpx_op_param(PyObject *self, PyObject *args);

#endif
