#!/usr/bin/env python3
"""Mutations of a case's mask_mod or score_mod source, through Python's syntax tree: the dual of
the case reducer's syntax passes (mask_ast.py, beside it), for the campaign's feedback.

Reads one JSON request from its first argument (or stdin): {"source": ...,
"operation": "operator" | "constant" | "subexpression" | "splice" | "wrap" | "detour",
"seed": N, "donor": a second source (for subexpression and splice)}.
Writes {"source": the mutated source or null when the operation has nothing to change,
"what": one line saying what changed, "names": the free names the change brought in (the
donor's constants and tables, which the caller copies into the case), "knobs": Inductor
settings the change needs to mean in compiled code what it means in eager (the caller sets
them in the case)}. Deterministic: the
same request gives the same answer. Needs only the standard library (no torch).
"""

import ast
import copy
import json
import random
import sys

PARAMETERS = {"score", "b", "h", "q_idx", "kv_idx"}
COMBINATORS = {"and_masks", "or_masks"}

ARITHMETIC = [ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod]
BITWISE = [ast.BitAnd, ast.BitOr, ast.BitXor]
COMPARISON = [ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq]


def expressions(tree):
    """Expressions in function bodies that compute something (not a combinator's call)."""
    found = []
    for function in tree.body:
        if isinstance(function, ast.FunctionDef):
            for statement in function.body:
                for node in ast.walk(statement):
                    if isinstance(
                        node,
                        (
                            ast.BinOp,
                            ast.Compare,
                            ast.UnaryOp,
                            ast.Call,
                            ast.Subscript,
                            ast.Constant,
                            ast.Name,
                        ),
                    ):
                        found.append(node)
    return found


def kind_of(node):
    """'bool', 'int', 'float' or None (unknown): what replacing this node must keep."""
    if isinstance(node, ast.Compare):
        return "bool"
    if isinstance(node, ast.Constant):
        if isinstance(node.value, bool):
            return "bool"
        if isinstance(node.value, int):
            return "int"
        if isinstance(node.value, float):
            return "float"
        return None
    if isinstance(node, ast.Name):
        return "float" if node.id == "score" else "int" if node.id in PARAMETERS else None
    if isinstance(node, ast.UnaryOp):
        return kind_of(node.operand)
    if isinstance(node, ast.BinOp):
        left, right = kind_of(node.left), kind_of(node.right)
        if type(node.op) in BITWISE:
            return left if left == right else None
        if "float" in (left, right) or isinstance(node.op, ast.Div):
            return "float"
        return "int" if left == right == "int" else None
    return None


def free_names(node):
    return sorted(
        {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}
        - PARAMETERS
        - {"torch", "abs", "min", "max"}
    )


def unparse(tree):
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"


def mutate_operator(tree, rng):
    candidates = []
    for node in expressions(tree):
        if isinstance(node, ast.BinOp):
            for group in (ARITHMETIC, BITWISE):
                if type(node.op) in group:
                    candidates.append((node, "op", group))
        elif isinstance(node, ast.Compare) and len(node.ops) == 1:
            candidates.append((node, "ops", COMPARISON))
    if not candidates:
        return None, ""
    node, field, group = rng.choice(candidates)
    old = type(node.op) if field == "op" else type(node.ops[0])
    new = rng.choice([op for op in group if op is not old])
    if field == "op":
        node.op = new()
    else:
        node.ops = [new()]
    return tree, f"operator {old.__name__} -> {new.__name__}"


def mutate_constant(tree, rng):
    constants = [
        n
        for n in expressions(tree)
        if isinstance(n, ast.Constant)
        and isinstance(n.value, (int, float))
        and not isinstance(n.value, bool)
    ]
    if not constants:
        return None, ""
    node = rng.choice(constants)
    old = node.value
    if isinstance(old, float):
        new = rng.choice([old * 2, old / 2, -old, 0.0, 1.0, 30.0])
    else:
        new = rng.choice([old + 1, old - 1, old * 2, -old, 0, 1, 7, 63, 64, 127, 128, 129, 1000])
    if new == old:
        new = old + 1
    if new == 0 and node in divisors(tree):
        # x / 0 is inf or NaN in eager and compiled alike: a case that compares nothing.
        new = old + 1 if old != -1 else 2
    node.value = new
    return tree, f"constant {old} -> {new}"


def divisors(tree):
    """The right operands of /, // and %, and the divisors of torch.div, fmod and remainder."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.FloorDiv, ast.Mod)):
            found.append(node.right)
        elif (
            isinstance(node, ast.Call)
            and len(node.args) >= 2
            and ast.unparse(node.func)
            in ("torch.div", "torch.fmod", "torch.remainder", "torch.floor_divide")
        ):
            found.append(node.args[1])
    return found


def donor_expressions(donor, kind):
    return [n for n in expressions(donor) if kind_of(n) == kind and not isinstance(n, ast.Name)]


def mutate_subexpression(tree, donor, rng):
    targets = [n for n in expressions(tree) if kind_of(n) is not None]
    rng.shuffle(targets)
    for target in targets:
        pieces = donor_expressions(donor, kind_of(target))
        if not pieces:
            continue
        piece = copy.deepcopy(rng.choice(pieces))
        replaced = Replacer(target, piece).visit(tree)
        return (
            replaced,
            f"subexpression {ast.unparse(target)} -> {ast.unparse(piece)}",
            free_names(piece),
        )
    return None, "", []


# The dual of the reducer's replace-by-child: a subexpression wrapped in a call, from a wider
# vocabulary of ATen pointwise ops than the generator's grammar draws, so that feedback reaches
# at::vec functions no generated case calls. Each keeps its kind, and each is defined and finite
# wherever its operand is (no log of a negative, no exp of a large score), so that eager and
# compiled can still be compared; no rounding of a float (a last-bit difference would flip it).
WRAPS = {
    "float": [
        "torch.exp(-torch.abs({x}))",
        "torch.sigmoid({x})",
        "torch.sin({x})",
        "torch.cos({x})",
        "torch.sqrt(torch.abs({x}))",
        "torch.log1p(torch.abs({x}))",
        "torch.erf({x})",
        "torch.atan({x})",
        "torch.relu({x})",
        "torch.clamp({x}, -4.0, 4.0)",
        "torch.expm1(-torch.abs({x}))",
        "torch.exp2(-torch.abs({x}))",
        "torch.rsqrt(1.0 + torch.abs({x}))",
        "torch.reciprocal(1.0 + torch.abs({x}))",
        "torch.square({x})",
        "torch.asinh({x})",
        "torch.neg({x})",
        "torch.pow(torch.abs({x}), 1.5)",
        "torch.log(1.0 + torch.abs({x}))",
        "torch.tanh({x})",
        "torch.atan2({x}, 1.0 + torch.abs({x}))",
        "torch.hypot({x}, 1.0 + torch.abs({x}))",
        "torch.erfc({x})",
        "torch.cosh(torch.clamp({x}, -4.0, 4.0))",
        "torch.sinh(torch.clamp({x}, -4.0, 4.0))",
        "torch.lgamma(1.0 + torch.abs({x}))",
        "torch.minimum({x}, torch.abs({x}) * 0.5)",
        "torch.maximum({x}, -torch.abs({x}) * 0.5)",
        "torch.where({x} > 0.0, {x}, {x} * 0.25)",
        "torch.nan_to_num({x})",
        "torch.copysign({x}, 1.0 + torch.abs({x}))",
        "torch.frac(torch.abs({x}) + 0.5)",
        "torch.tan(torch.clamp({x}, -1.0, 1.0))",
        "torch.asin(torch.tanh({x}))",
        "torch.acos(torch.tanh({x}))",
        "torch.acosh(1.0 + torch.abs({x}))",
        "torch.atanh(torch.tanh({x}) * 0.5)",
        "torch.log2(1.0 + torch.abs({x}))",
        "torch.log10(1.0 + torch.abs({x}))",
        "torch.erfinv(torch.tanh({x}) * 0.5)",
        "torch.digamma(1.0 + torch.abs({x}))",
        "torch.special.i0(torch.clamp({x}, -4.0, 4.0))",
        "torch.special.i0e({x})",
        "torch.special.i1(torch.clamp({x}, -4.0, 4.0))",
        "torch.special.i1e({x})",
        "torch.special.ndtr({x})",
        "torch.special.log_ndtr({x})",
        "torch.special.erfcx(torch.abs({x}))",
        "torch.special.entr(torch.abs({x}))",
        "torch.special.ndtri(torch.sigmoid({x}) * 0.5 + 0.25)",
        "torch.logit(torch.sigmoid({x}) * 0.5 + 0.25)",
        "torch.special.bessel_j0({x})",
        "torch.special.bessel_j1({x})",
        "torch.sinc({x})",
        "torch.rad2deg({x})",
        "torch.nextafter({x}, {x} + 1.0)",
        "torch.logaddexp({x}, {x} * 0.5)",
        "torch.logaddexp2({x}, {x} * 0.5)",
        "torch.xlogy(torch.abs({x}), 1.0 + torch.abs({x}))",
        "torch.nn.functional.gelu({x})",
        "torch.nn.functional.gelu({x}, approximate='tanh')",
        "torch.nn.functional.silu({x})",
        "torch.nn.functional.softplus({x})",
        "torch.nn.functional.mish({x})",
        "torch.nn.functional.elu({x})",
        "torch.nn.functional.selu({x})",
        "torch.nn.functional.hardswish({x})",
        "torch.nn.functional.hardsigmoid({x})",
        "torch.nn.functional.logsigmoid({x})",
        "torch.nn.functional.hardtanh({x})",
        "torch.nn.functional.leaky_relu({x}, 0.1)",
    ],
    "int": [
        "torch.abs({x})",
        "-({x})",
        "({x}) >> 1",
        "({x}) << 1",
        "torch.clamp({x}, -8, 8)",
        "torch.bitwise_not({x})",
        "({x}) * ({x})",
        "torch.remainder({x}, 5)",
        "torch.fmod({x}, 5)",
        "torch.div({x}, 3, rounding_mode='trunc')",
        "torch.div({x}, 3, rounding_mode='floor')",
        "torch.sign({x})",
        "torch.minimum({x}, torch.abs({x}) // 2)",
        "torch.maximum({x}, -({x}))",
        "torch.bitwise_and({x}, 63)",
        "torch.bitwise_or({x}, 1)",
        "torch.bitwise_xor({x}, 5)",
    ],
    "bool": [
        "~({x})",
        "torch.logical_not({x})",
        "torch.logical_xor({x}, kv_idx % 2 == 0)",
        "torch.logical_and({x}, q_idx >= 0)",
        "torch.logical_or({x}, q_idx < 0)",
    ],
}


def tensor_targets(tree):
    # A tensor inside: torch's functions take no plain Python number.
    return [
        n
        for n in expressions(tree)
        if kind_of(n) in WRAPS
        and any(isinstance(name, ast.Name) and name.id in PARAMETERS for name in ast.walk(n))
    ]


def mutate_wrap(tree, rng):
    targets = tensor_targets(tree)
    if not targets:
        return None, ""
    target = rng.choice(targets)
    # Like a havoc stage, one to three wraps around the same operand: a case that brings several
    # new functions at once is worth its compile.
    templates = [rng.choice(WRAPS[kind_of(target)]) for _ in range(rng.choice([1, 2, 3, 4]))]
    text = "(" + ast.unparse(target) + ")"
    what = "x"
    for template in templates:
        # The operand is spelled once per use in the template: parsed fresh each time.
        text = "(" + template.replace("{x}", text) + ")"
        what = template.replace("{x}", what)
    wrapped = ast.parse(text, mode="eval").body
    return Replacer(target, wrapped).visit(tree), f"wrap {ast.unparse(target)} in {what}"


# A subexpression computed in another dtype and brought back to its own: at::vec's other
# instantiations (Vectorized<int>, <short>, <signed char>, <double>) and the conversions between
# them, which the generator's int64 and float32 arithmetic never reaches. Integers keep their
# modular arithmetic in both eager and compiled code; an int goes through a float only by
# operations IEEE rounds exactly alike everywhere (no transcendental function decides an index);
# a float goes through a 16-bit float only to be rounded, and then with Inductor's
# emulate_precision_casts on: off (its default), Inductor elides a rounding between two fused
# ops, as torch._inductor.config documents (a score_mod `(score * 3.7).to(torch.bfloat16).float()`
# on float32 q/k/v: compiled 0.034 off eager without it, 2e-06 with it).
DETOURS = {
    "float": [
        ("torch.float64", "({w}).float()"),
        ("torch.float64", "({w}).float()"),
        ("torch.bfloat16", "({w}).float()"),
        ("torch.float16", "({w}).float()"),
    ],
    "int": [
        ("torch.int32", "({w}).long()"),
        ("torch.int16", "({w}).long()"),
        ("torch.int8", "({w}).long()"),
        ("torch.uint8", "({w}).long()"),
        ("torch.float64", "torch.floor({w}).long()"),
        ("torch.float32", "torch.trunc({w}).long()"),
    ],
    "bool": [
        ("torch.int32", "({w}) > 0"),
        ("torch.int16", "({w}) > 0"),
        ("torch.int8", "({w}) > 0"),
        ("torch.uint8", "({w}) > 0"),
        ("torch.float64", "({w}) > 0.5"),
        ("torch.float32", "({w}) > 0.5"),
    ],
}
# What is computed in the detour's dtype, per kind of operand (x already converted).
DETOUR_BODIES = {
    "float": WRAPS["float"] + ["{x}"],
    "int": [
        "{x}",
        "({x}) + 3",
        "({x}) - 1",
        "({x}) * 3",
        "({x}) // 2",
        "({x}) % 5",
        "({x}) & 7",
        "({x}) | 1",
        "({x}) ^ 3",
        "torch.abs({x})",
        "torch.maximum({x}, ({x}) * 0)",
        "torch.minimum({x}, ({x}) + 1)",
        "torch.where(({x}) > 2, {x}, ({x}) + 1)",
        "({x}) >> 1",
        "({x}) << 1",
        "torch.bitwise_not({x})",
        "torch.clamp({x}, -8, 8)",
        "torch.remainder({x}, 5)",
        "torch.fmod({x}, 5)",
        "torch.sign({x})",
        "torch.div({x}, 3, rounding_mode='trunc')",
        "torch.where(({x}) != 1, {x}, ({x}) - 2)",
        "torch.where(({x}) <= 4, ({x}) * 2, {x})",
        "torch.where(({x}) == 0, 1, {x})",
    ],
    "bool": ["({x}) * 3 - 1", "({x}) + ({x})", "torch.abs({x})", "torch.maximum({x}, ({x}) * 0)"],
}
# An int through a float: only operations that round exactly (+, -, *, / by a power of two,
# sqrt, floor); a bool through an int is 0 or 1.
INT_BODIES_IN_FLOAT = [
    "{x}",
    "({x}) * 0.5",
    "({x}) / 4.0 + 0.25",
    "torch.sqrt(torch.abs({x}))",
    "({x}) - 0.5",
    "torch.maximum({x}, ({x}) * 0.5)",
]


def detour_bodies(kind, dtype):
    if dtype in ("torch.bfloat16", "torch.float16"):
        # A rounding, and no arithmetic: eager would round after every operation, where Inductor
        # computes in float and rounds once, a difference of precision and not a bug.
        return ["{x}"]
    if dtype.startswith("torch.float") and kind != "float":
        return INT_BODIES_IN_FLOAT if kind == "int" else ["{x}", "({x}) * 0.75", "torch.abs({x})"]
    if kind == "int" and dtype == "torch.uint8":
        # A negative int divides and shifts differently through uint8: keep to the ring.
        return ["{x}", "({x}) + 3", "({x}) * 3", "({x}) & 7", "({x}) | 1", "({x}) ^ 3"]
    return DETOUR_BODIES[kind]


def mutate_detour(tree, rng):
    """The mutated tree, what changed, and the Inductor knobs the change needs."""
    targets = tensor_targets(tree)
    if not targets:
        return None, "", {}
    target = rng.choice(targets)
    kind = kind_of(target)
    dtype, back = rng.choice(DETOURS[kind])
    # One to four steps in the other dtype: a case that brings several instantiations at once.
    bodies = [rng.choice(detour_bodies(kind, dtype)) for _ in range(rng.choice([1, 2, 3, 4]))]
    body = "{x}"
    for step in bodies:
        body = step.replace("{x}", "(" + body + ")")
    operand = f"(({ast.unparse(target)}).to({dtype}))"
    text = back.replace("{w}", body.replace("{x}", operand))
    detoured = ast.parse(text, mode="eval").body
    knobs = (
        {"emulate_precision_casts": True}
        if kind == "float" and dtype in ("torch.bfloat16", "torch.float16")
        else {}
    )
    return (
        Replacer(target, detoured).visit(tree),
        f"detour {ast.unparse(target)} through {dtype}: "
        + back.replace("{w}", body.replace("{x}", "x")),
        knobs,
    )


def returns(tree):
    """The return statements of the functions a mask or score source defines."""
    return [node for node in ast.walk(tree) if isinstance(node, ast.Return) and node.value]


def mutate_splice(tree, donor, rng):
    mine, theirs = returns(tree), returns(donor)
    if not mine or not theirs:
        return None, "", []
    target = rng.choice(mine)
    piece = copy.deepcopy(rng.choice(theirs).value)
    if kind_of(target.value) != "bool" or kind_of(piece) != "bool":
        # A score: mix the two scores rather than combine two masks.
        if "score" not in {n.id for n in ast.walk(piece) if isinstance(n, ast.Name)}:
            return None, "", []
        target.value = ast.BinOp(
            left=target.value,
            op=ast.Add(),
            right=ast.BinOp(left=piece, op=ast.Sub(), right=ast.Name(id="score", ctx=ast.Load())),
        )
        return tree, "splice: score + (donor's score - score)", free_names(piece)
    op = rng.choice([ast.BitAnd, ast.BitOr])
    target.value = ast.BinOp(left=target.value, op=op(), right=piece)
    return tree, f"splice: mask {op.__name__} donor's mask", free_names(piece)


class Replacer(ast.NodeTransformer):
    def __init__(self, target, replacement):
        self.target, self.replacement = target, replacement

    def visit(self, node):
        if node is self.target:
            return self.replacement
        return super().visit(node)


def main():
    request = json.loads(sys.argv[1]) if len(sys.argv) > 1 else json.load(sys.stdin)
    rng = random.Random(int(request.get("seed", 0)))
    tree = ast.parse(request["source"])
    operation = request["operation"]
    names, knobs = [], {}
    if operation == "operator":
        tree, what = mutate_operator(tree, rng)
    elif operation == "constant":
        tree, what = mutate_constant(tree, rng)
    elif operation == "wrap":
        tree, what = mutate_wrap(tree, rng)
    elif operation == "detour":
        tree, what, knobs = mutate_detour(tree, rng)
    elif operation in ("subexpression", "splice"):
        donor = ast.parse(request.get("donor") or "")
        mutate = mutate_subexpression if operation == "subexpression" else mutate_splice
        tree, what, names = mutate(tree, donor, rng)
    else:
        raise SystemExit(f"mutate_source.py: unknown operation {operation!r}")
    json.dump(
        {
            "source": unparse(tree) if tree is not None else None,
            "what": what,
            "names": names,
            "knobs": knobs,
        },
        sys.stdout,
    )


if __name__ == "__main__":
    main()
