#!/usr/bin/env python3
"""Candidates for reducing a case's mask_mod or score_mod source, through Python's syntax tree.

Reads one JSON request on stdin: {"source": ..., "function": the name the case calls, "pass":
a pass name or "count", "program": true for a tensor program (api tensor_program, a function of
its inputs x0, x1, ...: its arguments and the values it assigns are its leaves, not q_idx and
kv_idx)}. Writes {"candidates": [source, ...], "nodes": N}: every candidate is the
source with one change, smallest change first, each still defining `function`. Deterministic: the
same request gives the same candidates in the same order. Needs only the standard library (no
torch), so it runs with any python3 >= 3.9. A module of the worker's package so that it ships
inside the binary: the case reducer runs its source with `python -c` (case_passes.cpp).
"""

import ast
import copy
import json
import sys

COMBINATORS = ("and_masks", "or_masks")
LEAVES = ("q_idx", "kv_idx", "b", "h")
# What replace-by-leaf puts in a mask's place, smallest first.
MASK_REPLACEMENTS = ("q_idx", "kv_idx", "0", "True", "q_idx >= kv_idx")


class Scope:
    """The names an expression may become (`leaves`) and what replace-by-leaf tries
    (`replacements`): a mask's indices, or a tensor program's arguments and assigned values."""

    def __init__(self, tree, function, program):
        self.leaves, self.replacements = LEAVES, MASK_REPLACEMENTS
        if program:
            arguments, assigned = program_names(tree, function)
            self.leaves = tuple(arguments + assigned)
            self.replacements = tuple(arguments)


def program_names(tree, function):
    """A tensor program's argument names and the names its body assigns, in order."""
    arguments, assigned = [], []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == function:
            arguments = [argument.arg for argument in node.args.args]
            for statement in ast.walk(node):
                for target in getattr(statement, "targets", []):
                    for name in ast.walk(target):
                        if isinstance(name, ast.Name) and name.id not in arguments + assigned:
                            assigned.append(name.id)
    return arguments, assigned


def count_nodes(tree):
    return sum(1 for node in ast.walk(tree) if isinstance(node, ast.expr))


def replace_node(tree, target, replacement):
    """A copy of tree where the expression `target` (by identity in tree) is `replacement`."""
    copied_tree = copy.deepcopy(tree)
    # Find the target's copy by walking both trees in lock step.
    mapping = dict(zip(map(id, ast.walk(tree)), ast.walk(copied_tree), strict=False))
    copied_target = mapping[id(target)]

    class CopyReplacer(ast.NodeTransformer):
        def generic_visit(self, node):
            for field, value in ast.iter_fields(node):
                if isinstance(value, list):
                    value[:] = [
                        copy.deepcopy(replacement) if item is copied_target else item
                        for item in value
                    ]
                elif value is copied_target:
                    setattr(node, field, copy.deepcopy(replacement))
            return super().generic_visit(node)

    return CopyReplacer().visit(copied_tree)


def in_body(tree, leaves=LEAVES):
    """Expressions that compute something: inside function bodies, not the call to a combinator."""
    result = []
    for function in tree.body:
        if isinstance(function, ast.FunctionDef):
            for statement in function.body:
                for node in ast.walk(statement):
                    if (
                        isinstance(node, ast.expr)
                        and not isinstance(node, ast.Name)
                        or (isinstance(node, ast.Name) and node.id not in leaves)
                    ):
                        if isinstance(
                            node,
                            (
                                ast.BinOp,
                                ast.Compare,
                                ast.BoolOp,
                                ast.UnaryOp,
                                ast.Call,
                                ast.Subscript,
                                ast.IfExp,
                            ),
                        ):
                            result.append(node)
    return result


def pass_replace_by_child(tree, function, scope):
    for node in in_body(tree, scope.leaves):
        for child in ast.iter_child_nodes(node):
            if (
                isinstance(child, ast.expr)
                and not isinstance(child, ast.Attribute)
                and not (isinstance(child, ast.Name) and child.id not in scope.leaves)
            ):
                yield replace_node(tree, node, child)


def pass_replace_by_leaf(tree, function, scope):
    for node in in_body(tree, scope.leaves):
        # Smallest first: the first that keeps the failure is taken, so a bigger leaf would
        # hide a smaller one (`q_idx >= kv_idx` where `q_idx` alone keeps the failure too).
        for replacement in scope.replacements:
            yield replace_node(tree, node, ast.parse(replacement, mode="eval").body)


def pass_drop_mask_arm(tree, function, scope):
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in COMBINATORS
        ):
            for index in range(len(node.args)):
                if len(node.args) == 1:
                    continue
                remaining = [arg for i, arg in enumerate(node.args) if i != index]
                if len(remaining) == 1:
                    yield replace_node(tree, node, remaining[0])
                else:
                    call = copy.deepcopy(node)
                    call.args = [copy.deepcopy(arg) for arg in remaining]
                    yield replace_node(tree, node, call)


def defined_functions(tree):
    return {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}


def without_unused_functions(tree, function):
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    tree.body = [
        statement
        for statement in tree.body
        if not isinstance(statement, ast.FunctionDef)
        or statement.name == function
        or statement.name in used
    ]
    return tree


def pass_inline_helpers(tree, function, scope):
    """`function = helper` becomes `def function` with helper's body; unused defs are dropped."""
    functions = defined_functions(tree)
    for index, statement in enumerate(tree.body):
        if (
            isinstance(statement, ast.Assign)
            and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id == function
            and isinstance(statement.value, ast.Name)
            and statement.value.id in functions
        ):
            helper = copy.deepcopy(functions[statement.value.id])
            helper.name = function
            new_tree = copy.deepcopy(tree)
            new_tree.body[index] = helper
            yield without_unused_functions(new_tree, function)
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    for index, statement in enumerate(tree.body):
        if (
            isinstance(statement, ast.FunctionDef)
            and statement.name != function
            and statement.name not in used
        ):
            new_tree = copy.deepcopy(tree)
            del new_tree.body[index]
            yield new_tree


def pass_shrink_constants(tree, function, scope):
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Constant)
            and isinstance(node.value, (int, float))
            and not isinstance(node.value, bool)
            and node.value not in (0, 1)
        ):
            for value in (0, 1, int(node.value) // 2 if abs(node.value) >= 4 else None):
                if value is not None and value != node.value:
                    yield replace_node(tree, node, ast.Constant(value))


def used_names(statements):
    return {
        node.id
        for statement in statements
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }


def dead_statements(body):
    """Indices of body's statements whose value nothing after them uses: an assignment to names
    no later statement reads, or a bare expression (its value dropped, as an in-place update's)."""
    dead = []
    for index, statement in enumerate(body):
        if isinstance(statement, ast.Expr) and not isinstance(statement.value, ast.Constant):
            dead.append(index)
        elif isinstance(statement, ast.Assign):
            targets = {
                n.id for t in statement.targets for n in ast.walk(t) if isinstance(n, ast.Name)
            }
            if targets and not targets & used_names(body[index + 1 :]):
                dead.append(index)
    return dead


def pass_drop_unused(tree, function, scope):
    """Statements of the function whose value nothing uses dropped (what replace-by-child leaves
    behind): every dead assignment at once, repeated until none is left, then each one alone."""
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name == function):
            continue
        index = tree.body.index(node)
        new_tree = copy.deepcopy(tree)
        body = new_tree.body[index].body
        while True:
            assignments = [i for i in dead_statements(body) if isinstance(body[i], ast.Assign)]
            if not assignments or len(assignments) == len(body):
                break
            body[:] = [s for i, s in enumerate(body) if i not in assignments]
        yield new_tree
        for dead in dead_statements(node.body):
            if len(node.body) > 1:
                new_tree = copy.deepcopy(tree)
                del new_tree.body[index].body[dead]
                yield new_tree


def pass_drop_output(tree, function, scope):
    """One element less in the tuple the function returns (a tensor program's outputs)."""
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name == function):
            continue
        for statement in ast.walk(node):
            if isinstance(statement, ast.Return) and isinstance(statement.value, ast.Tuple):
                elements = statement.value.elts
                for index in range(len(elements) if len(elements) > 1 else 0):
                    kept = ast.Tuple([e for i, e in enumerate(elements) if i != index], ast.Load())
                    yield replace_node(tree, statement.value, kept)


PASSES = {
    "drop-mask-arm": pass_drop_mask_arm,
    "drop-output": pass_drop_output,
    "drop-unused": pass_drop_unused,
    "inline-helpers": pass_inline_helpers,
    "replace-by-child": pass_replace_by_child,
    "replace-by-leaf": pass_replace_by_leaf,
    "shrink-constants": pass_shrink_constants,
}


def candidates(source, function, pass_name, program=False):
    tree = ast.parse(source)
    seen = {ast.unparse(tree)}
    results = []
    for candidate in PASSES[pass_name](tree, function, Scope(tree, function, program)):
        ast.fix_missing_locations(candidate)
        text = ast.unparse(candidate) + "\n"
        if text.strip() in seen:
            continue
        seen.add(text.strip())
        defines = any(
            isinstance(node, ast.FunctionDef)
            and node.name == function
            or isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == function for t in node.targets)
            for node in candidate.body
        )
        if defines:
            results.append((count_nodes(candidate), text))
    results.sort(key=lambda item: item[0])  # smallest first; sort is stable
    return [text for _, text in results]


def main():
    request = json.load(sys.stdin)
    try:
        tree = ast.parse(request["source"])
    except SyntaxError as error:
        print(json.dumps({"error": f"the source does not parse: {error}"}))
        return 2
    name = request.get("pass", "count")
    if name != "count" and name not in PASSES:
        print(json.dumps({"error": f"unknown pass {name!r}; known: {', '.join(PASSES)}"}))
        return 2
    result = {"nodes": count_nodes(tree), "candidates": []}
    if name != "count":
        result["candidates"] = candidates(
            request["source"], request["function"], name, bool(request.get("program"))
        )
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
