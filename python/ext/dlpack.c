/* DLPack capsules (the "dltensor" protocol of __dlpack__), read without
 * any array library: the package uses them for arrays that have no
 * __cuda_array_interface__. Opening a capsule takes ownership of the
 * tensor (the capsule is renamed "used_dltensor", as the protocol asks);
 * the tensor's deleter runs when the returned object goes away. The
 * structs are DLPack's stable ABI (dlpack.h, version 0.x). */
#include <stdint.h>

#include "ext.h"

typedef struct {
    int32_t device_type; /* 1 CPU, 2 CUDA, 3 CUDA host, 13 CUDA managed, ... */
    int32_t device_id;
} dl_device;

typedef struct {
    uint8_t code; /* 0 int, 1 uint, 2 float, ... */
    uint8_t bits;
    uint16_t lanes;
} dl_dtype;

typedef struct {
    void *data;
    dl_device device;
    int32_t ndim;
    dl_dtype dtype;
    int64_t *shape;
    int64_t *strides; /* in elements; NULL: compact, row-major */
    uint64_t byte_offset;
} dl_tensor;

typedef struct dl_managed {
    dl_tensor t;
    void *manager_ctx;
    void (*deleter)(struct dl_managed *self);
} dl_managed;

typedef struct {
    PyObject_HEAD
    dl_managed *m;
} gpx_dlpack;

static void dlpack_dealloc(PyObject *op)
{
    gpx_dlpack *self = (gpx_dlpack *)op;
    if (self->m && self->m->deleter) self->m->deleter(self->m);
    PyObject_Free(op);
}

static PyObject *int64_tuple(const int64_t *v, int n)
{
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(v[i]));
    return t;
}

/* dlpack_open(capsule) -> DLPackTensor */
PyObject *gpx_dlpack_open(PyObject *module, PyObject *capsule)
{
    (void)module;
    if (!PyCapsule_IsValid(capsule, "dltensor")) {
        PyErr_SetString(PyExc_TypeError, "expected an unused DLPack capsule ('dltensor')");
        return NULL;
    }
    dl_managed *m = PyCapsule_GetPointer(capsule, "dltensor");
    if (!m) return NULL;
    if (m->t.ndim < 0 || m->t.ndim > 32 || (m->t.ndim > 0 && !m->t.shape)) {
        PyErr_SetString(PyExc_ValueError, "a DLPack tensor with a malformed shape");
        return NULL;
    }
    gpx_dlpack *self = PyObject_New(gpx_dlpack, &gpx_dlpack_type);
    if (!self) return NULL;
    if (PyCapsule_SetName(capsule, "used_dltensor")) {
        self->m = NULL;
        Py_DECREF(self);
        return NULL;
    }
    self->m = m;
    return (PyObject *)self;
}

static PyObject *dlpack_info(PyObject *op, PyObject *unused)
{
    (void)unused;
    const dl_tensor *t = &((gpx_dlpack *)op)->m->t;
    PyObject *strides = t->strides ? int64_tuple(t->strides, t->ndim) : Py_NewRef(Py_None);
    return Py_BuildValue("{s:i,s:i,s:K,s:N,s:N,s:(iii)}", "device_type", t->device.device_type,
                         "device_id", t->device.device_id, "address",
                         (unsigned long long)((uintptr_t)t->data + t->byte_offset), "shape",
                         int64_tuple(t->shape, t->ndim), "strides", strides, "dtype",
                         t->dtype.code, t->dtype.bits, t->dtype.lanes);
}

static PyMethodDef dlpack_methods[] = {
    {"info", dlpack_info, METH_NOARGS,
     "{device_type, device_id, address, shape, strides (elements, or None), dtype}"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject gpx_dlpack_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gpuimg._gpuimg.DLPackTensor",
    .tp_basicsize = sizeof(gpx_dlpack),
    .tp_dealloc = dlpack_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A DLPack tensor taken from its capsule; its deleter runs with this object.",
    .tp_methods = dlpack_methods,
};
