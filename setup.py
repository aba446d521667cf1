"""The one build step pyproject.toml cannot state without an experimental table: grist's C
modules, the tree walk of ``auto`` (``grist.classify._treewalk``), the page scans of loading
and the structure check (``grist.html._scan``) and the segmenter's walk
(``grist.segment._walk``). All are optional: without a C compiler the install goes on,
``grist.classify.forest`` walks the trees with NumPy, ``grist.html`` scans with regexes and
``grist.segment.blocks`` walks pages in Python (same results, slower)."""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("grist.classify._treewalk", ["src/grist/classify/_treewalk.c"], optional=True),
    Extension("grist.html._scan", ["src/grist/html/_scan.c"], optional=True),
    Extension("grist.segment._walk", ["src/grist/segment/_walk.c"], optional=True),
])
