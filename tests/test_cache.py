"""The findings cache, through the real CLI: a warm run says exactly what a cold one
says, never reuses findings after the file, the settings or the tool changed, survives
corruption and concurrent runs, and a run it answers entirely never loads the engine."""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path
from typing import get_args

import pytest
from cli_process import CLI, run_cli
from hypothesis import given
from hypothesis import strategies as st
from probe import loaded_modules

import heredoc_lint
from heredoc_lint.kinds import WrapperKind
from heredoc_lint.layers.pywrappers import RUNS, PyWrapper
from heredoc_lint.model import Strategy
from heredoc_lint.run.cache import _fingerprint
from heredoc_lint.run.settings import Settings

FIXTURES = Path(__file__).parent.parent / "fixtures"
BROKEN = 'ssh web-1 "pkill -f worker; x=1; echo $x"\n'  # HL103, and HL102 (binding inside)


def lint(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("--format", "json", *args, cwd=cwd, timeout=120)


def findings(result: subprocess.CompletedProcess[str]) -> list[tuple[str, str, int, int]]:
    return [(f["path"], f["code"], f["line"], f["column"]) for f in json.loads(result.stdout)]


def packs(cache: Path) -> list[Path]:
    return sorted(cache.glob("findings-*.json"))


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    shutil.copytree(FIXTURES, tmp_path / "fixtures")
    return tmp_path


def test_warm_run_reports_what_the_engine_reports(tree: Path) -> None:
    fresh = lint(tree, "--no-cache", "fixtures")
    cold = lint(tree, "fixtures")
    warm = lint(tree, "fixtures")
    assert fresh.returncode == cold.returncode == warm.returncode == 1
    assert len(findings(fresh)) >= 10
    # Byte-identical JSON: fixes, layers and messages all come back from the cache.
    assert cold.stdout == warm.stdout == fresh.stdout
    assert [p.name for p in (tree / ".heredoc_lint_cache").iterdir() if p.suffix == ".json"]
    assert len(packs(tree / ".heredoc_lint_cache")) == 1


def test_a_run_the_cache_answers_never_imports_the_engine(tree: Path) -> None:
    lint(tree, "fixtures")
    args = ["--format", "concise", "fixtures"]
    assert loaded_modules(args, ("tree_sitter",), tree) == ([], 1)
    (tree / "fixtures" / "broken" / "rotate_certs.sh").write_text("#!/bin/bash\n" + BROKEN)
    assert loaded_modules(args, ("tree_sitter",), tree) == (["tree_sitter"], 1)


def test_an_edited_file_is_checked_again(tmp_path: Path) -> None:
    script = tmp_path / "a.sh"
    script.write_text("echo fine\n")
    assert lint(tmp_path, "a.sh").returncode == 0
    script.write_text(BROKEN)  # same name, new bytes
    after = lint(tmp_path, "a.sh")
    assert after.returncode == 1
    assert {f[1] for f in findings(after)} == {"HL102", "HL103"}
    script.write_text("echo fine\n")
    assert lint(tmp_path, "a.sh").returncode == 0


def test_settings_are_part_of_the_key(tmp_path: Path) -> None:
    (tmp_path / "a.sh").write_text(BROKEN)
    assert {f[1] for f in findings(lint(tmp_path, "a.sh"))} == {"HL102", "HL103"}
    assert {f[1] for f in findings(lint(tmp_path, "--ignore", "HL103", "a.sh"))} == {"HL102"}
    (tmp_path / "pyproject.toml").write_text('[tool.heredoc-lint]\nignore = ["HL102"]\n')
    assert {f[1] for f in findings(lint(tmp_path, "a.sh"))} == {"HL103"}
    (tmp_path / "pyproject.toml").unlink()
    assert {f[1] for f in findings(lint(tmp_path, "a.sh"))} == {"HL102", "HL103"}


@pytest.mark.parametrize(
    "damage",
    [
        b"\x00\xff garbage",
        b"[1, 2, 3]",
        b'{"%s": "not an entry"}',
        b'{"%s": ["%s", [["HL999", "fatal", "x", 0, 0, 0, null]]]}',  # a short row
        b'{"%s": ["%s", [["HL103", "no-such-severity", "x", 0, 0, 0, null, null]]]}',
        b'{"%s": ["%s", [["HL103", "error", "x", "0", 1, 0, null, null]]]}',  # a string offset
        b'{"%s": ["%s", [["HL103", "error", "x", 0, null, 0, null, null]]]}',
        b"[" * 200_000,  # too deep for the JSON parser
    ],
    ids=[
        "bytes",
        "list",
        "not-an-entry",
        "short-row",
        "severity",
        "str-offset",
        "null-end",
        "deep",
    ],
)
def test_a_corrupt_pack_is_ignored_and_rebuilt(tree: Path, damage: bytes) -> None:
    expected = lint(tree, "--no-cache", "fixtures")
    lint(tree, "fixtures")
    (pack,) = packs(tree / ".heredoc_lint_cache")
    name, [key, _] = next(iter(json.loads(pack.read_bytes()).items()))
    pack.write_bytes(damage.replace(b"%s", name.encode(), 1).replace(b"%s", key.encode(), 1))
    damaged = lint(tree, "fixtures")
    assert (damaged.returncode, damaged.stdout) == (expected.returncode, expected.stdout)
    assert damaged.stderr == ""
    rebuilt = json.loads(pack.read_bytes())
    assert rebuilt[name][0] == key and lint(tree, "fixtures").stdout == expected.stdout


def test_the_same_file_named_from_another_directory_is_checked_again(tmp_path: Path) -> None:
    """HL103's message names the script as it was given: a finding cached for
    `scripts/stop.sh` is not the answer for `stop.sh` run from `scripts/`."""
    scripts = tmp_path / "scripts"
    scripts.mkdir()
    (scripts / "stop.sh").write_text('#!/bin/bash\npkill -f "scripts/stop"\n')
    cache = str(tmp_path / "cache")
    assert lint(tmp_path, "--cache-dir", cache, "scripts/stop.sh").returncode == 1
    inside = lint(scripts, "--cache-dir", cache, "stop.sh")
    assert (inside.returncode, inside.stdout) == (0, "[]\n")
    assert lint(tmp_path, "--cache-dir", cache, "scripts/stop.sh").returncode == 1


def test_a_run_keeps_what_a_run_beside_it_saved(tmp_path: Path) -> None:
    """pre-commit runs several heredoc-lint processes at once in one directory: the one
    that ends last merges the pack as it finds it, so no run's entries are lost."""
    for i in range(300):
        (tmp_path / f"s{i:03}.sh").write_text(BROKEN if i % 2 else f"echo {i}\n")
    (tmp_path / "small.sh").write_text(BROKEN)
    # The slow run is held while it reads the pack (a FIFO in the pack's place, written
    # only after the small run saved): it cannot end first, however the two are scheduled.
    cache = tmp_path / ".heredoc_lint_cache"
    cache.mkdir()
    held = cache / f"findings-{_fingerprint()}.json"
    os.mkfifo(held)
    slow = subprocess.Popen(
        [*CLI, "--jobs", "1", *[f"s{i:03}.sh" for i in range(300)]],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 60
    while True:  # until the slow run has the FIFO open: it is reading the pack
        try:
            writer = os.open(held, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as error:
            if error.errno != errno.ENXIO:
                raise
        assert slow.poll() is None, "the slow run never read the pack"
        assert time.monotonic() < deadline, "the slow run never read the pack"
        time.sleep(0.01)
    held.unlink()  # the small run finds no pack, as the slow one will
    try:
        lint(tmp_path, "small.sh")  # reads and saves the pack while the slow run works
        assert slow.poll() is None, "the slow run ended first: the test proves nothing"
        os.write(writer, b"{}")  # what the slow run read: the pack before the small run saved
    finally:
        os.close(writer)
    assert slow.wait(timeout=120) == 1
    (pack,) = packs(tmp_path / ".heredoc_lint_cache")
    entries = json.loads(pack.read_bytes())
    assert str(tmp_path / "small.sh") in entries and len(entries) == 301


def test_concurrent_runs_never_break_the_pack(tmp_path: Path) -> None:
    for i in range(40):
        (tmp_path / f"s{i:02}.sh").write_text(BROKEN if i % 2 else "echo fine\n")
    names = sorted(p.name for p in tmp_path.glob("*.sh"))
    runs = [
        subprocess.Popen(
            [*CLI, "--format", "json", "--jobs", "2", *chunk],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            text=True,
        )
        for chunk in [names, names[:20], names[20:], names[::3], names, names[5:30]] * 2
    ]
    outputs = [proc.communicate(timeout=120)[0] for proc in runs]
    expected = json.loads(lint(tmp_path, "--no-cache", *names).stdout)
    assert json.loads(outputs[0]) == expected == json.loads(outputs[4])
    (pack,) = packs(tmp_path / ".heredoc_lint_cache")
    assert isinstance(json.loads(pack.read_bytes()), dict)
    assert not list((tmp_path / ".heredoc_lint_cache").glob(".tmp-*"))
    assert json.loads(lint(tmp_path, *names).stdout) == expected


def test_one_pack_holds_one_entry_per_file(tmp_path: Path) -> None:
    for i in range(30):
        (tmp_path / f"s{i}.sh").write_text(f"echo {i}\n")
    lint(tmp_path, ".")
    for i in range(30):
        (tmp_path / f"s{i}.sh").write_text(f"echo {i} changed\n")
    lint(tmp_path, ".")
    (tmp_path / "s0.sh").unlink()
    (tmp_path / "new.sh").write_text(BROKEN)
    lint(tmp_path, ".")  # the deleted file's entry goes when the pack is next written
    cache = tmp_path / ".heredoc_lint_cache"
    assert sorted(p.name for p in cache.iterdir()) == [".gitignore", packs(cache)[0].name]
    entries = json.loads(packs(cache)[0].read_bytes())
    assert sorted(Path(name).name for name in entries) == sorted(
        [f"s{i}.sh" for i in range(1, 30)] + ["new.sh"]
    )


def test_a_pack_of_another_version_is_dropped(tmp_path: Path) -> None:
    (tmp_path / "a.sh").write_text(BROKEN)
    cache = tmp_path / ".heredoc_lint_cache"
    cache.mkdir()
    old = cache / "findings-0123456789abcdef.json"
    old.write_text(json.dumps({str(tmp_path / "a.sh"): ["stale-key", []]}))
    assert lint(tmp_path, "a.sh").returncode == 1  # the old pack's "no findings" is not used
    assert not old.exists() and len(packs(cache)) == 1


def test_fixing_bypasses_the_cache(tmp_path: Path) -> None:
    script = tmp_path / "a.sh"
    script.write_text(BROKEN)
    lint(tmp_path, "a.sh")
    lint(tmp_path, "--fix", "--unsafe-fixes", "a.sh")
    assert "pkill -f '[w]'orker" in script.read_text()  # fixed from the text, not a cached answer
    # and the next check sees the fixed file, not the cached findings of the old one
    after = lint(tmp_path, "a.sh")
    assert [f[1] for f in findings(after)] == []  # the unsafe fix escaped `$?` too
    assert after.stdout == lint(tmp_path, "--no-cache", "a.sh").stdout


# Each field of Settings, drawn from a few values so that two draws often share a part
# (the same wrapper names with other kinds, the same codes in another order).
_CODES = st.frozensets(st.sampled_from(["HL1", "HL101", "HL103", "HL2"]))
_SETTINGS_FIELDS: dict[str, st.SearchStrategy[object]] = {
    "select": st.none() | _CODES,
    "ignore": _CODES,
    "fix_strategy": st.sampled_from(get_args(Strategy)),
    "wrappers": st.dictionaries(
        st.sampled_from(["myssh", "run"]), st.sampled_from(get_args(WrapperKind)), max_size=2
    ),
    "python_wrappers": st.lists(
        st.builds(
            PyWrapper,
            st.sampled_from(["proj.run", "*.execute"]),
            st.sampled_from([0, 1, "cmd"]),
            st.sampled_from(sorted(RUNS)),
        ),
        max_size=2,
    ).map(tuple),
    "warn_unused_suppressions": st.booleans(),
    "prefilter": st.booleans(),
    "directives": st.booleans(),
}


def test_the_settings_strategies_cover_every_field() -> None:
    assert _SETTINGS_FIELDS.keys() == {f.name for f in dataclasses.fields(Settings)}


@given(st.fixed_dictionaries(_SETTINGS_FIELDS), st.data())
def test_settings_share_a_cache_key_exactly_when_equal(
    fields: dict[str, object], data: st.DataObject
) -> None:
    """One field drawn again (a mapping's value, a set in another order, a list of
    wrappers): the key changes exactly when the settings do."""
    base = Settings(**fields)
    name = data.draw(st.sampled_from(sorted(_SETTINGS_FIELDS)))
    other = dataclasses.replace(base, **{name: data.draw(_SETTINGS_FIELDS[name])})
    assert (base.cache_key() == other.cache_key()) == (base == other), name


# -- cache.py ----------------------------------------------------------------------------


_PKILL = "ssh h 'pkill -f sglang; echo done'\n"


def _cached_run(tmp_path: Path, env: dict[str, str]) -> str:
    script = tmp_path / "s.sh"
    script.write_text(_PKILL)
    argv = [sys.executable, "-m", "heredoc_lint", "--cache-dir", str(tmp_path / "c"), str(script)]
    # From tmp_path, as the probe runs: `-m` imports a package from the working directory
    # first, and a checkout there would be another build, with another cache key.
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=tmp_path, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "HL103" in proc.stdout
    return proc.stdout


def test_first_run_makes_the_cache_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With no cache key yet, the first run makes one (32 bytes, this user's alone) and
    keys its pack with it: the next run is answered from that pack (it never loads the
    parser) and says the same."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    first = _cached_run(tmp_path, dict(os.environ))
    key = tmp_path / "xdg" / "heredoc-lint" / "cache-key"
    assert len(key.read_bytes()) == 32
    assert stat.S_IMODE(key.stat().st_mode) & 0o077 == 0
    args = ["--cache-dir", str(tmp_path / "c"), str(tmp_path / "s.sh")]
    assert loaded_modules(args, ("tree_sitter",), tmp_path) == ([], 1)
    assert _cached_run(tmp_path, dict(os.environ)) == first


def test_a_new_yaml_install_starts_a_new_pack(tmp_path: Path) -> None:
    """The findings depend on the parsers (PyYAML reads workflow files): installing
    another version of one (its files' sizes or mtimes change) must not reuse the pack."""
    import yaml

    lib = tmp_path / "lib"
    shutil.copytree(
        Path(yaml.__file__).parent, lib / "yaml", ignore=shutil.ignore_patterns("__pycache__")
    )
    path = os.pathsep.join(p for p in (str(lib), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "PYTHONPATH": path, "PYTHONDONTWRITEBYTECODE": "1"}
    first = _cached_run(tmp_path, env)
    (before,) = (tmp_path / "c").glob("findings-*.json")
    init = lib / "yaml" / "__init__.py"
    mtime = init.stat().st_mtime_ns + 2_000_000_000
    os.utime(init, ns=(mtime, mtime))
    assert _cached_run(tmp_path, env) == first
    (after,) = (tmp_path / "c").glob("findings-*.json")
    assert after.name != before.name


# -- cache.py: a parser that is not installed ------------------------------------------------


# Runs the CLI with the named modules made unimportable (a None in sys.modules is what
# Python's import system reads as "not installed"), the rest of argv passed on.
_HIDING = (
    "import runpy, sys\n"
    "for name in filter(None, sys.argv[1].split(',')):\n"
    "    sys.modules[name] = None\n"
    "sys.argv = ['heredoc-lint', *sys.argv[2:]]\n"
    "runpy.run_module('heredoc_lint', run_name='__main__', alter_sys=True)\n"
)


def _run_hiding(tmp_path: Path, hidden: str) -> tuple[str, str]:
    """One cached run on a script with an HL103 finding: its output and its pack's name."""
    script = tmp_path / "s.sh"
    script.write_text("ssh h 'pkill -f sglang; echo done'\n")
    cache = tmp_path / "c"
    argv = [sys.executable, "-c", _HIDING, hidden, "--cache-dir", str(cache), str(script)]
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, check=False)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "HL103" in proc.stdout
    (pack,) = cache.glob("findings-*.json")
    return proc.stdout, pack.name


def test_a_parser_not_installed_has_a_pack_of_its_own(tmp_path: Path) -> None:
    """PyYAML is imported only for a workflow file: a shell script is checked without it.
    Its absence is part of the cache's fingerprint: installing it later starts a new pack
    (it may change the findings), and removing it again starts another."""
    without, first = _run_hiding(tmp_path, "yaml")
    with_yaml, second = _run_hiding(tmp_path, "")
    assert with_yaml == without
    assert second != first
    assert _run_hiding(tmp_path, "yaml") == (without, first)


# -- cache.py: a key that cannot be kept is made for the run --------------------------------


_BAD = 'ssh h "pkill -f app; ./app"\n'


def test_a_cache_key_that_cannot_be_kept_still_checks(tmp_path: Path) -> None:
    """`$XDG_CACHE_HOME` under a regular file: the per-user key cannot be written, so the
    run makes one of its own (the cache then serves only that run) and checks as usual,
    twice in a row.  (Run 7: without a key of its own the run was an internal error.)"""
    (tmp_path / "file").write_text("")
    script = tmp_path / "s.sh"
    script.write_text(_BAD)
    env = {"XDG_CACHE_HOME": str(tmp_path / "file" / "cache")}
    for _ in range(2):
        done = run_cli("--format", "concise", script, cwd=tmp_path, env=env)
        assert (done.returncode, done.stderr) == (1, "")
        assert done.stdout.startswith(f"{script}:1:8: HL103 [error]")


# -- cache: the fingerprint of the tool covers same-size edits -----------------------------


PKILL = 'ssh h "pkill -f x; y"\n'  # HL103 error at 7..12, whatever else changes


def test_another_version_of_the_tool_has_another_fingerprint(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A release whose files happen to have the same names, sizes and times (an install
    from a wheel keeps the archive's times) is still another tool."""
    from heredoc_lint.run import cache

    before = _fingerprint()
    monkeypatch.setattr(cache, "__version__", heredoc_lint.__version__ + ".post1")
    _fingerprint.cache_clear()
    try:
        assert _fingerprint() != before
    finally:
        _fingerprint.cache_clear()


def test_same_size_edit_of_the_tool_invalidates_the_cache(tmp_path: Path) -> None:
    """A rule edited in place (same size, new mtime) must not reuse the findings cached by
    the old code: the new message shows on the next run."""
    tool = tmp_path / "tool"
    shutil.copytree(
        Path(heredoc_lint.__file__).parent,
        tool / "heredoc_lint",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    rule = tool / "heredoc_lint" / "rules" / "hl103_pkill_self_match.py"
    old, new = "matches the command line", "MATCHES THE COMMAND LINE"
    source = rule.read_text()
    # The message's text in the rule's code, before its examples (which quote it too).
    assert source.index(old) < source.index("INVALID = (") and len(old) == len(new)
    script = tmp_path / "s.sh"
    script.write_text(PKILL)
    # cwd is tmp_path: `python -m` puts it first on sys.path, so the copy is the tool run.
    env = {**os.environ, "PYTHONPATH": str(tool), "PYTHONDONTWRITEBYTECODE": "1"}
    argv = [*CLI, "--cache-dir", str(tmp_path / "c"), str(script)]

    def run() -> str:
        proc = subprocess.run(
            argv, capture_output=True, text=True, env=env, cwd=tmp_path, check=False
        )
        assert proc.returncode == 1, proc.stderr
        return proc.stdout

    assert old in run()
    assert list((tmp_path / "c").glob("findings-*.json"))
    assert old in run()  # warm: from the cache
    size, mtime = rule.stat().st_size, rule.stat().st_mtime_ns
    rule.write_text(source.replace(old, new, 1))
    os.utime(rule, ns=(mtime + 2_000_000_000, mtime + 2_000_000_000))
    assert rule.stat().st_size == size
    assert new in run()
