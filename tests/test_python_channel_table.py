"""Every call of the channel table (frontends/python/channels.py) passes the cheap filters
before parsing and is read by the finder: a channel added to the table needs nothing else
to be found (the filters are derived from it)."""

from __future__ import annotations

import pytest

from heredoc_lint.frontends.python import channels, fragments, interesting
from heredoc_lint.frontends.python.parsing import hot_lines
from heredoc_lint.frontends.python.positions import Lines

CALL_LINE = 4  # the line of the call in every example below


def _function_call(name: str) -> str:
    """`name` called as a module function, its module imported two lines above."""
    if name in channels.POPEN:
        arguments = '"ssh h uptime", shell=True'
    elif name in channels.EXEC_ARGV:
        arguments = '"ssh", "h", "uptime", "-x"'
    else:
        arguments = '"ssh h uptime"'
    return f"import {name.rsplit('.', 1)[0]}\n\n\n{name}({arguments})\n"


_METHOD_CALLS = {
    f"paramiko {channels.EXEC_COMMAND}": (
        "import paramiko\n\nclient = paramiko.SSHClient()\n"
        f'client.{channels.EXEC_COMMAND}("uptime")\n'
    ),
    **{
        f"asyncssh {method}": (
            "import asyncssh\nasync def main():\n    async with asyncssh.connect('h') as conn:\n"
            f"        await conn.{method}('uptime')\n"
        )
        for method in channels.ASYNCSSH_METHODS
    },
    **{
        f"fabric Connection.{method}": (
            f"from fabric import Connection\n\n\nConnection('h').{method}('uptime')\n"
        )
        for method in channels.SESSION_METHODS
    },
    **{
        f"invoke Context.{method}": (
            f"from invoke import Context\n\n\nContext().{method}('uptime')\n"
        )
        for method in channels.SESSION_METHODS
    },
}
EXAMPLES = {name: _function_call(name) for name in sorted(channels.FUNCTIONS)} | _METHOD_CALLS


@pytest.mark.parametrize("text", EXAMPLES.values(), ids=EXAMPLES.keys())
def test_each_channel_passes_the_filters_and_is_read(text: str) -> None:
    assert interesting(text)
    assert CALL_LINE in hot_lines(text, Lines(text))
    [fragment] = fragments(text)
    assert "uptime" in fragment.text  # the command the call was given


def test_a_line_without_a_channel_name_is_not_hot() -> None:
    text = "import subprocess\n\nsubprocess.whatever('ssh h uptime')\n"
    assert hot_lines(text, Lines(text)) == []
    assert fragments(text) == []
