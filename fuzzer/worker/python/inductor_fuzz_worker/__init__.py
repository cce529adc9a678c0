"""The inductor-fuzz worker's Python half.

The C++ worker (fuzzer/worker/worker_main.cpp) embeds CPython, carries this package's sources
inside its binary and imports them from there, so that the worker never depends on files beside
it. serve.serve() is its entry point. The repro script (fuzzer/worker/repro_script.cpp) embeds
oracles.py verbatim, after the modules it imports (the registry of APIs apis.py, each API's
api_*.py, comparisons.py, compat.py, exceptions.py, plants.py...), each after those it imports:
each imports from this package only under `except ImportError`, so that a standalone script and
the worker compare results with one and the same code. Four modules
are programs the C++ side runs with a venv's python (`python -c SOURCE`, the source from the
binary): environment.py and first_call.py (workflows/), mask_ast.py (the case reducer) and
mutate_source.py (the campaign's mutator). The package is the only Python the tool ships, and
the binary is the only place it is read from here. Elsewhere, the portable capture
(../inductor_fuzz_capture, one wheel with this package) runs serve() and program.main() in
child pythons of that machine's own; capture_folder.py writes the capture folder on both.
"""
