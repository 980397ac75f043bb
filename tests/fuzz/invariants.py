"""The promises every input must keep, shared by tests/test_fuzz.py and the atheris harness.

`assert_sound(text, kind, ...)` runs `check_text` and `fix_kind` and asserts: no exception
(but the documented refusal of shells nested too deep, `layers.TooDeep`);
every finding's span inside the text (0 <= start < end <= len); every fix edit inside the
text; a fix's new file stays beside the script (relative, no `..`, no newline or NUL); the
remaining findings inside the fixed text; fixing the fixed text again changes nothing
(when the fixer reached its fixed point within MAX_PASSES passes).
"""

from __future__ import annotations

from pathlib import PurePosixPath

from heredoc_lint.engine import Settings, check_text, fix_kind
from heredoc_lint.fixes.fixer import MAX_PASSES
from heredoc_lint.layers.layer import TooDeep
from heredoc_lint.model import Finding

KINDS = ("shell", "command")
FRONTEND_KINDS = ("markdown", "actions", "python")
STRATEGIES = ("base64", "scp", "stdin")


def engine_settings(strategy: str = "base64", prefilter: bool = True) -> Settings:
    return Settings(fix_strategy=strategy, prefilter=prefilter)


def assert_sound(
    text: str,
    kind: str,
    strategy: str = "base64",
    prefilter: bool = True,
    fix: bool = True,
    path: str = "dir/script.sh",
) -> list[Finding]:
    """check_text and fix_kind on `text` keep every promise this file tests."""
    config = engine_settings(strategy, prefilter)
    try:
        findings = check_text(text, kind, path, config)
    except TooDeep:
        return []  # shells nested past layers.MAX_DEPTH are refused (the CLI exits 2)
    for f in findings:
        assert 0 <= f.start < f.end <= len(text), (f.code, f.start, f.end, len(text))
        if f.fix is not None:
            for edit in f.fix.edits:
                assert 0 <= edit.start <= edit.end <= len(text), (f.code, edit)
    if not fix:
        return findings
    outcome = fix_kind(text, kind, path, config, unsafe=True)
    assert isinstance(outcome.text, str)
    for f in outcome.remaining:
        assert 0 <= f.start < f.end <= len(outcome.text), (f.code, f.start, f.end)
    for new in outcome.new_files:
        relative = PurePosixPath(new.path)
        assert not relative.is_absolute() and ".." not in relative.parts, new.path
        assert "\n" not in new.path and "\0" not in new.path, new.path
    if outcome.text != text and outcome.passes < MAX_PASSES:
        # (A fix that needs more than MAX_PASSES passes, e.g. the unsafe HL106 fix of 11
        # nested `ssh h ssh h ...` hops, one level per pass, stops there by design.)
        again = fix_kind(outcome.text, kind, path, config, unsafe=True)
        assert again.text == outcome.text, "fixing the fixed text changed it again"
    return findings


def trivial_input_works(kind: str) -> bool:
    """Frontends still being written join the fuzzing once they handle trivial input."""
    try:
        for text in ("", "x", "\n"):
            check_text(text, kind, "f")
            fix_kind(text, kind, "f")
    except Exception:
        return False
    return True


def embed(kind: str, script: str) -> tuple[str, str]:
    """`script` inside a file of `kind`, and a path that kind is read from."""
    if kind == "markdown":
        console = "$ " + script.replace("\n", "\n> ")
        return (
            f"# Run\n\n```bash\n{script}\n```\n\n```console\n{console}\noutput\n```\n",
            "README.md",
        )
    if kind == "actions":
        body = "".join(f"          {line}\n" for line in script.split("\n"))
        return (
            f"on: push\njobs:\n  a:\n    runs-on: x\n    steps:\n      - run: |\n{body}",
            ".github/workflows/ci.yml",
        )
    if kind == "python":
        flat = script.replace("\\", "").replace("'", "").replace("\n", " ")
        return (
            "import os, subprocess\n"
            f"subprocess.run({script!r}, shell=True)\n"
            f"os.system(f'ssh h {{host}} {flat}')\n"
            f"subprocess.run(['ssh', 'h', {script!r}])\n",
            "tool.py",
        )
    return script, "dir/script.sh"
