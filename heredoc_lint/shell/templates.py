"""Text written for a reader to fill in or to read, not for a shell to run.

Runbooks and READMEs hold command templates (`kubectl apply -f <path/to/job.yaml>`,
`--vars project_id=<<PROJECT_ID>>`) and console transcripts (`user@host:~$ make`). bash
would choke on them, or read `<<PROJECT_ID>>` as a heredoc, but no one runs them as they
stand: the rules report such text as "not checked" (info), not as a broken script.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import NamedTuple

from heredoc_lint.shell.heredoc import Heredoc

# Fields of templates (placeholders): `<<<PLACEHOLDER>>>`, `<<PROJECT_ID>>` (see
# `field_heredoc`), `<VALUE>`, `<path/to/file.yaml>`, `<project-id/>` (not a `<<` nor a
# `<(`), `{{ var }}` and `{% ... %}` (Jinja, Go, Helm), `%VAR%` (two characters at least,
# no letter after: `date +%Y%m` and `date +%Y_%H` are no templates).
_DOUBLE_ANGLE = r"<<[A-Za-z_][\w .-]*>>(?!>)"
_PLACEHOLDER = re.compile(
    r"<<<\s*[A-Za-z_][\w .-]*>>>"
    r"|(?<![<\w])<[A-Za-z][\w./|-]*(?: [\w./|-]+)*/?>(?!>)"  # also `<cu128|cu129|...>`
    r"|\{\{-?\s*[A-Za-z_][^{}\n]*\}\}|\{%-?\s*[a-z]+[^{}\n]*%\}"
    r"|%[A-Z_][A-Z0-9_]+%(?!\w)"
)
_FIELD_HEREDOC = re.compile(_DOUBLE_ANGLE)
# Prompts of a console transcript at the start of a line: `[root@host dir]# `,
# `user@host:~/x$ `, `(venv) user@host:~$ `.
_PROMPT = re.compile(
    r"^\s*(?:\([\w.-]+\)\s*)?(?:\[[\w.-]+@[\w.-]+[^\]\n]*\]|[\w.-]+@[\w.-]+:[^\s$#]*)\s?[#$] ",
    re.MULTILINE,
)


def field_heredoc(text: str, heredoc: Heredoc) -> str | None:
    """`<<PROJECT_ID>>` read as a heredoc: the field, if `heredoc` is one.

    bash reads `<<NAME>>` as a heredoc and an append, and a script can mean that
    (`cat <<EOF>> ~/.bashrc`); but then a line `NAME` ends the heredoc.  An
    unterminated one, with no line that looks like a misspelt terminator, is a field of
    a template that was never filled in."""
    if heredoc.terminated:
        return None
    match = _FIELD_HEREDOC.match(text, heredoc.op_start)
    if match is None:
        return None
    rest = text[heredoc.body_start :].splitlines()
    if any(line.strip().startswith(heredoc.delimiter) for line in rest):
        return None  # `  EOF`: a terminator gone wrong, which HL112 is about
    return match.group()


class NotAScript(NamedTuple):
    what: str  # "a template (the field `<VALUE>`)", "a console transcript (...)"
    # Whether it is a template's field: what bash would refuse, so that a text bash
    # accepts has none (`echo "Usage: $0 <query>"`, `date +%Y_%H`).
    field: bool


def not_a_script(text: str, heredocs: Iterable[Heredoc]) -> NotAScript | None:
    """What makes `text` a template or a transcript rather than a script, if anything.

    Heredoc bodies are data (HTML, YAML with `{{ }}`...): they are not looked at."""
    fields: list[tuple[int, str]] = []
    for heredoc in heredocs:
        field = field_heredoc(text, heredoc)
        if field is not None:
            fields.append((heredoc.op_start, field))
            continue
        body = text[heredoc.body_start : heredoc.body_end]
        blank = "".join(c if c == "\n" else " " for c in body)
        text = text[: heredoc.body_start] + blank + text[heredoc.body_end :]
    prompt = _PROMPT.search(text)
    if prompt is not None:
        return NotAScript(f"a console transcript (the prompt `{prompt.group().strip()}`)", False)
    placeholder = _PLACEHOLDER.search(text)
    if placeholder is not None:
        fields.append((placeholder.start(), placeholder.group()))
    if fields:
        return NotAScript(f"a template (the field `{min(fields)[1][:40]}`)", True)
    return None
