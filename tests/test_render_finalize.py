"""The one post-processing pass every rendered file goes through (emit/common._finalize): no
trailing blanks, at most one blank line in a row (two for Python), one final newline."""

from __future__ import annotations

import pytest

from opgen.emit.common import _finalize


@pytest.mark.parametrize(("text", "max_blank", "want"), [
    ("a  \n\n\n\nb\t\n", 1, "a\n\nb\n"),
    ("a\n\n\n\nb", 2, "a\n\n\nb\n"),
    ("a\n\n\nb\n\n\n", 2, "a\n\n\nb\n"),          # a run of exactly two is kept
    ("\n\nint x;  \n \n \n \nint y;\n\n", 1, "int x;\n\nint y;\n"),  # blanks of spaces too
    ("a\u2028b\n", 1, "a\u2028b\n"),                # U+2028 is text, not a line break
    ("a\n\nb\n", 1, "a\n\nb\n"),                    # nothing to collapse
])
def test_finalize_strips_trailing_blanks_and_collapses_blank_runs(text: str, max_blank: int,
                                                                    want: str) -> None:
    assert _finalize(text, max_blank) == want
