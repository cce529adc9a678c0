"""What memory a compiled kernel never wrote reads as.

An exactly compared result whose tail a kernel never wrote holds whatever its buffer held
before: often a freed tensor of the same size, eager's own result among them, so the bug passes
by chance. While a compiled exact-API case runs, glibc fills every block it hands out with zeros
(mallopt's M_PERTURB, whose fill is the byte's complement), so an unwritten element reads 0 on
every run and every machine. The float attention APIs are left as they are: their keys were
measured on the allocator's own garbage."""

import contextlib
import ctypes
import sys

M_PERTURB = -6
ZERO_FILL = 0xFF
_libc = []


def _mallopt():
    if not _libc:
        try:
            library = ctypes.CDLL(None) if sys.platform.startswith("linux") else None
            _libc.append(getattr(library, "mallopt", None))
        except OSError:
            _libc.append(None)
    return _libc[0]


@contextlib.contextmanager
def zeroed_allocations():
    mallopt = _mallopt()
    if mallopt is None:
        yield
        return
    mallopt(M_PERTURB, ZERO_FILL)
    try:
        yield
    finally:
        mallopt(M_PERTURB, 0)
