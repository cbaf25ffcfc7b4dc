"""Imports every converter family so that their converters are registered."""
from . import (convert_activation, convert_array, convert_control, convert_conv, convert_creation,  # noqa
               convert_loss, convert_math, convert_nn, convert_reduce,
               convert_shape)
