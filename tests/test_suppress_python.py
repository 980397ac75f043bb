"""Suppressions in Python: a finding inside a string over several lines has no line of its
own for a comment, so a directive after the closing quote covers the string, and one on
the first or last line of a logical line covers that line (as ruff reads `noqa`)."""

from __future__ import annotations

from rulekit import finding_codes

from heredoc_lint.engine import check_text
from heredoc_lint.run.settings import Settings
from heredoc_lint.run.suppress import python_statements

BODY = "\npkill -f sglang\n./restart\n"


def _pkills(text: str) -> list[int]:
    """The lines (1-based) of the HL103 findings of `text` read as Python."""
    found = check_text(text, "python", "t.py")
    return [text.count("\n", 0, f.start) + 1 for f in found if f.code == "HL103"]


def _twice(text: str) -> tuple[list[int], list[int]]:
    """The HL103 lines without the directive, and with it."""
    return _pkills(text.replace("  # noqa: HL103", "")), _pkills(text)


def test_directive_after_the_closing_quote_of_a_call_argument() -> None:
    text = (
        "import subprocess\n\ndef f(h):\n"
        f'    subprocess.run(["ssh", h, """{BODY}"""])  # noqa: HL103\n'
    )
    assert _twice(text) == ([5], [])


def test_directive_after_the_closing_quote_of_an_assignment() -> None:
    text = (
        f'import subprocess\n\ndef f(h):\n    cmd = """{BODY}"""  # noqa: HL103\n'
        '    subprocess.run(["ssh", h, cmd])\n'
    )
    assert _twice(text) == ([5], [])


def test_directive_after_a_closing_quote_inside_the_call() -> None:
    """The string ends on a line of its own inside the call's parentheses: as in ruff, a
    directive after its closing quote covers it."""
    text = (
        'import subprocess\n\ndef f(h):\n    subprocess.run(\n'
        f'        ["ssh", h, """{BODY}"""],  # noqa: HL103\n    )\n'
    )
    assert _twice(text) == ([6], [])


def test_directive_alone_before_the_string_covers_it() -> None:
    text = f'import os\n# noqa: HL103\nos.system("""ssh h "{BODY}" """)\n'
    assert _pkills(text.replace("# noqa: HL103\n", "")) == [3]
    assert _pkills(text) == []


def test_directive_on_the_last_line_of_a_logical_line() -> None:
    """A one-line string in a call over several lines: the call's last line holds the
    directive."""
    text = (
        "import subprocess\n\nsubprocess.run(\n"
        "    \"ssh h 'pkill -f sglang; ./restart'\",\n    shell=True,\n)  # noqa: HL103\n"
    )
    assert _twice(text) == ([4], [])


def test_directive_covers_only_its_own_string() -> None:
    text = (
        f'import subprocess\n\ndef f(h):\n    a = """{BODY}"""  # noqa: HL103\n'
        f'    b = """{BODY}"""\n'
        '    subprocess.run(["ssh", h, a])\n    subprocess.run(["ssh", h, b])\n'
    )
    assert _pkills(text) == [9]


def test_directive_on_the_next_statement_does_not_cover_the_string() -> None:
    text = (
        f'import subprocess\n\ndef f(h):\n    cmd = """{BODY}"""\n'
        '    subprocess.run(["ssh", h, cmd])  # noqa: HL103\n'
    )
    assert _pkills(text) == [5]


def test_directive_on_the_first_line_of_the_call_does_not_reach_into_the_string() -> None:
    """Not the string's statement: the directive goes after the closing quote (and is
    reported unused where it stands)."""
    text = (
        "import subprocess\n\ndef f(h):\n    subprocess.run(  # noqa: HL103\n"
        f'        ["ssh", h, """{BODY}"""],\n    )\n'
    )
    assert _pkills(text) == [6]
    unused = check_text(text, "python", "t.py", Settings(warn_unused_suppressions=True))
    assert [f.code for f in unused] == ["HL002", "HL103"]


def test_statements_of_python_source() -> None:
    text = 'x = 1\ncmd = f"""\nkill {a}\n"""  # c\ny = (f"a" f"""b\n{c}""")\nz = "one line"\n'
    got = [text[a:b] for a, b in python_statements(text)]
    assert got == [
        "x = 1\n",
        'f"""\nkill {a}\n"""',
        'cmd = f"""\nkill {a}\n"""  # c\n',
        'f"""b\n{c}"""',
        'y = (f"a" f"""b\n{c}""")\n',
        'z = "one line"\n',
    ]


def test_statements_of_nested_fstrings() -> None:
    """From Python 3.12 an f-string is a run of tokens, up to the end of the outer one."""
    text = 'z = f"{d:>{w}}" + f"""{f"{e}"}\n"""\n'
    got = [text[a:b] for a, b in python_statements(text)]
    assert got == ['f"""{f"{e}"}\n"""', text]


def test_statements_stop_where_tokenizing_fails() -> None:
    assert [b for _, b in python_statements('x = 1\ny = """never closed\n')] == [6]


# -- Python frontend --------------------------------------------------------------------------


def test_directive_on_the_next_statement_does_not_cover_this_one() -> None:
    """A multi-line statement ends at its closing quote: a directive at the end of the
    following line belongs to the following statement only."""
    text = "ssh h \"cat > f << 'EOF'\nport $1\nEOF\"\necho hi  # heredoc-lint: disable=HL102\n"
    found = [f for f in check_text(text, "shell", "t.sh") if f.code == "HL102"]
    assert [text[f.start : f.end] for f in found] == ["$1"]


def test_directive_after_a_lone_closing_quote_covers_the_statement() -> None:
    """The statement's last line may be its closing quote alone: a directive there still
    covers the whole statement."""
    text = "ssh h \"cat > f << 'EOF'\nport $1\nEOF\n\"  # heredoc-lint: disable=HL101,HL102\n"
    assert finding_codes(text) == []
