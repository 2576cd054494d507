"""STARAgent's calculator and memory utilities: their declarations are in their own modules."""

from playscout.tools import calculator as calculator
from playscout.tools import memory as memory
from playscout.tools.declare import declared_tools

UTILITY_TOOLS = declared_tools("utility")
