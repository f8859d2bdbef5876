"""`python -m opgen.validator PATH...`: the seed's `python -m metadef.validator x.json`."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from opgen.cli import main as cli_main


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(["validate", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    sys.exit(main())
