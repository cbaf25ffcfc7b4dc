"""``paddle.static.nn``: layers that create parameters (filled in by the autodiff work)."""
