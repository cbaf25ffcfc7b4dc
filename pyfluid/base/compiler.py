"""``paddle.base.compiler``: CompiledProgram and the strategies it takes (one CPU device, so
compiling only records the program and its build strategy)."""
from ..framework.passes import BuildStrategy
from ..static import CompiledProgram

ExecutionStrategy = BuildStrategy

__all__ = ["BuildStrategy", "CompiledProgram", "ExecutionStrategy"]
