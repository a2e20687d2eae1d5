/* The arguments a kernel's functions read from Python: a 64-square bitboard, an int within its
 * range, and the number of arguments. Each refuses a bad value with the Python error a caller
 * sees, naming the argument, so a kernel never reads past its tables. */
#ifndef ARBITER_ARGUMENTS_H
#define ARBITER_ARGUMENTS_H

#include <Python.h>
#include <stdint.h>

static int read_board(PyObject *value, const char *name, uint64_t *board)
{
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int bitboard", name);
        return -1;
    }
    *board = PyLong_AsUnsignedLongLong(value);
    if (*board == (uint64_t)-1 && PyErr_Occurred()) {
        PyErr_Format(PyExc_ValueError, "%s must be a bitboard of 64 squares (0 to 2**64 - 1)",
                     name);
        return -1;
    }
    return 0;
}

static int read_int(PyObject *value, const char *name, long long minimum, long long maximum,
                    long long *number)
{
    if (!PyLong_Check(value)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int", name);
        return -1;
    }
    int overflow;
    *number = PyLong_AsLongLongAndOverflow(value, &overflow);
    if (*number == -1 && PyErr_Occurred())
        return -1;
    if (overflow || *number < minimum || *number > maximum) {
        PyErr_Format(PyExc_ValueError, "%s must be from %lld to %lld", name, minimum, maximum);
        return -1;
    }
    return 0;
}

static inline int check_count(const char *function, Py_ssize_t given, Py_ssize_t wanted)
{
    if (given == wanted)
        return 0;
    PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", function, wanted,
                 given);
    return -1;
}

#endif
