/* The module of a game's compiled searches (`SEARCH_MODULE`): alpha-beta's `Search`
 * (negamax.h) and MCTS's `Tree` (uct.h). A game's file in agents/native/ includes this after its
 * rules and macros, then defines the hooks both declare. */
#ifndef ARBITER_SEARCH_MODULE_H
#define ARBITER_SEARCH_MODULE_H

#include "negamax.h"
#include "uct.h"

static struct PyModuleDef SEARCH_MODULE_DEF = {
    .m_base = PyModuleDef_HEAD_INIT,
    .m_name = SEARCH_MODULE,
    .m_doc = "A game's compiled searches: alpha-beta below the root (agents/native/negamax.h) "
             "and MCTS's tree (agents/native/uct.h).",
    .m_size = -1,
};

/* Adds a ready type to the module under `name`; -1 with an error set if it cannot. */
static int add_type(PyObject *module, const char *name, PyTypeObject *type)
{
    Py_INCREF(type);
    if (PyModule_AddObject(module, name, (PyObject *)type) < 0) {
        Py_DECREF(type);
        return -1;
    }
    return 0;
}

PyMODINIT_FUNC SEARCH_INIT(void)
{
    if (module_float("arbiter.agents.evaluation", "WIN", &WIN_SCORE) < 0 ||
        module_float("arbiter.agents.evaluation", "HEURISTIC", &HEURISTIC_SCORE) < 0 ||
        prepare_game() < 0 || PyType_Ready(&SEARCH_TYPE) < 0 || prepare_tree() < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&SEARCH_MODULE_DEF);
    if (module == NULL || add_type(module, "Search", &SEARCH_TYPE) < 0 ||
        add_type(module, "Tree", &TREE_TYPE) < 0) {
        Py_XDECREF(module);
        return NULL;
    }
    return module;
}

#endif
