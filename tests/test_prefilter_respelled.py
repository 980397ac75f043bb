"""Issue 18 item 10: the trigger prefilter sees a name the way bash makes it of a word."""

from __future__ import annotations

import pytest

from heredoc_lint.layers.triggers import ALL_TRIGGERS, holds_trigger, present_triggers


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("$'\\x73\\x73h' h x", {"ssh"}),  # ANSI-C hex escapes
        ("$'\\163\\163h' h x", {"ssh"}),  # octal
        ("ss\\\nh h x", {"ssh"}),  # a line continuation inside the word
        ('"ss"h h x', {"ssh"}),
        ("ss'h' h x", {"ssh"}),
        ("ssh h 'pk\"\"ill -f x'", {"ssh", "pkill"}),  # the remote shell removes them
        ("ssh h 'p\\kill -f x'", {"ssh", "pkill"}),
        ("ssh h 'pki\\\nll -f x'", {"ssh", "pkill"}),
        ("{ss,}h h x", {"ssh"}),
        ("{ssh,} h x", {"ssh"}),
        ("ss{g..i} h x", {"ssh"}),
        ("ss[h] h x", {"ssh"}),
        ("/usr/bin/ss? h x", {"ssh"}),
        ("s*h h x", {"ssh", "sh"}),
    ],
)
def test_a_respelled_name_is_a_trigger(text: str, names: set[str]) -> None:
    assert names <= present_triggers(text, ALL_TRIGGERS)
    assert holds_trigger(text, ALL_TRIGGERS)


@pytest.mark.parametrize(
    "text",
    [
        "echo hello",
        "ls *.txt; rm -f a?.o",
        'case "$x" in -*) echo ;; esac',
        "echo ${a,b} ${words[1]}",
        "printf '%s\\n' x",
        "grep -q 'a' f",
        "ss\\ h x",  # an escaped blank: the name is `ss h`
        "for f in *; do echo; done",  # `*` as a name: a static limit
    ],
)
def test_text_without_a_respelled_name_holds_no_trigger(text: str) -> None:
    assert present_triggers(text, ALL_TRIGGERS) == frozenset()
    assert not holds_trigger(text, ALL_TRIGGERS)
