"""The package's namespace is its API: every public name of dir(gpuimg) is
in __all__ (or is a submodule of the package), every name of __all__ is
there, and the modules and typing names the package uses inside stay
private."""

import types

import gpuimg


def test_all_names_exist():
    missing = [n for n in gpuimg.__all__ if not hasattr(gpuimg, n)]
    assert not missing, f"in __all__ but not in the package: {missing}"


def test_public_names_are_the_api():
    extra = [n for n in dir(gpuimg) if not n.startswith("_") and n not in gpuimg.__all__
             and not (isinstance(getattr(gpuimg, n), types.ModuleType)
                      and getattr(gpuimg, n).__name__.startswith("gpuimg."))]
    assert not extra, f"public names outside __all__: {extra}"


def test_internals_are_private():
    for name in ("np", "os", "threading", "errno", "Dict", "Any", "Optional", "dataclass",
                 "contextmanager", "annotations"):
        assert name not in dir(gpuimg), name


def test_star_import_gives_the_api():
    namespace = {}
    exec("from gpuimg import *", namespace)
    assert sorted(n for n in namespace if n != "__builtins__") == sorted(gpuimg.__all__)
