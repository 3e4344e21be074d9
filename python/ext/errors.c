/* The extension's exceptions and the one place that maps a gi_status to
 * them (ext.h): every piece of the module raises through gpx_raise. The
 * exception objects are made in PyInit__gpuimg (_gpuimg.c). */
#include "ext.h"

PyObject *gpx_decode_error, *gpx_device_error;

PyObject *gpx_raise(gi_status st)
{
    PyObject *type;
    switch (st) {
    case GI_ERR_IO:
    case GI_ERR_ENCODE: type = PyExc_OSError; break;
    case GI_ERR_DECODE: type = gpx_decode_error; break;
    case GI_ERR_NO_MEMORY: type = PyExc_MemoryError; break;
    case GI_ERR_NO_DEVICE:
    case GI_ERR_DEVICE: type = gpx_device_error; break;
    default: type = PyExc_ValueError; break; /* arguments, limits, unsupported */
    }
    const char *why = gi_last_error();
    PyErr_SetString(type, why && *why ? why : gi_strerror(st));
    return NULL;
}

PyObject *gpx_raise_read(gi_status st)
{
    return gpx_raise(st == GI_ERR_UNSUPPORTED ? GI_ERR_DECODE : st);
}
