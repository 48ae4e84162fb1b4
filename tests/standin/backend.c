/*
 * backend.c — a stand-in for one backend's native module, built by
 * tests/t-meta-pip.sh where maturin would build the Rust crate.
 *
 * LEAF is the native module's name (its PyInit_ symbol, as PyO3 exports it)
 * and BACKEND the backend it answers for.  With SUBMODULES it registers
 * "<PACKAGE>.models" in sys.modules, as llm-rs's Rust code does for its
 * Python package.  Linked against a library that is later removed, it fails
 * to import as a CUDA build does on a machine without the CUDA runtime.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef LEAF
#error "LEAF must name the native module"
#endif
#ifndef BACKEND
#error "BACKEND must name the backend"
#endif

#define JOIN(a, b) a##b
#define INIT(leaf) JOIN(PyInit_, leaf)
#define TEXT(x) #x
#define NAME(x) TEXT(x)

#ifdef NEEDS_RUNTIME
extern int standin_runtime_version(void);
#endif

static PyObject *generate(PyObject *self, PyObject *prompt)
{
	(void)self;
	if (!PyUnicode_Check(prompt)) {
		PyErr_SetString(PyExc_TypeError, "prompt must be a str");
		return NULL;
	}
	return PyUnicode_FromFormat("%s: %U", BACKEND, prompt);
}

static PyMethodDef methods[] = {
	{"generate", generate, METH_O, "Answer a prompt, naming the backend."},
	{NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
	PyModuleDef_HEAD_INIT, NAME(LEAF), "stand-in native module (" BACKEND ")", -1, methods,
	NULL, NULL, NULL, NULL,
};

#ifdef SUBMODULES
static int add_models(PyObject *m)
{
	PyObject *models, *modules;
	int err;

	if (!(models = PyModule_New(SUBMODULES ".models")))
		return -1;
	if (PyModule_AddStringConstant(models, "LLAMA", "llama on " BACKEND) < 0 ||
	    !(modules = PyImport_GetModuleDict()) ||
	    PyDict_SetItemString(modules, SUBMODULES ".models", models) < 0) {
		Py_DECREF(models);
		return -1;
	}
	err = PyModule_AddObjectRef(m, "models", models);
	Py_DECREF(models);
	return err;
}
#endif

PyMODINIT_FUNC INIT(LEAF)(void)
{
	PyObject *m = PyModule_Create(&module);

	if (!m)
		return NULL;
#ifdef NEEDS_RUNTIME
	if (PyModule_AddIntConstant(m, "RUNTIME", standin_runtime_version()) < 0)
		goto fail;
#endif
	if (PyModule_AddStringConstant(m, "BACKEND", BACKEND) < 0)
		goto fail;
#ifdef SUBMODULES
	if (add_models(m) < 0)
		goto fail;
#endif
	return m;
fail:
	Py_DECREF(m);
	return NULL;
}
