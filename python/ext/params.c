/* The library's table of operation parameters for Python: op_params()
 * lists it (pipe()'s option tables are made from it), op_param() checks
 * one value with the table's rule and message. */
#include "ext.h"

static const char *const type_names[] = {"float", "int", "choice", "flag", "border", "mask"};
static const char *const form_names[] = {"option", "positional", "own"};

static PyObject *param_dict(const gi_op_param *p)
{
    PyObject *choices = PyTuple_New(0);
    if (p->choices) {
        Py_DECREF(choices);
        int n = 0;
        while (p->choices[n]) n++;
        choices = PyTuple_New(n);
        for (int i = 0; choices && i < n; i++)
            PyTuple_SET_ITEM(choices, i, PyUnicode_FromString(p->choices[i]));
    }
    if (!choices) return NULL;
    char short_name[2] = {p->short_name, 0};
    return Py_BuildValue("{s:s,s:s,s:s,s:s,s:d,s:d,s:O,s:N,s:d,s:z,s:z,s:z}", "name", p->name,
                         "short", short_name, "type", type_names[p->type], "form",
                         form_names[p->form], "min", p->min, "max", p->max, "min_exclusive",
                         p->min_exclusive ? Py_True : Py_False, "choices", choices, "default",
                         p->default_value, "default_text", p->default_text, "help", p->help,
                         "metavar", p->metavar);
}

/* op_params(kind) -> [dict, ...] in the table's order */
PyObject *gpx_op_params(PyObject *self, PyObject *arg)
{
    (void)self;
    long kind = PyLong_AsLong(arg);
    if (kind == -1 && PyErr_Occurred()) return NULL;
    int n = 0;
    const gi_op_param *p = gi_op_params((gi_op_kind)kind, &n);
    PyObject *list = PyList_New(n);
    for (int i = 0; list && i < n; i++) {
        PyObject *d = param_dict(&p[i]);
        if (!d) {
            Py_DECREF(list);
            return NULL;
        }
        PyList_SET_ITEM(list, i, d);
    }
    return list;
}

/* op_param(kind, name, value, shown) -> the value as stored (a float for
 * a number parameter, an int for the others); value a str is parsed as
 * the command line does, a number is checked. ValueError with the
 * table's message ("sigma '0': must be greater than 0"). */
PyObject *gpx_op_param(PyObject *self, PyObject *args)
{
    (void)self;
    int kind;
    const char *name, *shown;
    PyObject *value;
    if (!PyArg_ParseTuple(args, "isOs", &kind, &name, &value, &shown)) return NULL;
    const gi_op_param *p = gi_op_param_find((gi_op_kind)kind, name);
    if (!p) return PyErr_Format(PyExc_KeyError, "no parameter %s", name);
    gi_op op;
    gi_op_default((gi_op_kind)kind, &op);
    gi_status st;
    if (PyUnicode_Check(value)) {
        const char *text = PyUnicode_AsUTF8(value);
        if (!text) return NULL;
        st = gi_op_param_parse(p, text, &op);
    } else {
        double v = PyFloat_AsDouble(value);
        if (v == -1.0 && PyErr_Occurred()) return NULL;
        st = gi_op_param_set(p, v, shown, &op);
    }
    if (st != GI_OK) {
        PyErr_SetString(PyExc_ValueError, gi_last_error());
        return NULL;
    }
    double stored = gi_op_param_get(p, &op);
    return p->type == GI_PARAM_DOUBLE ? PyFloat_FromDouble(stored)
                                      : PyLong_FromLong((long)stored);
}
