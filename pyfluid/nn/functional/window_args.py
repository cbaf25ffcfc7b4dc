"""Argument handling shared by convolution and pooling: Paddle's rules for ``stride``,
``padding`` (ints, pairs, "SAME"/"VALID"), ``data_format``, and the layer names of their
temporaries."""
from __future__ import annotations

from typing import Any

from ...framework import unique_name
from ...framework.context import in_dynamic_mode
from ...framework.variable import Variable


def _is_static(x: Any) -> bool:
    return isinstance(x, Variable) or not in_dynamic_mode()


def _layer_name(layer_type: str, name: str | None) -> str:
    """The temporaries' prefix: ``name`` or a fresh ``<layer_type>_<n>`` (Paddle's LayerHelper)."""
    return name if name is not None else unique_name.generate(layer_type)


def convert_to_list(value: Any, n: int, what: str) -> list[int]:
    """Paddle's ``convert_to_list``: an int repeated ``n`` times, or a list of ``n`` ints."""
    if isinstance(value, int) and not isinstance(value, bool):
        return [value] * n
    try:
        values = list(value)
    except TypeError:
        raise ValueError(f"The {what}'s type must be list or tuple. Received: {value}") from None
    if len(values) != n:
        raise ValueError(f"The {what}'s length must be {n}. Received: {value}")
    for v in values:
        if not isinstance(v, int) or isinstance(v, bool):
            raise ValueError(f"The {what}'s type must be a list or tuple of {n} integers. "
                             f"Received: {value} including element {v} of type {type(v)}")
    return values


def _check_data_format(data_format: str) -> bool:
    if data_format not in ("NCHW", "NHWC"):
        raise ValueError(f"Attr(data_format) should be 'NCHW' or 'NHWC'. Received "
                         f"Attr(data_format): {data_format}.")
    return data_format == "NHWC"


def update_padding_nd(padding: Any, channel_last: bool, num_dims: int = 2,
                      ceil_mode: bool = False) -> tuple[list[int], str]:
    """Paddle's ``_update_padding_nd``: padding argument -> (paddings attr, padding_algorithm).
    Accepts 'SAME'/'VALID', an int, [p_h, p_w], [top, bottom, left, right] or per-dim pairs
    including the (zero) batch and channel dims."""
    if isinstance(padding, str):
        padding = padding.upper()
        if padding not in ("SAME", "VALID"):
            raise ValueError(f"Unknown padding: '{padding}'. It can only be 'SAME' or 'VALID'.")
        if padding == "VALID" and ceil_mode:
            raise ValueError('When Attr(padding) is "VALID", Attr(ceil_mode) must be False. '
                             "Received ceil_mode: True.")
        return [0] * num_dims, padding
    if isinstance(padding, (list, tuple)):
        if len(padding) == 2 + num_dims and isinstance(padding[0], (list, tuple)):
            spatial = padding[1:-1] if channel_last else padding[2:]
            other = [padding[0], padding[-1]] if channel_last else padding[:2]
            if any(list(p) != [0, 0] for p in other):
                raise ValueError(f"Non-zero padding({padding}) in the batch or channel "
                                 "dimensions is not supported.")
            padding = [int(v) for pair in spatial for v in pair]
        elif len(padding) == 2 * num_dims and isinstance(padding[0], int):
            padding = convert_to_list(padding, 2 * num_dims, "padding")
        elif len(padding) == num_dims and isinstance(padding[0], int):
            padding = convert_to_list(padding, num_dims, "padding")
        else:
            raise ValueError(f"In valid padding: {padding}")
        if len(padding) == 2 * num_dims and all(padding[2 * i] == padding[2 * i + 1]
                                                for i in range(num_dims)):
            padding = padding[0::2]
    else:
        padding = convert_to_list(padding, num_dims, "padding")
    if not all(p >= 0 for p in padding):
        raise ValueError(f"Invalid padding, all value should be larger than or equal to 0, but "
                         f"received: {padding}")
    return padding, "EXPLICIT"


def _check_4d(x: Any, api: str) -> None:
    if len(x.shape) != 4:
        raise ValueError(f"Excepted Input X is 4-D tensor, but received {len(x.shape)}-D "
                         f"{type(x).__name__} ({api}, shape {list(x.shape)})")
