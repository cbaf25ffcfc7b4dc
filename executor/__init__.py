"""Running programs: Scope, LoDTensor, and the Executor."""
from .executor import Executor
from .place import CPUPlace
from .scope import Scope, ScopeVariable, global_scope, scope_guard
from .tensor import LoDTensor, LoDTensorArray
from .memory import keep_freed_memory

keep_freed_memory()

__all__ = ["CPUPlace", "Executor", "LoDTensor", "LoDTensorArray", "Scope", "ScopeVariable",
           "global_scope", "scope_guard"]
