"""`python -m metadef.validator PATH...`, as the seed types it: opgen's validator, unchanged.

The same messages and exit codes as `opgen validate` (0 valid, 2 invalid), because it is that
command: there is one validator, reachable under the name the seed's readers already know.
"""

from __future__ import annotations

import sys

from opgen.validator import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
