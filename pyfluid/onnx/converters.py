"""Imports every converter family so that their converters are registered."""
from . import (convert_activation, convert_array, convert_collective,  # noqa: F401
               convert_control, convert_conv, convert_creation, convert_index, convert_loss,
               convert_math, convert_nn, convert_pad, convert_reduce, convert_resize,
               convert_rnn, convert_shape)
