"""The examples in heredoc_lint's docstring, the embedding API, run as written."""

from __future__ import annotations


def test_the_public_api_examples_hold() -> None:
    import doctest

    import heredoc_lint

    result = doctest.testmod(heredoc_lint, optionflags=doctest.ELLIPSIS)
    assert result.attempted == 3 and result.failed == 0  # the three `>>>` lines
