"""Fixtures shared by several test modules: a local HTTP server and a stand-in method."""

from local_server import server  # noqa: F401 - fixture registered for all tests
from standin_method import standin  # noqa: F401 - fixture registered for all tests
