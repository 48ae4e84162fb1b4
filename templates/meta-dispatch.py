"""@NAME@ @VERSION@: loads one of its backends, each a separate distribution.

The backends are tried in priority order; the first one that is installed at
the same version and imports is used, and its names are available here.
@ENV@=<backend> forces one.  __backend__ names the one in use, and
__backend_errors__ says why each backend tried before it was not used.
"""
import importlib as _importlib
import os as _os
import warnings as _warnings
from importlib import metadata as _metadata

_VERSION = "@VERSION@"
_ENV = "@ENV@"
# (backend, distribution, native module), highest priority first
_BACKENDS = (
@BACKENDS@)


def _normal(version):
    try:
        from packaging.version import Version
        return str(Version(version))
    except Exception:
        return version.strip().lower()


def _load():
    forced = _os.environ.get(_ENV, "").strip()
    candidates = _BACKENDS
    if forced:
        candidates = tuple(b for b in _BACKENDS if b[0] == forced)
        if not candidates:
            raise ImportError(
                "%s=%s names no backend of @NAME@: choose one of %s"
                % (_ENV, forced, ", ".join(b[0] for b in _BACKENDS)))
    errors = {}
    for backend, dist, native in candidates:
        try:
            installed = _metadata.version(dist)
        except _metadata.PackageNotFoundError:
            errors[backend] = "%s is not installed (pip install \"@NAME@[%s]==%s\")" % (dist, backend, _VERSION)
            continue
        if _normal(installed) != _normal(_VERSION):
            errors[backend] = ("%s %s is installed, but @NAME@ %s needs %s==%s"
                               % (dist, installed, _VERSION, dist, _VERSION))
            _warnings.warn("@NAME@: skipping backend %s: %s" % (backend, errors[backend]),
                           RuntimeWarning, stacklevel=3)
            continue
        try:
            module = _importlib.import_module(native)
        except ImportError as e:
            errors[backend] = "%s %s does not import: %s" % (dist, installed, e)
            if not forced:
                _warnings.warn("@NAME@: skipping backend %s: %s" % (backend, errors[backend]),
                               RuntimeWarning, stacklevel=3)
            continue
        return backend, module, errors
    if forced:
        installed = [b[0] for b in _BACKENDS if _installed(b[1])]
        raise ImportError("%s=%s: %s; installed backends: %s"
                          % (_ENV, forced, errors[forced], ", ".join(installed) or "none"))
    raise ImportError("no backend of @NAME@ could be loaded:\n"
                      + "\n".join("  %s: %s" % (b, why) for b, why in errors.items()))


def _installed(dist):
    try:
        _metadata.version(dist)
        return True
    except _metadata.PackageNotFoundError:
        return False


def _export(native):
    names = getattr(native, "__all__", None)
    if names is None:
        names = [n for n in dir(native) if not n.startswith("_")]
    for name in names:
        globals()[name] = getattr(native, name)
    return list(names)


__backend__, _native, __backend_errors__ = _load()
if getattr(_native, "__doc__", None):
    __doc__ = _native.__doc__
__all__ = _export(_native) + ["__backend__", "__backend_errors__"]
