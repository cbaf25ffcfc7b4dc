"""``paddle.fluid``: the name of ``paddle.base`` before Paddle 2.6. Both names give the same
module objects (``pyfluid.fluid.framework is pyfluid.base.framework``), so fluid-era code and
2.6 code share one implementation and one state."""
import sys

from .. import base as _base

for _name, _module in list(sys.modules.items()):
    if _name.startswith(_base.__name__ + "."):
        sys.modules[__name__ + _name[len(_base.__name__):]] = _module
sys.modules[__name__] = _base
