"""The portable capture: inductor-fuzz's capture as a pure-Python package.

It runs where the C++ tool cannot be built (a GPU CI runner, another Python, another torch) and
writes the folders the tool analyses at home: a program's capture (the format `inductor-fuzz
capture` writes, by the same writer, inductor_fuzz_worker.capture_folder) or a file of cases run
through the worker's own oracles, one child process per run so that a crash is seen as one.
Nothing but the standard library, torch and inductor_fuzz_worker is imported.
"""

# The project's version (CMakeLists.txt's project()); a wheel scripts/setup builds also carries
# the git revision it was built from, in _revision.py.
__version__ = "0.1.0"


def tool_version():
    try:
        from ._revision import REVISION
    except ImportError:
        return __version__
    return f"{__version__}+{REVISION}"
