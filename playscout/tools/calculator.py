"""calculator: exact arithmetic for the agent (STARAgent's `calculator(expression)`), because
models add and divide badly ("points per minute", "how many more rebounds").

Evaluated by walking Python's AST with an allow-list, never `eval`: no names, attributes,
subscripts or calls except a few numeric built-ins, and sizes are bounded so `9**9**9` is an
error instead of a frozen worker."""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from playscout.tools.declare import tool
from playscout.tools.tool import ToolArgs, ToolContext, ToolError, ToolResult

MAX_CHARS = 500
MAX_DEPTH = 60
MAX_INT_BITS = 10_000  # ~3,000 digits
MAX_ROUND_DIGITS = 100
MAX_ITEMS = 1_000

Number = int | float
Value = int | float | bool

_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_COMPARE: dict[type[ast.cmpop], Callable[[Any, Any], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}
_SYMBOL = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
}


class CalculatorArgs(ToolArgs):
    expression: str = Field(
        ...,
        description="Arithmetic only: numbers, + - * / // % **, parentheses, comparisons, and "
        "round/abs/min/max/sum, e.g. '(31 + 27) / 2' or 'round(112 / 240 * 100, 1)'.",
    )


class CalculatorResult(BaseModel):
    expression: str
    result: Value
    text: str


def _number(value: Any) -> Value:
    """Every intermediate value passes here: bounded ints, finite floats, no complex."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        if value.bit_length() > MAX_INT_BITS:
            raise ToolError(f"result too large (over {MAX_INT_BITS} bits)")
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ToolError("result is not a finite number (overflow)")
        return value
    if isinstance(value, complex):
        raise ToolError("result is a complex number (e.g. a negative number to a fractional power)")
    raise ToolError(f"unsupported value {type(value).__name__}")


def _check_pow(base: Value, exp: Value) -> None:
    if (
        isinstance(base, int)
        and isinstance(exp, int)
        and exp > 0
        and abs(base) > 1
        and (abs(base).bit_length() - 1) * exp > MAX_INT_BITS
    ):
        raise ToolError(f"result too large (over {MAX_INT_BITS} bits)")


def _check_mul(a: Value, b: Value) -> None:
    if (
        isinstance(a, int)
        and isinstance(b, int)
        and abs(a).bit_length() + abs(b).bit_length() > MAX_INT_BITS + 1
    ):
        raise ToolError(f"result too large (over {MAX_INT_BITS} bits)")


class _Evaluator:
    def __init__(self) -> None:
        self.depth = 0

    def eval(self, node: ast.AST) -> Value:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ToolError("expression is nested too deeply")
        try:
            return _number(self._eval(node))
        finally:
            self.depth -= 1

    def _eval(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Expression):
            return self.eval(node.body)
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise ToolError(f"only numbers are allowed, not {node.value!r}")
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            value = self.eval(node.operand)
            return -value if isinstance(node.op, ast.USub) else +value
        if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            return self._binary(node)
        if isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
            left = self.eval(node.left)
            for op, right_node in zip(node.ops, node.comparators, strict=True):
                right = self.eval(right_node)
                if not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.Call):
            return self._call(node)
        raise ToolError(f"not allowed in an arithmetic expression: {_describe(node)}")

    def _binary(self, node: ast.BinOp) -> Any:
        a, b = self.eval(node.left), self.eval(node.right)
        op = type(node.op)
        if op is ast.Pow:
            _check_pow(a, b)
        elif op is ast.Mult:
            _check_mul(a, b)
        try:
            return _BINARY[op](a, b)
        except ZeroDivisionError:
            raise ToolError(f"division by zero in '{_SYMBOL[op]}'") from None
        except OverflowError:
            raise ToolError("result is not a finite number (overflow)") from None

    def _call(self, node: ast.Call) -> Any:
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name not in ("round", "abs", "min", "max", "sum"):
            raise ToolError(
                f"not allowed in an arithmetic expression: {_describe(node.func)}() "
                "(only round, abs, min, max, sum)"
            )
        if node.keywords:
            raise ToolError(f"{name}() takes no keyword arguments here")
        args = self._arguments(node.args)
        try:
            if name == "round":
                if not 1 <= len(args) <= 2:
                    raise ToolError("round() takes a number and optional digits")
                if len(args) == 2:
                    digits = args[1]
                    if not isinstance(digits, int) or abs(digits) > MAX_ROUND_DIGITS:
                        raise ToolError(
                            f"round() digits must be an integer within ±{MAX_ROUND_DIGITS}"
                        )
                    return round(args[0], digits)
                return round(args[0])
            if name == "abs":
                if len(args) != 1:
                    raise ToolError("abs() takes one number")
                return abs(args[0])
            if name == "sum":
                return sum(args)
            if not args:
                raise ToolError(f"{name}() needs at least one number")
            return min(args) if name == "min" else max(args)
        except OverflowError:
            raise ToolError("result is not a finite number (overflow)") from None

    def _arguments(self, nodes: list[ast.expr]) -> list[Value]:
        """min/max/sum accept numbers or one list/tuple of numbers, like Python."""
        if len(nodes) == 1 and isinstance(nodes[0], (ast.List, ast.Tuple)):
            nodes = list(nodes[0].elts)
        if len(nodes) > MAX_ITEMS:
            raise ToolError(f"too many numbers (at most {MAX_ITEMS})")
        return [self.eval(n) for n in nodes]


def _describe(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return f"name {node.id!r}"
    if isinstance(node, ast.Attribute):
        return f"attribute '.{node.attr}'"
    return type(node).__name__.lower()


def evaluate(expression: str) -> Value:
    """The value of an arithmetic expression; anything else is a one-line ToolError."""
    text = expression.strip()
    if not text:
        raise ToolError("give an arithmetic expression, e.g. '(31 + 27) / 2'")
    if len(text) > MAX_CHARS:
        raise ToolError(f"expression longer than {MAX_CHARS} characters")
    text = text.replace("×", "*").replace("÷", "/").replace("−", "-").replace("^", "**")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as e:
        raise ToolError(f"not a valid expression: {e.msg}") from None
    except (ValueError, RecursionError, MemoryError):
        raise ToolError("not a valid expression") from None
    try:
        return _Evaluator().eval(tree)
    except RecursionError:
        raise ToolError("expression is nested too deeply") from None
    except (TypeError, ValueError) as e:
        if isinstance(e, ToolError):
            raise
        raise ToolError(f"cannot evaluate: {e}") from None


def format_value(value: Value) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        digits = str(abs(value))
        if len(digits) > 40:
            sign = "-" if value < 0 else ""
            return (
                f"{sign}{digits[0]}.{digits[1:7]}e+{len(digits) - 1} "
                f"(an integer of {len(digits)} digits)"
            )
        return digits if value >= 0 else f"-{digits}"
    if value.is_integer() and abs(value) < 1e16:
        return f"{value:.1f}"
    return repr(value)


@tool(
    "calculator",
    "Exact arithmetic: + - * / // % ** with parentheses, comparisons, and round, abs, min, "
    "max, sum. Use it for any sum, difference, ratio, average or percentage; ^ means power.",
    group="utility",
)
def calculator(ctx: ToolContext, args: CalculatorArgs) -> ToolResult:
    value = evaluate(args.expression)
    text = format_value(value)
    result = CalculatorResult(expression=args.expression, result=value, text=text)
    return ToolResult(
        tool="calculator", observation=f"{args.expression.strip()} = {text}", data=result
    )
