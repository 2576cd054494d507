"""calculator: allow-listed AST arithmetic. The property tests compare against Python's own
evaluation of the same expression tree, and feed arbitrary text to prove that nothing but a
ToolError ever escapes."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from playscout.tools.calculator import MAX_INT_BITS, CalculatorArgs, calculator, evaluate
from playscout.tools.tool import ToolError


@pytest.mark.parametrize(
    ("expr", "value"),
    [
        ("(31 + 27) / 2", 29.0),
        ("round(112 / 240 * 100, 1)", 46.7),
        ("7 // 2", 3),
        ("-7 % 3", 2),
        ("2 ** -1", 0.5),
        ("2^10", 1024),
        ("12 × 3 − 4 ÷ 2", 34.0),
        ("max(3, 9, 4) - min([3, 9, 4])", 6),
        ("sum([10, 12.5, 7])", 29.5),
        ("abs(-3.5)", 3.5),
        ("1 < 2 <= 2 != 3", True),
        ("3 > 4", False),
        ("1_000 * 3", 3000),
        ("10 ** 3000 // 10 ** 2999", 10),
    ],
)
def test_values(expr: str, value: object) -> None:
    got = evaluate(expr)
    assert got == value and type(got) is type(value)


@pytest.mark.parametrize(
    ("expr", "message"),
    [
        ("1 / 0", "division by zero in '/'"),
        ("5 % 0", "division by zero in '%'"),
        ("0 ** -1", "division by zero in '**'"),
        ("9 ** 9 ** 9", "result too large"),
        ("(10 ** 2000) * (10 ** 2000)", "result too large"),
        ("1e308 * 10", "not a finite number"),
        ("10 ** 400 / 1", "not a finite number"),
        ("(-8) ** 0.5", "complex number"),
        ("x + 1", "name 'x'"),
        ("__import__('os').system('id')", "not allowed"),
        ("(1).real", "attribute '.real'"),
        ("open('f')", "only round, abs, min, max, sum"),
        ("[1, 2]", "not allowed"),
        ("'a' * 3", "only numbers"),
        ("True + 1", "only numbers"),
        ("1 if 2 else 3", "not allowed"),
        ("lambda: 1", "not allowed"),
        ("round(1.5, 1000)", "digits must be an integer"),
        ("round(1.5, 2.0)", "digits must be an integer"),
        ("max()", "at least one number"),
        ("abs(1, 2)", "abs() takes one number"),
        ("round(1, ndigits=2)", "no keyword arguments"),
        ("1 +", "not a valid expression"),
        ("", "give an arithmetic expression"),
        ("1+" * 300 + "1", "longer than 500 characters"),
        ("-" * 200 + "1", "nested too deeply"),
        ("1 + \x00", "not a valid expression"),
    ],
)
def test_errors(expr: str, message: str) -> None:
    with pytest.raises(ToolError) as err:
        evaluate(expr)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_tool_observation_and_data() -> None:
    result = calculator(None, CalculatorArgs(expression=" 3 * (4 + 5) "))  # type: ignore[arg-type]
    assert result.observation == "3 * (4 + 5) = 27"
    assert result.data.result == 27
    big = calculator(None, CalculatorArgs(expression="2 ** 200"))  # type: ignore[arg-type]
    assert big.observation == "2 ** 200 = 1.606938e+60 (an integer of 61 digits)"
    assert big.data.result == 2**200  # exact in data, shortened in the observation


# ---------------------------------------------------------------- properties

numbers = st.one_of(
    st.integers(min_value=0, max_value=1000).map(str),
    st.floats(min_value=0, max_value=1e6, allow_nan=False, allow_infinity=False).map(repr),
)
small_exponents = st.integers(min_value=-3, max_value=3).map(lambda e: f"({e})")


def _combine(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    binary = st.tuples(children, st.sampled_from(["+", "-", "*", "/", "//", "%"]), children).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})"
    )
    power = st.tuples(children, small_exponents).map(lambda t: f"({t[0]} ** {t[1]})")
    unary = children.map(lambda c: f"(-{c})")
    calls = st.one_of(
        children.map(lambda c: f"abs({c})"),
        st.tuples(children, children).map(lambda t: f"max({t[0]}, {t[1]})"),
        st.tuples(children, st.integers(0, 4)).map(lambda t: f"round({t[0]}, {t[1]})"),
    )
    compare = st.tuples(children, st.sampled_from(["<", "<=", "==", "!="]), children).map(
        lambda t: f"({t[0]} {t[1]} {t[2]})"
    )
    return st.one_of(binary, power, unary, calls, compare)


expressions = st.recursive(numbers, _combine, max_leaves=12)


def _python(expr: str) -> object:
    try:
        return eval(expr, {"__builtins__": {}}, {"abs": abs, "max": max, "round": round})
    except (ZeroDivisionError, OverflowError):
        return ToolError


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(expressions)
def test_matches_python_on_random_arithmetic_trees(expr: str) -> None:
    expected = _python(expr)
    defined = (
        expected is not ToolError
        and not isinstance(expected, complex)
        and not (isinstance(expected, float) and not math.isfinite(expected))
        and not (isinstance(expected, int) and expected.bit_length() > MAX_INT_BITS)
    )
    if not defined:
        with pytest.raises(ToolError):
            evaluate(expr)
        return
    try:
        got = evaluate(expr)
    except ToolError as e:
        # only a bounded intermediate may refuse what Python computed
        assert "too large" in str(e) or "not a finite number" in str(e), (expr, e)
        return
    assert type(got) is type(expected)
    assert got == expected


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=200))
def test_arbitrary_text_only_raises_tool_error(text: str) -> None:
    try:
        evaluate(text)
    except ToolError as e:
        assert str(e) and "\n" not in str(e)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="0123456789+-*/%().,^ e<>=!_abcmrsxdnu[]", max_size=80))
def test_arithmetic_looking_text_only_raises_tool_error(text: str) -> None:
    try:
        evaluate(text)
    except ToolError as e:
        assert str(e) and "\n" not in str(e)
