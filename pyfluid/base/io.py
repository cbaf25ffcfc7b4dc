"""``paddle.base.io`` (``fluid.io``): the data loaders of the fluid era, plus the variable and
inference-model savers fluid 1.x kept here."""
from ..io import DataLoader
from ..io.save_vars import load_persistables, load_vars, save_persistables, save_vars
from ..static.io import load_inference_model, save_inference_model
from .reader import PyReader

__all__ = ["DataLoader", "PyReader", "load_inference_model", "load_persistables", "load_vars",
           "save_inference_model", "save_persistables", "save_vars"]
