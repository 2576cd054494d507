"""STARAgent's calculator and memory utilities as `Tool` entries for the registry."""

from playscout.tools.calculator import CalculatorArgs, calculator
from playscout.tools.memory import MemoryArgs, memory
from playscout.tools.tool import Tool

UTILITY_TOOLS: tuple[Tool, ...] = (
    Tool(
        "calculator",
        "Exact arithmetic: + - * / // % ** with parentheses, comparisons, and round, abs, min, "
        "max, sum. Use it for any sum, difference, ratio, average or percentage; ^ means power.",
        CalculatorArgs,
        calculator,
    ),
    Tool(
        "memory",
        "A notepad that survives the whole run: write short notes under a key (e.g. the target "
        "game id, clip ids found, partial answers), read or delete them, or list all notes.",
        MemoryArgs,
        memory,
    ),
)
