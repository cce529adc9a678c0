"""The package as the worker and the repro script use it: every module imports, and the
modules the repro script pastes in (oracles and what it imports) can be pasted together."""

import ast
import importlib
import pathlib
import re
import unittest

import inductor_fuzz_worker

PACKAGE = pathlib.Path(inductor_fuzz_worker.__file__).parent
# The repro script pastes oracles.py after what it imports, and each of those after what it
# imports, depth first in the order of the `from .NAME import` lines (ReproScriptModules in
# repro_script.cpp, which this follows).
IMPORT_LINE = re.compile(r"^[ \t]*from \.(\w+) import", re.MULTILINE)


def pasted_in_order(root):
    order, visiting = [], []

    def visit(stem):
        if stem in order:
            return
        if stem in visiting:
            raise AssertionError(f"{visiting[-1]} and {stem} import each other")
        visiting.append(stem)
        for imported in IMPORT_LINE.findall((PACKAGE / f"{stem}.py").read_text()):
            visit(imported)
        visiting.pop()
        order.append(stem)

    visit(root)
    return tuple(order)


EMBEDDED_IN_SCRIPT = pasted_in_order("oracles")
# Names the repro script itself defines at top level.
SCRIPT_NAMES = {"CASE", "INDUCTOR_CONFIG", "DYNAMIC", "MASK_MOD_SOURCE", "SCORE_MOD_SOURCE", "main"}


def top_level_definitions(tree):
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


class PackageTest(unittest.TestCase):
    def test_every_module_imports(self):
        for path in sorted(PACKAGE.glob("*.py")):
            if path.stem != "__init__":
                with self.subTest(module=path.stem):
                    importlib.import_module(f"inductor_fuzz_worker.{path.stem}")

    def test_script_modules_import_nothing_from_the_package(self):
        """Only one import from the package is allowed: `from .compat import ...` inside a
        `try` that passes on ImportError, in a module pasted after compat (whose names the
        pasted text then already defines)."""
        for index, stem in enumerate(EMBEDDED_IN_SCRIPT):
            tree = ast.parse((PACKAGE / f"{stem}.py").read_text())
            guarded = set()
            for node in ast.walk(tree):
                if isinstance(node, ast.Try) and any(
                    isinstance(h.type, ast.Name) and h.type.id == "ImportError"
                    for h in node.handlers
                ):
                    guarded.update(id(n) for n in node.body)
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom):
                    self.assertFalse((node.module or "").startswith("inductor_fuzz_worker"))
                    if node.level == 0:
                        continue
                    # Only a module pasted before it, whose text then defines what it imports.
                    module = node.module
                    self.assertIn(module, EMBEDDED_IN_SCRIPT, f"{stem}.py: relative import")
                    self.assertIn(id(node), guarded, f"{stem}.py: unguarded import of {module}")
                    self.assertLess(EMBEDDED_IN_SCRIPT.index(module), index, stem)
                    text = (PACKAGE / f"{module}.py").read_text()
                    defined = top_level_definitions(ast.parse(text))
                    for alias in node.names:
                        self.assertIn(alias.name, defined, f"{stem}.py imports {alias.name}")

    def test_script_modules_pasted_together_clash_with_nothing(self):
        seen = set()
        for stem in EMBEDDED_IN_SCRIPT:
            names = top_level_definitions(ast.parse((PACKAGE / f"{stem}.py").read_text()))
            self.assertEqual(names & SCRIPT_NAMES, set(), stem)
            self.assertEqual(names & seen, set(), stem)
            seen |= names

    def test_every_api_of_the_registry_is_pasted(self):
        from inductor_fuzz_worker import apis

        for name, api in apis.APIS.items():
            self.assertIn(api.__module__.rsplit(".", 1)[-1], EMBEDDED_IN_SCRIPT, name)

    def test_script_modules_pasted_together_work(self):
        namespace = {"__name__": "repro"}
        exec(
            "\n".join((PACKAGE / f"{stem}.py").read_text() for stem in EMBEDDED_IN_SCRIPT),
            namespace,
        )
        for name in (
            "Api",
            "build_namespace",
            "plant_difference",
            "describe_exception",
            "classify_exception",
            "TEST_PLANT_VARIABLE",
        ):
            self.assertIn(name, namespace)
        self.assertEqual(list(namespace["APIS"]), list(apis_registry().APIS))


def apis_registry():
    from inductor_fuzz_worker import apis

    return apis


if __name__ == "__main__":
    unittest.main()
