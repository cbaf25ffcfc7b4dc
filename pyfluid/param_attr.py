"""``paddle.ParamAttr``: how a layer creates one parameter (name, initializer, learning rate
scale, regularizer, trainable)."""
from __future__ import annotations

from typing import Any

from .framework.layer_helper import check_type
from .nn.initializer import Constant, Initializer, XavierInitializer
from .regularizer import WeightDecayRegularizer

__all__ = ["ParamAttr"]


class ParamAttr:
    """Parameter attributes, as ``paddle.ParamAttr``. Layers take ``weight_attr`` / ``bias_attr``
    as a ParamAttr, a name string, an Initializer, None (defaults) or False (no parameter)."""

    def __init__(self, name: str | None = None, initializer: Initializer | None = None,
                 learning_rate: float = 1.0, regularizer: WeightDecayRegularizer | None = None,
                 trainable: bool = True, do_model_average: bool = True, need_clip: bool = True):
        check_type(name, "name", (str, type(None)), "ParamAttr")
        check_type(learning_rate, "learning_rate", (float, int), "ParamAttr")
        check_type(trainable, "trainable", bool, "ParamAttr")
        check_type(do_model_average, "do_model_average", bool, "ParamAttr")
        check_type(need_clip, "need_clip", bool, "ParamAttr")
        check_type(initializer, "initializer", (Initializer, type(None)), "ParamAttr")
        check_type(regularizer, "regularizer", (WeightDecayRegularizer, type(None)), "ParamAttr")
        if name == "":
            raise ValueError("name of ParamAttr can not be empty str")
        self.name = name
        self.initializer = initializer
        self.learning_rate = learning_rate
        self.regularizer = regularizer
        self.trainable = trainable
        self.do_model_average = do_model_average
        self.need_clip = need_clip

    def _set_default_initializer(self, initializer: Initializer) -> None:
        if initializer is None:
            if self.initializer is None:
                raise ValueError("ParamAttr.initializer is not set")
            return
        if self.initializer is None:
            self.initializer = initializer

    def _set_default_param_initializer(self) -> None:
        """Paddle's default weight init: Xavier uniform."""
        self._set_default_initializer(XavierInitializer())

    def _set_default_bias_initializer(self) -> None:
        """Paddle's default bias init: zeros."""
        self._set_default_initializer(Constant(0.0))

    @staticmethod
    def _to_attr(arg: Any) -> "ParamAttr | list | bool":
        """Normalize a layer's ``weight_attr`` / ``bias_attr`` argument."""
        if arg is None:
            return ParamAttr()
        if isinstance(arg, (list, tuple)):
            return [ParamAttr._to_attr(a) for a in arg]
        if isinstance(arg, ParamAttr):
            return arg
        if isinstance(arg, str):
            return ParamAttr(name=arg)
        if isinstance(arg, Initializer):
            return ParamAttr(initializer=arg)
        if isinstance(arg, WeightDecayRegularizer):
            return ParamAttr(regularizer=arg)
        if isinstance(arg, bool):
            return ParamAttr() if arg else False
        raise TypeError(f"{type(arg)} cast to ParamAttr")

    def _to_kwargs(self, with_initializer: bool = False) -> dict:
        kwargs = {"name": self.name, "optimize_attr": {"learning_rate": self.learning_rate},
                  "regularizer": self.regularizer, "trainable": self.trainable,
                  "do_model_average": self.do_model_average, "need_clip": self.need_clip}
        if with_initializer:
            kwargs["initializer"] = self.initializer
        return kwargs

    def __repr__(self) -> str:
        return (f"ParamAttr(name={self.name!r}, initializer={self.initializer!r}, "
                f"learning_rate={self.learning_rate}, trainable={self.trainable})")
