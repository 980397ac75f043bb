r"""A run-time value put into a shell command string without shlex.quote.

## What it does
Finds a value known only at run time (an f-string field, a `%s`, a `{}` of
`str.format`, a variable added with `+`) that a Python program puts into a shell
command string as a word, without `shlex.quote` or `shlex.join`. The string is
one run by `subprocess.run(..., shell=True)`, `os.system`, paramiko's
`exec_command`, fabric's `Connection.run`, or an `ssh`/`bash -c` argument list.

It reports where the file shows that the value comes from outside the program:
`sys.argv`, options from `parse_args()`, `os.environ` and `os.getenv`,
configuration (`json.load`, `config[...]`), `input()`, `recv()`, an HTTP request
or response (`requests.post(...).json()`), or a parameter of a public function,
followed through names, loops, the file's own helpers and callers, and the
attributes of `self` its methods set, and the lists filled with `.append()`; the
message names that evidence, and the evidence sets the severity (the table
"Severity by evidence"). Text read from the network and a parameter of a
public function named as a host (`ssh {host} uptime`, the shared case
remote_py.py) are warnings. Everything else is info by default (`--severity
info` shows it), as measured on real code read on first look: a parameter
whose name says it holds a path or free text (`src`, `out_dir`, `logfile`,
`message`, `password`, `api_key`: 18 real bugs, 8 wrong, 61 debatable, most of
them paths the program makes itself), one whose name says nothing of what it
holds (`x`, `name`, `image`) or names a URL, an HTTP request, `sys.argv`,
options, the environment, configuration and `input()`. The message says which.
Where the file calls that
function itself, what its calls pass decides: a parameter given only the
program's own values is no evidence, except where those calls are only examples
with a literal at the module's top level (bare or under
`if __name__ == "__main__":`), as other modules import a public function: then
the parameter stays evidence unquoted in a path (`cd {path}`,
`find {dir}/data`), not in a glob pattern (`{stem}*`). A parameter whose default
shows the kind of value its callers pass is no evidence: a quantity (`30`,
`"500k"`), or `None` that the function replaces with a name it makes of literals
and numbers.
A value whose origin nothing in the file shows is reported at info, and so are:
an argparse option declared `type=int`/`float` or a flag (a number), a variable
a batch scheduler or snapd sets (`SLURM_NODELIST`, `SNAP`), what a helper of the
file returns as `shlex.quote(...)`, a parameter inside double quotes (where only
`$`, backtick, `\` and `"` break it, which a path does not show), a parameter of
a function in a private module (`pkg/_internal/`, `_impl.py`: only the project's
own code calls it), a value whose name says it is an identifier that git, a
package manager or a service restricts (`branch`, `port`, `node_id`,
`package_name`, `version`, an `ip` or a `domain`: one word in practice), and a
value that is the host part of `user@{h}` or `https://{h}` (a DNS name or an
address), unless the network or an HTTP request sent it, and, in test code
(`tests/`, `integration-tests/`, `test_*.py`, `conftest.py`), anything but
text from the network or input. The message says what a value's name shows it
holds: a path, free text, a URL, a host. Text from the network or input mixed
with shell text of the program's own (`'--text "' + reply + '"'`) is reported
without a fix: only its outside part needs quoting.

## Why is this bad?
The shell parses the value. A space splits it into several arguments, a `*`
expands to file names, a `;`, `|`, `&&` or `$(...)` in it runs as a command: a
file name like `my file` breaks the command and a crafted one runs arbitrary code
(shell injection), on a remote host for ssh and paramiko. Inside double quotes a
`$`, backtick, `\` or `"` in the value is still interpreted; inside single
quotes a `'` in the value ends the quoting.

Not reported: values that are one safe word whatever happens (numbers and
arithmetic, `%d`, `len(...)`, `randint(...)`, `sock.getsockname()[1]`,
`uuid4()`, a name whose every value is a literal, as in a `for` over a literal
list or an `if`/`else` of two literals, anything passed through a function
named `quote`: `shlex.quote`, `pipes.quote`, `self._shell.quote`), and values
meant as shell text (a glob such as `os.path.join(d, "*")`, an option string
such as `"-n " + ns`, `~`, `$VAR`, shell operators or quotes of their own, a
whole command as in `f"{cmd} --verbose"` or `f"sudo {cmd}"`, words joined with
`" ".join(args)`, a name or key such as `cmd`, `args` or `opts`, as in
`job["cmd"]`).

## Example
```python
import subprocess


def restart(host: str) -> None:
    subprocess.run(f"ssh {host} systemctl restart app", shell=True)
```

## Use instead
```python
import shlex
import subprocess


def restart(host: str) -> None:
    subprocess.run(f"ssh {shlex.quote(host)} systemctl restart app", shell=True)
```
or pass an argument list without a shell: `subprocess.run(["ssh", host,
"systemctl restart app"])`.

## Fix safety
The fix wraps the value in `shlex.quote(...)` (with `str(...)` around a value
not known to be a string), removes the quotes around it that are no longer
needed, and adds `import shlex`. It is safe where the author's own quotes
(`'{path}'`, `"{path}"`) show the value is one word: every value that worked
still gives the same word. It is unsafe for an unquoted value, which may be
meant to become several words. It is display-only where the value is built in a
statement of its own whose name is used elsewhere too (quoting it there would
change those uses). There is no fix in a file that may run under Python 2 (it
has no `shlex.quote`), nor for a value that passes through two shells (a
`shell=True` string that runs `ssh`): it needs quoting for each shell.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator
from itertools import accumulate

from heredoc_lint.fixes.edits import Quote, quote_states
from heredoc_lint.layers.layer import Layer
from heredoc_lint.layers.wrappers import resolve, unwrap_prefixes
from heredoc_lint.model import Finding
from heredoc_lint.rules.base import Context, FixAvailability, Invalid, finding, rule
from heredoc_lint.shell.syntax import Command
from heredoc_lint.shell.words import Word

_WHY = {
    Quote.UNQUOTED: "as an unquoted shell word: the shell splits it at blanks, expands `*` "
    "and `$` in it, and runs what follows a `;`, `|` or `&` in it as a command",
    Quote.DOUBLE: 'inside double quotes: a `$`, backtick, `\\` or `"` in it is still '
    "interpreted by the shell",
    Quote.SINGLE: "inside single quotes: a `'` in it ends the quoting and the rest of the "
    "value is read as shell code",
    Quote.ANSI: "inside `$'...'`: a backslash or `'` in it is read as an escape",
}


def _where(layer: Layer) -> str:
    if layer.depth == 0:
        return f"the shell command of `{layer.wrapper}`" if layer.wrapper else "a shell command"
    return f"the `{layer.wrapper}` command string"


def _words(command: Command) -> Iterator[Word]:
    yield from command.words
    yield from command.assignments
    for redirect in command.redirects:
        if redirect.target is not None and redirect.heredoc is None:
            yield redirect.target


class _Words:
    """Every word of a layer's commands, by start, to find the innermost word holding a
    span in logarithmic time (a scan of all words per value was quadratic: an f-string
    of 4,000 fields took 8 s)."""

    def __init__(self, layer: Layer) -> None:
        entries = [
            (word.start, order, word.end, command, word)
            for order, (command, word) in enumerate(
                (command, word) for command in layer.script.commands for word in _words(command)
            )
        ]
        entries.sort(key=lambda entry: entry[:2])
        self.entries = entries
        self.starts = [entry[0] for entry in entries]
        self.reach = list(accumulate((entry[2] for entry in entries), max))

    def locate(self, start: int, end: int) -> tuple[Command, Word] | None:
        """The innermost word holding layer.text[start:end], with its command; of two as
        short, the first in the script's order."""
        best: tuple[int, int] | None = None
        found: tuple[Command, Word] | None = None
        i = bisect_right(self.starts, start) - 1
        while i >= 0 and self.reach[i] >= end:
            a, order, b, command, word = self.entries[i]
            if end <= b and (best is None or (b - a, order) < best):
                best, found = (b - a, order), (command, word)
            i -= 1
        return found


def _passed_down(layer: Layer, command: Command, word: Word, context: Context) -> bool:
    """Whether `word` becomes text of a child layer: that layer reports it."""
    invocation = resolve(command.words, context.wrappers)
    if invocation is None:
        return False
    return any(w.start < word.end and word.start < w.end for w in invocation.words)


def _whole_command(command: Command, word: Word, start: int, end: int) -> bool:
    """`f"{cmd} --verbose"`, `f"sudo {cmd}"`: a value in command position is a command."""
    if word.start != start or word.end != end or not command.words:
        return False
    index = unwrap_prefixes(command.words)
    if index is None:
        # unwrap_prefixes stops at the first word that is not static: ours, maybe.
        index = next((k for k, w in enumerate(command.words) if not w.static), -1)
    return 0 <= index < len(command.words) and command.words[index] is word


def _escaped_for(state: Quote, escaped: str) -> bool:
    """The value escapes by hand what matters in its quotes (`.replace("'", "'\\''")`)."""
    if state is Quote.SINGLE:
        return "'" in escaped
    if state is Quote.DOUBLE:
        return all(c in escaped for c in '"$`\\')
    return False


def _word_here(layer: Layer, words: _Words, start: int, end: int, context: Context) -> Word | None:
    """The word holding the value at layer.text[start:end], where this layer reports it:
    not in a heredoc body (HL202's), nor in a word that a child layer reads (that layer
    reports it), nor a whole command."""
    if layer.heredoc_at(start) is not None:
        return None
    located = words.locate(start, end)
    if located is None:
        return None
    command, word = located
    if _passed_down(layer, command, word, context) or _whole_command(command, word, start, end):
        return None
    return word


def _quote_state(text: str, word: Word, start: int, end: int) -> Quote | None:
    """How the value at text[start:end] stands quoted in `word`."""
    states = quote_states(text, word)
    state = states.get(start)
    if state is Quote.INSIDE and end - start > 1 and _escaped(text, start):
        state = states.get(start + 1)  # `\{p}`: a backslash escapes the first character alone
    return state


def check(layer: Layer, context: Context) -> Iterator[Finding]:
    # Only Python fragments hold these values (their root's interpolations): the frontend
    # is imported for them alone, never for a shell script every rule reads.
    if not layer.root.interpolations:
        return
    from heredoc_lint.frontends.python import fragment_of, root_index, runtime_spans
    from heredoc_lint.frontends.python.content import content
    from heredoc_lint.frontends.python.origins import free_text

    spans = runtime_spans(layer)
    if not spans:
        return
    found = fragment_of(layer)
    if found is None:
        return
    frag, _ = found
    if frag.argv and layer.parent is None:
        return  # an argv list: no shell reads its words (the layers below it are shells)
    words = _Words(layer)
    for start, end in spans:
        word = _word_here(layer, words, start, end, context)
        if word is None:
            continue
        index = root_index(layer, start)
        interp = frag.interp_at(index) if index is not None else None
        if interp is None or interp.safe or interp.words:
            continue  # one safe word, or several words on purpose
        if interp.shell_text and not free_text(interp.evidence):
            continue  # shell text on purpose (a glob, options, `~`) and nothing worse in it
        state = _quote_state(layer.text, word, start, end)
        if state is None or state is Quote.INSIDE or _escaped_for(state, interp.escaped):
            continue
        fix = None
        if layer.parent is None and not interp.shell_text:
            from heredoc_lint.fixes.python_fixes import quote_fix

            fix = quote_fix(layer, frag, start, end, word)
        pattern = _GLOB.search(layer.text[word.start : start] + layer.text[end : word.end])
        held = _held(content(interp.source), layer.text, start)
        kind = _evidence_kind(interp.evidence, state, context.path, pattern is None, held)
        yield finding(
            layer,
            "HL201",
            kind,
            f"`{interp.source.strip()}` is put into {_where(layer)} {_WHY[state]}; "
            f"{_evidence_words(interp.evidence, kind)}{_content_words(held, kind)}: "
            + (_MIXED if interp.shell_text else "quote it with shlex.quote()"),
            start,
            end,
            fix,
        )


def _escaped(text: str, start: int) -> bool:
    """Whether a backslash right before text[start] escapes it (an odd run of them)."""
    i = start
    while i > 0 and text[i - 1] == "\\":
        i -= 1
    return (start - i) % 2 == 1


# A value that is shell text and text from outside at once: only its outside part needs quoting.
_MIXED = "quote its part from outside with shlex.quote() and keep its shell text as it is"
# Test code: the paths, hosts and variables a test uses are those of its authors' own runs.
# A test directory (`tests/`, `integration-tests/`, `e2e_tests/`) counts only in a relative
# path (as pre-commit and `heredoc-lint .` give them): in an absolute one it may be a
# directory above the checkout.
_TEST_FILE = re.compile(r"(?:\A|/)(?:test_[^/]*\.py|[^/]*_test\.py|conftest\.py)\Z")
_TEST_DIRECTORY = re.compile(r"(?:\A|/)(?:[\w.-]*[-_])?tests?(?:[-_][\w.-]*)?/")
# A private module (`pkg/_internal/x.py`, `_impl.py`): only the project's own code calls
# its functions, so their parameters are values the program makes, not outside input.
_PRIVATE_MODULE = re.compile(r"(?:\A|/)_(?!_)[^/]+(?:/|\Z)")  # not `__init__.py`


def _relative(path: str) -> str | None:
    path = path.replace("\\", "/")
    return None if path.startswith("/") else path


def _in_test_code(path: str) -> bool:
    if _TEST_FILE.search(path.replace("\\", "/")):
        return True
    relative = _relative(path)
    return relative is not None and _TEST_DIRECTORY.search(relative) is not None


def _in_private_module(path: str) -> bool:
    relative = _relative(path)
    return relative is not None and _PRIVATE_MODULE.search(relative) is not None


# The characters that make a word a pattern for the shell to expand (`{stem}*.mp3`).
_GLOB = re.compile(r"[*?\[]")


def _held(named: str | None, text: str, start: int) -> str | None:
    """What the value at text[start] holds (frontends.python.content of its name): a host
    part where its place says so, whatever its name."""
    if named in (None, "host") and _host_part(text, start):
        return "host-part"
    return named


def _host_part(text: str, start: int) -> bool:
    """Whether the value starts a destination's or a URL's host part (`user@{h}`,
    `https://{h}`): a DNS name or an address, one word whatever its origin."""
    return text.endswith("@", 0, start) or text.endswith("://", 0, start)


# What the message says of what the value holds, by its name (frontends.python.content).
_CONTENT_WORDS = {
    "path": ", and its name says it is a path, which may hold a blank",
    "text": ", and its name says it is free text, which may hold anything",
    "url": ", and its name says it is a URL, which may hold `&` or `?`",
    "host": ", and its name says it is a host",
    "identifier": ", but its name says it is an identifier (a port, an id, a version, a "
    "branch, a package...), one word in practice",
    "host-part": ", but it stands as the host part of `user@HOST` or a URL: a DNS name or "
    "an address, one word in practice",
}
# What holds one word in practice, by its name or by its place.
_ONE_WORD = frozenset({"identifier", "host-part"})
# Origins whose text a stranger chooses: a name there is no promise of its content.
_STRANGERS = frozenset({"network", "request"})


def _content_words(held: str | None, kind: str) -> str:
    """What the message says the value's name shows, where it tells the reader something."""
    if held is None or (held in _ONE_WORD and kind in _STRANGERS):
        return ""
    return _CONTENT_WORDS[held]


def _evidence_kind(
    evidence: str,
    state: Quote,
    path: str | None,
    path_word: bool = True,
    held: str | None = None,
) -> str:
    """Of the HL201 rows of heredoc_lint.severities: the origin of the value (origins.kind)
    only where the file shows the value comes from outside the program.

    In test code, only text read from outside (the network, input) counts: its other
    values are the test's own. Inside double quotes, where only `$`, backtick, `\\` and
    `"` break the word, a parameter of a public function is no evidence: a path or name
    passed to it holds none of them unless it comes from outside, which the file does
    not show. Where the file's only calls of the function pass a literal example at its
    top level, the parameter stays evidence unquoted in a path the command acts on
    (`cd {path}`, `find {dir}/data`): the callers that import the function pass theirs;
    not in a glob pattern (`{stem}*`, the files the function made from that stem). A value
    whose name says it is an identifier (`held`, see frontends.python.content), or that
    stands as a destination's or URL's host part (`held` "host-part"), is no
    evidence of outside text, unless a stranger chose it (the network, an HTTP request)."""
    from heredoc_lint.frontends.python.origins import (
        example_only,
        free_text,
        kind,
        only_a_parameter,
    )

    if not evidence:
        return "no-origin"
    if path is not None and _in_test_code(path) and not free_text(evidence):
        return "test-code"
    if state is Quote.DOUBLE and only_a_parameter(evidence):
        return "parameter-in-double-quotes"
    if path is not None and _in_private_module(path) and only_a_parameter(evidence):
        return "private-parameter"
    if example_only(evidence) and not (state is Quote.UNQUOTED and path_word):
        return "example-only"
    origin = kind(evidence)
    if held in _ONE_WORD and origin not in _STRANGERS:
        return "restricted-name"
    if origin == "parameter" and held not in _CARRIERS:
        return _PARAMETER_BY_CONTENT.get(held or "", "parameter-unknown")
    return origin


# What a parameter's name must say for it to be the bug's evidence: the caller's text
# that really holds blanks and shell characters (on first looks, nearly every real bug of
# a parameter); any other parameter is evidence only of a value from somewhere.
_CARRIERS = frozenset({"path", "text"})
_PARAMETER_BY_CONTENT = {"host": "parameter-host", "url": "parameter-url"}
_BY_CONTENT = frozenset({*_PARAMETER_BY_CONTENT.values(), "parameter-unknown"})


def _evidence_words(evidence: str, kind: str) -> str:
    """What the message says of where the value comes from: the evidence of an origin,
    whatever severity the table gives that origin."""
    from heredoc_lint.frontends.python.origins import KINDS

    if evidence and (kind in KINDS or kind == "restricted-name" or kind in _BY_CONTENT):
        return evidence
    if evidence:
        return f"{evidence}, which is no evidence of outside text here"
    return "nothing in this file shows where the value comes from"


# -- examples (tests/test_rule_lists.py) ---------------------------------------------------
# Python files. The evidence each INVALID example names is checked, with every rule run, by
# tests/test_rule_hl201.py (EVIDENCE, in this order).
EXAMPLES_KIND = "python"
_SAYS = "nothing in this file shows where the value comes from"
_RENDER = 'import os\n\n\ndef render(path):\n    os.system(f"lame {path} out.mp3")\n\n\n'
_RENDER_FIXED = (
    "import os\nimport shlex\n\n\n"
    'def render(path):\n    os.system(f"lame {shlex.quote(str(path))} out.mp3")\n\n\n'
)
INVALID = (
    # argv, options, the environment, configuration, input(), an HTTP request and a
    # parameter named as a path are info: their first look on real code was mostly
    # debatable (heredoc_lint/severities.py); a parameter named as a host is a warning.
    Invalid(
        "import os, sys\nos.system(f'ls -l {sys.argv[1]}')\n",
        "{sys.argv[1]}",
        "import os, sys\nimport shlex\nos.system(f'ls -l {shlex.quote(sys.argv[1])}')\n",
        "info",
        "`sys.argv`",
    ),
    Invalid(
        "import argparse, os\nparser = argparse.ArgumentParser()\nargs = parser.parse_args()\n"
        "os.system(f'du -sh {args.dir}')\n",
        "{args.dir}",
        "import argparse, os\nimport shlex\nparser = argparse.ArgumentParser()\n"
        "args = parser.parse_args()\nos.system(f'du -sh {shlex.quote(str(args.dir))}')\n",
        "info",
        "command-line option",
    ),
    Invalid(
        "import os\nos.system('ls ' + os.environ['DATA_DIR'])\n",
        "os.environ['DATA_DIR']",
        "import os\nimport shlex\nos.system('ls ' + shlex.quote(os.environ['DATA_DIR']))\n",
        "info",
        "environ",
    ),
    Invalid(
        "import os\nos.system(f\"rm -rf {os.getenv('BUILD_DIR')}/out\")\n",
        "{os.getenv('BUILD_DIR')}",
        "import os\nimport shlex\n"
        "os.system(f\"rm -rf {shlex.quote(str(os.getenv('BUILD_DIR')))}/out\")\n",
        "info",
        "`os.getenv`",
    ),
    Invalid(
        "import json, os\ncfg = json.load(open('c.json'))\nos.system(f\"cp a {cfg['dest']}\")\n",
        "{cfg['dest']}",
        "import json, os\nimport shlex\ncfg = json.load(open('c.json'))\n"
        "os.system(f\"cp a {shlex.quote(str(cfg['dest']))}\")\n",
        "info",
        "it comes from configuration",
    ),
    Invalid(
        "import os\nname = input()\nos.system(f'id {name}')\n",
        "{name}",
        "import os\nimport shlex\nname = input()\nos.system(f'id {shlex.quote(str(name))}')\n",
        "info",
        "`input()`",
    ),
    Invalid(
        "import os\nfrom flask import request\ndef view():\n"
        "    os.system(f\"convert {request.args.get('f')} out.png\")\n",
        "{request.args.get('f')}",
        "import os\nimport shlex\nfrom flask import request\ndef view():\n"
        "    os.system(f\"convert {shlex.quote(str(request.args.get('f')))} out.png\")\n",
        "info",
        "HTTP request",
    ),
    Invalid(
        "import os\ndef clean(path):\n    os.system(f'rm -rf {path}')\n",
        "{path}",
        "import os\nimport shlex\ndef clean(path):\n"
        "    os.system(f'rm -rf {shlex.quote(str(path))}')\n",
        "info",
        "parameter of the public function `clean`",
    ),
    Invalid(
        "class Box:\n    def push(self, client, path):\n"
        "        client.exec_command(f'cat {path}')\n",
        "{path}",
        "import shlex\n\nclass Box:\n    def push(self, client, path):\n"
        "        client.exec_command(f'cat {shlex.quote(str(path))}')\n",
        "info",
        "public function `push`",
    ),
    Invalid(  # a parameter rebound from itself keeps its origin
        "import os\ndef clean(path):\n    path = path.rstrip('/')\n"
        "    os.system(f'rm -r {path}')\n",
        "{path}",
        "import os\nimport shlex\ndef clean(path):\n    path = path.rstrip('/')\n"
        "    os.system(f'rm -r {shlex.quote(str(path))}')\n",
        "info",
        "public function `clean`",
    ),
    Invalid(  # named as a host: the one parameter still a warning
        "import os\ndef restart(host):\n    os.system(f'ssh {host} systemctl restart app')\n",
        "{host}",
        "import os\nimport shlex\ndef restart(host):\n"
        "    os.system(f'ssh {shlex.quote(str(host))} systemctl restart app')\n",
        "warning",
        "parameter of the public function `restart`",
    ),
    Invalid(
        "class Box:\n    def push(self, client, host):\n"
        "        client.exec_command(f'ping -c1 {host}')\n",
        "{host}",
        "import shlex\n\nclass Box:\n    def push(self, client, host):\n"
        "        client.exec_command(f'ping -c1 {shlex.quote(str(host))}')\n",
        "warning",
        "public function `push`",
    ),
    # info: nothing shows where the value comes from
    Invalid(  # a private function
        "import os\ndef _clean(path):\n    os.system(f'rm -rf {path}')\n",
        "{path}",
        "import os\nimport shlex\ndef _clean(path):\n"
        "    os.system(f'rm -rf {shlex.quote(str(path))}')\n",
        "info",
        _SAYS,
    ),
    Invalid(  # names from a directory listing: internal to the program
        "import os\ndef gz(d):\n    for name in os.listdir(d):\n"
        "        os.system(f'gzip {name}')\n",
        "{name}",
        "import os\nimport shlex\ndef gz(d):\n    for name in os.listdir(d):\n"
        "        os.system(f'gzip {shlex.quote(str(name))}')\n",
        "info",
        _SAYS,
    ),
    Invalid(
        "import os\nos.system(f'ping -c1 {node}')\n",
        "{node}",
        "import os\nimport shlex\nos.system(f'ping -c1 {shlex.quote(str(node))}')\n",
        "info",
        _SAYS,
    ),
    Invalid(  # a nested function: its callers are in the file
        "import os\ndef outer():\n    def inner(p):\n        os.system(f'ls {p}')\n",
        "{p}",
        "import os\nimport shlex\ndef outer():\n    def inner(p):\n"
        "        os.system(f'ls {shlex.quote(str(p))}')\n",
        "info",
        _SAYS,
    ),
    # a parameter's evidence is what the file's own calls pass (argv, environment and
    # input() are info)
    Invalid(
        _RENDER + "import sys\nrender(sys.argv[1])\n",
        "{path}",
        _RENDER_FIXED + "import sys\nrender(sys.argv[1])\n",
        "info",
        "`sys.argv`), passed to `render()` on line 9",
    ),
    Invalid(
        _RENDER + "render(path=os.environ['SRC'])\n",
        "{path}",
        _RENDER_FIXED + "render(path=os.environ['SRC'])\n",
        "info",
        "`os.environ`), passed to `render()` on line 8",
    ),
    Invalid(  # one call with outside data is enough, whatever the others pass
        _RENDER + 'render("a.wav")\nrender(input())\n',
        "{path}",
        _RENDER_FIXED + 'render("a.wav")\nrender(input())\n',
        "info",
        "`input()`), passed to `render()` on line 9",
    ),
    Invalid(  # the file does not show what `*args` holds: the parameter stays evidence
        _RENDER + 'names = ["a.wav"]\nrender(*names)\n',
        "{path}",
        _RENDER_FIXED + 'names = ["a.wav"]\nrender(*names)\n',
        "info",
        "a parameter of the public function `render`",
    ),
    Invalid(  # never called here: called from outside the file
        _RENDER,
        "{path}",
        _RENDER_FIXED,
        "info",
        "a parameter of the public function `render`",
    ),
    # calls that pass only the program's own values are no evidence: a literal in the
    # program's own function (the same at the module's top level is an example of use and
    # stays evidence: tests/test_hl201_lost_bugs.py), a literal list, the program's pid
    Invalid(
        _RENDER + 'def main():\n    render("/home/erik/Downloads/lastdance.mp3")\n',
        "{path}",
        _RENDER_FIXED + 'def main():\n    render("/home/erik/Downloads/lastdance.mp3")\n',
        "info",
    ),
    Invalid(
        _RENDER + 'for name in ["a", "b"]:\n    render(name + ".wav")\n',
        "{path}",
        _RENDER_FIXED + 'for name in ["a", "b"]:\n    render(name + ".wav")\n',
        "info",
    ),
    Invalid(
        _RENDER + 'render("out-" + str(os.getpid()) + ".wav")\n',
        "{path}",
        _RENDER_FIXED + 'render("out-" + str(os.getpid()) + ".wav")\n',
        "info",
    ),
    Invalid(  # a method's parameter stays evidence: its callers are objects
        "import os\n\n\nclass Player:\n    def play(self, path):\n"
        '        os.system(f"mpg123 {path}")\n\n\nPlayer().play("a.mp3")\n',
        "{path}",
        "import os\nimport shlex\n\n\nclass Player:\n    def play(self, path):\n"
        '        os.system(f"mpg123 {shlex.quote(str(path))}")\n\n\nPlayer().play("a.mp3")\n',
        "info",
        "a parameter of the public function `play`",
    ),
    Invalid(  # a helper of the file's own made it from an option
        "import argparse, os\np = argparse.ArgumentParser()\np.add_argument('--tmp')\n"
        "args = p.parse_args()\ntmp = get_dir(args.tmp)\nos.system(f'rm -r {tmp}')\n",
        "{tmp}",
        "import argparse, os\nimport shlex\np = argparse.ArgumentParser()\n"
        "p.add_argument('--tmp')\nargs = p.parse_args()\ntmp = get_dir(args.tmp)\n"
        "os.system(f'rm -r {shlex.quote(str(tmp))}')\n",
        "info",
        "through `get_dir()`",
    ),
    Invalid(  # the message names the Python call
        "import subprocess\n\n"
        "def f(path: str) -> None:\n"
        '    subprocess.run(f"rm {path}", shell=True)\n',
        "{path}",
        "import shlex\nimport subprocess\n\n"
        "def f(path: str) -> None:\n"
        '    subprocess.run(f"rm {shlex.quote(path)}", shell=True)\n',
        says="is put into the shell command of `subprocess.run`",
    ),
)
# One safe word, or shell text on purpose (WILD pattern 6). Every value is built from a
# parameter of a public function or from argv where a value is needed, so that only the
# shape of the value keeps it from being reported.
_HEAD = (
    "import os, pipes, random, shlex, socket, subprocess, sys, uuid\n"
    "PORT = 8000\n"
    "def run(d, ns, name, count, quick, sock, p):\n"
)
VALID = (
    _HEAD + "    os.system(f'nc -l {PORT + 1}')\n",  # a module constant and arithmetic
    _HEAD + "    os.system(f'nc -l {sock.getsockname()[1]}')\n",
    _HEAD + "    os.system(f'sleep {random.randint(1, 5)}')\n",
    _HEAD
    + "    os.system(f'mkdir /tmp/{uuid.uuid4()} /tmp/{str(uuid.uuid4())}"
    + " /tmp/{uuid.uuid4().hex}')\n",
    _HEAD + "    os.system(f'kill {os.getpid()} {len(sys.argv) * 2}')\n",
    _HEAD + "    for svc in ['api', 'worker']:\n        os.system(f'systemctl restart {svc}')\n",
    _HEAD + "    mode = 'fast' if quick else 'full'\n    os.system(f'make {mode}')\n",
    _HEAD + "    os.system(f\"make {'-j8' if quick else ''}\")\n",
    _HEAD + "    os.system(f'ls {shlex.quote(p)} {pipes.quote(p)}')\n",
    _HEAD + "    q = shlex.quote(p)\n    os.system('ls ' + q)\n",
    _HEAD + "    os.system(f'rm -f {os.path.join(d, \"*.tmp\")}')\n",  # a glob
    _HEAD + "    opt = '-n ' + ns\n    os.system(f'kubectl get pods {opt}')\n",  # an option string
    _HEAD
    + "    extra = ''\n    if quick:\n        extra = ' count=0'\n"
    + "    os.system('dd of=/tmp/z' + extra)\n",
    _HEAD + "    dest = '~/' + name\n    os.system(f'cp a {dest}')\n",  # `~` for the shell
    _HEAD + "    os.system(f'ls {os.path.join(\"~\", name)}')\n",
    _HEAD + "    target = '$HOME/' + name\n    os.system(f'cp a {target}')\n",  # `$VAR`
    _HEAD + "    q = \"'\" + p + \"'\"\n    os.system(f'ls {q}')\n",  # quoted by hand already
    _HEAD + "    os.system(f'timeout 10 {sys.argv[1]}')\n",  # a whole command
    _HEAD + "    cmd = sys.argv[1]\n    subprocess.run(f'nice {cmd}', shell=True)\n",
    (  # a method named `quote` of the project
        "class Remote:\n"
        "    def ls(self, path):\n"
        "        self.client.exec_command(f'ls {self._shell.quote(path)}')\n"
    ),
)


RULE = rule(
    "HL201",
    "shell-interpolation-unquoted",
    check,
    fix=FixAvailability.SOMETIMES,
)
