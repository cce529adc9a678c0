"""Reading the C++ Inductor generates: its extern "C" kernels and where their bodies are.

Every source bug looks for its trigger inside one kernel's body, and some add a declaration
before the kernel's header: kernels() gives each definition's name, parameter text and body
span, with string literals and comments skipped when matching braces. Nothing here knows a bug.
"""

import re


def _skip_literal(code, i):
    """Index after the string, character literal or comment starting at code[i], else i."""
    c = code[i]
    if c in "\"'":
        j = i + 1
        while j < len(code) and code[j] != c:
            j += 2 if code[j] == "\\" else 1
        return j + 1
    if code.startswith("//", i):
        j = code.find("\n", i)
        return len(code) if j < 0 else j
    if code.startswith("/*", i):
        j = code.find("*/", i + 2)
        return len(code) if j < 0 else j + 2
    return i


def matching_brace(code, open_index):
    """Index of the "}" closing the "{" at open_index (string literals and comments skipped)."""
    depth, i = 0, open_index
    while i < len(code):
        j = _skip_literal(code, i)
        if j != i:
            i = j
            continue
        if code[i] == "{":
            depth += 1
        elif code[i] == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    raise ValueError("unbalanced braces")


_FUNCTION = re.compile(r'extern "C"\s+void\s+(\w+)\s*\(([^)]*)\)\s*([;{])')


class Kernel:
    """An extern "C" function defined in a TU: name, parameter text, body span."""

    def __init__(self, name, params, header_start, body_open, body_close):
        self.name, self.params = name, params
        self.header_start, self.body_open, self.body_close = header_start, body_open, body_close

    def body(self, code):
        return code[self.body_open + 1 : self.body_close]


def kernels(code):
    """The extern "C" functions code defines (forward declarations skipped), in order."""
    found = []
    for match in _FUNCTION.finditer(code):
        if match.group(3) != "{":
            continue
        if found and match.start() < found[-1].body_close:
            continue  # inside the previous function (cannot happen in Inductor's output)
        close = matching_brace(code, match.end(3) - 1)
        found.append(Kernel(match.group(1), match.group(2), match.start(), match.end(3) - 1, close))
    return found
