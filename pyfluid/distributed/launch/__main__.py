"""``python -m pyfluid.distributed.launch``: see the package docstring."""
import sys

from . import main

sys.exit(main())
