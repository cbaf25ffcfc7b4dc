"""Imports every converter family so that their converters are registered."""
from . import (convert_activation, convert_conv, convert_creation, convert_loss,  # noqa: F401
               convert_math, convert_nn, convert_reduce, convert_shape)
