/* gpuimg._gpuimg.Metadata: the metadata a file's pixels came with (Exif,
 * ICC, XMP, PNG colour chunks: gpuimg.h, METADATA), owned here, for save()
 * to write into its output as the CLI's jobs do. */
#include "ext.h"

typedef struct {
    PyObject_HEAD
    gi_metadata m;
} gpx_metadata;

PyObject *gpx_metadata_new(gi_metadata *m)
{
    gpx_metadata *self = PyObject_New(gpx_metadata, &gpx_metadata_type);
    if (!self) {
        gi_metadata_free(m);
        return NULL;
    }
    self->m = *m;
    memset(m, 0, sizeof *m);
    return (PyObject *)self;
}

const gi_metadata *gpx_metadata_of(PyObject *obj)
{
    if (obj == Py_None) return NULL;
    if (!PyObject_TypeCheck(obj, &gpx_metadata_type)) {
        PyErr_Format(PyExc_TypeError, "metadata must be a gpuimg.Metadata or None, not %.80s",
                     Py_TYPE(obj)->tp_name);
        return NULL;
    }
    return &((gpx_metadata *)obj)->m;
}

static void metadata_dealloc(PyObject *op)
{
    gi_metadata_free(&((gpx_metadata *)op)->m);
    PyObject_Free(op);
}

static PyObject *bytes_or_none(const uint8_t *p, size_t n)
{
    return p ? PyBytes_FromStringAndSize((const char *)p, (Py_ssize_t)n) : Py_NewRef(Py_None);
}

static PyObject *get_exif(PyObject *op, void *unused)
{
    (void)unused;
    gi_metadata *m = &((gpx_metadata *)op)->m;
    return bytes_or_none(m->exif, m->exif_size);
}

static PyObject *get_icc(PyObject *op, void *unused)
{
    (void)unused;
    gi_metadata *m = &((gpx_metadata *)op)->m;
    return bytes_or_none(m->icc, m->icc_size);
}

static PyObject *get_xmp(PyObject *op, void *unused)
{
    (void)unused;
    gi_metadata *m = &((gpx_metadata *)op)->m;
    return bytes_or_none(m->xmp, m->xmp_size);
}

static PyObject *get_orientation(PyObject *op, void *unused)
{
    (void)unused;
    return PyLong_FromLong(((gpx_metadata *)op)->m.orientation);
}

static PyObject *get_pages(PyObject *op, void *unused)
{
    (void)unused;
    return PyLong_FromLong(((gpx_metadata *)op)->m.pages);
}

static PyObject *get_dropped(PyObject *op, void *unused)
{
    (void)unused;
    return PyUnicode_DecodeUTF8(((gpx_metadata *)op)->m.dropped,
                                (Py_ssize_t)strlen(((gpx_metadata *)op)->m.dropped), "replace");
}

static PyObject *get_empty(PyObject *op, void *unused)
{
    (void)unused;
    return PyBool_FromLong(gi_metadata_empty(&((gpx_metadata *)op)->m));
}

/* set_orientation(o): the Exif tag (and XMP's) as gi_metadata_set_orientation */
static PyObject *metadata_set_orientation(PyObject *op, PyObject *arg)
{
    long o = PyLong_AsLong(arg);
    if (o == -1 && PyErr_Occurred()) return NULL;
    if (o < 1 || o > 8) return PyErr_Format(PyExc_ValueError, "orientation %ld: must be 1..8", o);
    gi_status st = gi_metadata_set_orientation(&((gpx_metadata *)op)->m, (int)o);
    if (st != GI_OK) return gpx_raise(st);
    Py_RETURN_NONE;
}

static PyGetSetDef metadata_getset[] = {
    {"exif", get_exif, NULL, "the Exif (TIFF) bytes, or None", NULL},
    {"icc", get_icc, NULL, "the ICC profile, or None", NULL},
    {"xmp", get_xmp, NULL, "the XMP packet (UTF-8 XML), or None", NULL},
    {"orientation", get_orientation, NULL, "Exif orientation 1..8 (1 when absent)", NULL},
    {"pages", get_pages, NULL, "the images in the file (a TIFF's pages; only the first is read), 1 for others", NULL},
    {"dropped", get_dropped, NULL, "what was dropped on reading and why, or ''", NULL},
    {"empty", get_empty, NULL, "nothing to write", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMethodDef metadata_methods[] = {
    {"set_orientation", metadata_set_orientation, METH_O,
     "set_orientation(o): sets the Exif (and XMP) orientation, 1..8"},
    {NULL, NULL, 0, NULL},
};

PyTypeObject gpx_metadata_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gpuimg.Metadata",
    .tp_basicsize = sizeof(gpx_metadata),
    .tp_dealloc = metadata_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "What travels with a file's pixels (Exif, ICC, XMP, PNG colour chunks), from "
              "gpuimg.load_with_metadata, for gpuimg.save(..., metadata=).",
    .tp_getset = metadata_getset,
    .tp_methods = metadata_methods,
};
