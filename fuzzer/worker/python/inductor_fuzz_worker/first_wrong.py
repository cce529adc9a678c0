"""Where a wrong program's value first goes wrong: the first statement whose value torch.compile
gets wrong on its own.

A tensor program's wrong output says little of its cause: one bug in `amax` of int8 shows as
"output0 differs" behind any number of later statements, and two bugs behind one output look
alike. So after a wrong result the worker compiles the program once more returning the value of
every statement (a copy of it where a later statement updates it in place), under the case's
settings, judges each by the same rules, and the first wrong one in program order names the
statement: its operation, the dtypes of its operands and of its value. Every operand of that
statement was right, so the cause is there. Returning every value keeps each kernel's producers
but may split a fusion: when nothing is wrong that way, the program's prefixes are compiled in
turn (statement 0 alone returning its value, then statements 0-1, ...), each keeping the
producers of its last value as the program has them, and the first wrong prefix names it. When
neither finds one (the cause needs a later consumer, or several outputs together), nothing is
named.

The name goes into the finding's signature as the fact `first`, `OP(OPERAND DTYPES)->DTYPE`
(`amax(int8)->int8`), so that one cause is one bug whatever the program around it, and a known
issue can match it.
"""

import ast
import copy
import time

# Seconds after which no further prefix is compiled: a locator that ran out names nothing.
FIRST_WRONG_BUDGET_SECONDS = 90.0

# Python's operators as the torch function each one calls.
_OPERATORS = {
    ast.Add: "add",
    ast.Sub: "sub",
    ast.Mult: "mul",
    ast.Div: "div",
    ast.FloorDiv: "floor_divide",
    ast.Mod: "remainder",
    ast.Pow: "pow",
    ast.BitAnd: "bitwise_and",
    ast.BitOr: "bitwise_or",
    ast.BitXor: "bitwise_xor",
    ast.LShift: "bitwise_left_shift",
    ast.RShift: "bitwise_right_shift",
    ast.MatMult: "matmul",
    ast.Lt: "lt",
    ast.LtE: "le",
    ast.Gt: "gt",
    ast.GtE: "ge",
    ast.Eq: "eq",
    ast.NotEq: "ne",
    ast.Invert: "bitwise_not",
    ast.USub: "neg",
    ast.Not: "logical_not",
}


class Statement:
    """One statement of the program: its text, the name whose value it makes or updates, the
    operation and the names it reads."""

    def __init__(self, node, target, operation, operands):
        self.node, self.target = node, target
        self.operation, self.operands = operation, operands

    def text(self):
        return ast.unparse(self.node)


def operation_of(expression):
    """The operation an expression ends in: `torch.amax(...)` and `x.amax(...)` are "amax",
    `torch.cummax(x, 0).values` "cummax", `a * b` "mul", `x[::2]` "getitem"."""
    if isinstance(expression, ast.Call):
        function = expression.func
        if isinstance(function, ast.Attribute):
            return function.attr
        if isinstance(function, ast.Name):
            return function.id
        return "call"
    if isinstance(expression, ast.Attribute):
        return (
            operation_of(expression.value) if isinstance(expression.value, ast.Call) else "getattr"
        )
    if isinstance(expression, ast.BinOp | ast.UnaryOp):
        return _OPERATORS.get(type(expression.op), type(expression.op).__name__.lower())
    if isinstance(expression, ast.Compare) and len(expression.ops) == 1:
        return _OPERATORS.get(type(expression.ops[0]), "compare")
    if isinstance(expression, ast.BoolOp):
        return "logical_and" if isinstance(expression.op, ast.And) else "logical_or"
    if isinstance(expression, ast.Subscript):
        return "getitem"
    if isinstance(expression, ast.IfExp):
        return "where"
    return type(expression).__name__.lower()


def _names_read(node, known):
    """The program's values the node reads (arguments and earlier targets), in order, once."""
    seen = []
    for sub in ast.walk(node):
        if isinstance(sub, ast.Name) and sub.id in known and sub.id not in seen:
            seen.append(sub.id)
    return seen


def _updated_name(expression):
    """The name an in-place call updates (`x0.index_put_(...)`, `v2.add_(...)`), or None."""
    if (
        isinstance(expression, ast.Call)
        and isinstance(expression.func, ast.Attribute)
        and expression.func.attr.endswith("_")
        and isinstance(expression.func.value, ast.Name)
    ):
        return expression.func.value.id
    return None


def program_statements(source, name):
    """(the function's node, its statements before the return). A statement that neither
    assigns one name nor updates one in place (and any after it) ends the list: the locator
    names only what it can prefix."""
    tree = ast.parse(source)
    function = next(
        (n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name), None
    )
    if function is None:
        raise ValueError(f"the program's source defines no function {name!r}")
    known = [argument.arg for argument in function.args.args]
    statements = []
    for node in function.body:
        if isinstance(node, ast.Return):
            break
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                operands = _names_read(node.value, known)
                statements.append(Statement(node, target.id, operation_of(node.value), operands))
                known.append(target.id)
                continue
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                # x[::2] = v: an update of x by a slice assignment
                operands = _names_read(node, known)
                statements.append(Statement(node, target.value.id, "setitem", operands))
                continue
        if isinstance(node, ast.Expr) and _updated_name(node.value):
            updated = _updated_name(node.value)
            operands = _names_read(node.value, known)
            statements.append(Statement(node, updated, operation_of(node.value), operands))
            continue
        break
    return function, statements


def prefix_source(function, statements, count):
    """The program's first `count` statements, returning the last one's value (as a tuple)."""
    prefix = copy.deepcopy(function)
    last = statements[count - 1]
    value = ast.Name(id=last.target, ctx=ast.Load())
    prefix.body = [copy.deepcopy(s.node) for s in statements[:count]]
    prefix.body.append(ast.Return(value=ast.Tuple(elts=[value], ctx=ast.Load())))
    prefix.decorator_list = []
    return ast.unparse(ast.fix_missing_locations(ast.Module(body=[prefix], type_ignores=[])))


def _dtype_name(value):
    import torch

    if isinstance(value, torch.Tensor):
        return str(value.dtype).removeprefix("torch.")
    return type(value).__name__


def describe(statement, dtypes):
    """`OP(OPERAND DTYPES)->DTYPE`: amax(int8)->int8, add(uint8,int64)->int64."""
    operands = ",".join(dtypes.get(name, "?") for name in statement.operands)
    return f"{statement.operation}({operands})->{dtypes.get(statement.target, '?')}"


def every_value_source(function, statements):
    """The program returning, after its arguments, the value each statement makes: a copy
    taken right after it (`_value_K = target.clone()`) where a later statement, or this one,
    updates the target in place, so that each value is the one its statement made."""
    everything = copy.deepcopy(function)
    arguments = [argument.arg for argument in function.args.args]
    body, returned = [], [ast.Name(id=n, ctx=ast.Load()) for n in arguments]
    for index, statement in enumerate(statements):
        body.append(copy.deepcopy(statement.node))
        updated_later = any(
            later.target == statement.target
            for later in statements[index + (0 if _in_place(statement) else 1) :]
            if _in_place(later)
        )
        if updated_later:
            copy_name = f"_value_{index}"
            body.append(ast.parse(f"{copy_name} = {statement.target}.clone()").body[0])
            returned.append(ast.Name(id=copy_name, ctx=ast.Load()))
        else:
            returned.append(ast.Name(id=statement.target, ctx=ast.Load()))
    body.append(ast.Return(value=ast.Tuple(elts=returned, ctx=ast.Load())))
    everything.body = body
    everything.decorator_list = []
    return ast.unparse(ast.fix_missing_locations(ast.Module(body=[everything], type_ignores=[])))


def _in_place(statement):
    return not (
        isinstance(statement.node, ast.Assign) and isinstance(statement.node.targets[0], ast.Name)
    )


def _dtypes(function, statements, values):
    """Every name's dtype: an argument's as it came in, a target's as its statement left it."""
    arguments = [argument.arg for argument in function.args.args]
    dtypes = {name: _dtype_name(value) for name, value in zip(arguments, values, strict=False)}
    for statement, value in zip(statements, values[len(arguments) :], strict=False):
        dtypes.setdefault(statement.target, _dtype_name(value))
        if not _in_place(statement):
            dtypes[statement.target] = _dtype_name(value)
    return dtypes


def _judged(api_class, case, namespace_of, inductor_config, dynamic):
    """(eager's outputs, the mismatches) of a case whose program is its own: defined, run
    eagerly and compiled as a case is, and judged; a compile that fails has no mismatches."""
    import torch

    torch._dynamo.reset()
    api = api_class(case, namespace_of(case))
    api.make_inputs()
    eager = api.run_eager()
    try:
        compiled = api.run_compiled(inductor_config, dynamic)
        found, _ = api.compare(eager, compiled)
    except Exception:  # a program that fails to compile is not this wrong result's cause
        found = []
    return eager[0], found


def _output_index(mismatch):
    field = mismatch.get("field", "")
    return int(field.removeprefix("output")) if field.removeprefix("output").isdigit() else None


def _with_source(case, source):
    changed = dict(case)
    changed["mask_mod"] = dict(case["mask_mod"], source=source)
    return changed


def locate_first_wrong(api_class, case, namespace_of, inductor_config, dynamic, budget=None):
    """The first statement torch.compile gets wrong, as a dict (index, statement, operation,
    first: the fact, how: "every-value" or "prefix", the programs compiled, seconds), or None
    when there is none (or the budget ran out first).

    api_class is the case's oracle class and namespace_of builds a case's namespace, so that
    each program is defined, run and judged as a case of its own."""
    budget = FIRST_WRONG_BUDGET_SECONDS if budget is None else budget
    started = time.monotonic()
    function, statements = program_statements(case["mask_mod"]["source"], case["mask_mod"]["name"])
    if not statements:
        return None
    arguments = len(function.args.args)

    def located(index, how, compiled):
        statement = statements[index]
        return {
            "index": index,
            "statement": statement.text(),
            "operation": statement.operation,
            "first": describe(statement, dtypes),
            "how": how,
            "programs_compiled": compiled,
            "seconds": round(time.monotonic() - started, 3),
        }

    try:
        values, found = _judged(
            api_class,
            _with_source(case, every_value_source(function, statements)),
            namespace_of,
            inductor_config,
            dynamic,
        )
    except Exception:  # eager cannot run it so: nothing is named, the finding stands
        return None
    dtypes = _dtypes(function, statements, values)
    outputs = [_output_index(mismatch) for mismatch in found]
    wrong = sorted(
        index - arguments for index in outputs if index is not None and index >= arguments
    )
    if wrong:
        return located(wrong[0], "every-value", 1)
    for count in range(1, len(statements) + 1):
        if time.monotonic() - started > budget:
            return None
        prefix = _with_source(case, prefix_source(function, statements, count))
        try:
            _, found = _judged(api_class, prefix, namespace_of, inductor_config, dynamic)
        except Exception:
            found = []
        if found:
            return located(count - 1, "prefix", count + 1)
    return None
