"""Loads the injected-bug benchmark into every Python that has this folder on PYTHONPATH.

bench/bucket_quality.sh puts bench/injected_bugs on PYTHONPATH before it starts
`inductor-fuzz fuzz`; the campaign's workers inherit the environment, and the CPython they
embed imports sitecustomize at start. Nothing is imported from torch here: the patches are
applied when torch._inductor's modules are first imported (inductor_fuzz_inject).
"""

import os
import sys

try:
    import inductor_fuzz_inject

    inductor_fuzz_inject.install()
except Exception as error:  # never break the interpreter that loaded us
    sys.stderr.write(f"inductor_fuzz_inject: not installed: {type(error).__name__}: {error}\n")

# Chain to the sitecustomize this one shadows (Debian's installs apport's hook), if any.
_here = os.path.dirname(os.path.abspath(__file__))
for _entry in sys.path:
    _candidate = os.path.join(_entry or os.getcwd(), "sitecustomize.py")
    if os.path.abspath(_entry or os.getcwd()) != _here and os.path.isfile(_candidate):
        try:
            with open(_candidate, encoding="utf-8") as _source:
                exec(compile(_source.read(), _candidate, "exec"), {"__name__": "sitecustomize"})
        except Exception:
            pass
        break
