"""The one build step pyproject.toml cannot state without an experimental table: the C tree walk
of ``auto`` (``grist.classify._treewalk``). It is optional: without a C compiler the install
goes on and ``grist.classify.forest`` walks the trees with NumPy (same results, slower)."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("grist.classify._treewalk", ["src/grist/classify/_treewalk.c"],
                             optional=True)])
