"""A cache shipped in a checked repository cannot change a result (the CI gate).

The attack: a committed `.heredoc_lint_cache/` whose pack says a bad script is clean.
Each test forges such a pack the way an attacker can (a real run's pack on the same file,
its findings emptied), shows that the forgery works when the secret is known (the
control: so the test would catch a cache that trusts it), and that a run with another
user's secret, through a symbolic link, or in a directory owned by someone else still
reports the bug.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_process import run_cli

BAD = 'ssh h "pkill -f sglang; ./restart"\n'
CACHE = ".heredoc_lint_cache"


def lint(cwd: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return run_cli("--format", "json", *args, cwd=cwd, env={"XDG_CACHE_HOME": str(home)})


def codes(proc: subprocess.CompletedProcess[str]) -> list[str]:
    return [item["code"] for item in json.loads(proc.stdout)]


def forge_clean_pack(repo: Path, home: Path) -> Path:
    """A pack in `repo`'s cache that says bad.sh has no finding, made with `home`'s secret."""
    assert codes(lint(repo, home, "bad.sh")) == ["HL103"]
    (pack,) = (repo / CACHE).glob("findings-*.json")
    entries = json.loads(pack.read_text())
    (name,) = entries
    entries[name][1] = []  # the key stays: only the findings are forged
    pack.write_text(json.dumps(entries))
    return pack


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = tmp_path / "repo"
    path.mkdir()
    (path / "bad.sh").write_text(BAD)
    return path


def test_a_forged_pack_works_only_with_the_secret_it_was_made_with(
    repo: Path, tmp_path: Path
) -> None:
    attacker, victim = tmp_path / "attacker", tmp_path / "victim"
    forge_clean_pack(repo, attacker)
    # Control: with the attacker's own secret the forgery is believed.
    assert codes(lint(repo, attacker, "bad.sh")) == []
    # The CI machine (another secret) checks the file again.
    proc = lint(repo, victim, "bad.sh")
    assert proc.returncode == 1 and codes(proc) == ["HL103"], proc.stderr


def test_the_secret_is_private_to_the_user(repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    forge_clean_pack(repo, home)
    key = home / "heredoc-lint" / "cache-key"
    assert key.stat().st_mode & 0o777 == 0o600
    assert codes(lint(repo, home, "bad.sh")) == []  # control, as above
    key.chmod(0o644)  # a key others can read is not a secret: it is not used
    assert codes(lint(repo, home, "bad.sh")) == ["HL103"]


def test_a_committed_symlink_in_place_of_the_cache_is_not_followed(
    repo: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    forge_clean_pack(repo, home)
    elsewhere = tmp_path / "elsewhere"
    (repo / CACHE).rename(elsewhere)
    victim_file = elsewhere / "findings-0000000000000000.json"
    victim_file.write_text("{}")  # a pack of 'another version': a run would delete it
    (repo / CACHE).symlink_to(elsewhere)
    proc = lint(repo, home, "bad.sh")
    assert codes(proc) == ["HL103"], proc.stderr
    assert victim_file.exists()  # nothing deleted through the link
    assert len(list(elsewhere.glob("findings-*.json"))) == 2  # nothing written there either


def test_a_cache_owned_by_another_user_is_not_used(repo: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    pack = forge_clean_pack(repo, home)
    assert codes(lint(repo, home, "bad.sh")) == []  # control: our own forged pack
    os.chown(repo / CACHE, 65534, 65534)
    assert codes(lint(repo, home, "bad.sh")) == ["HL103"]
    assert json.loads(pack.read_text()) != {}  # and it was not rewritten


def test_a_full_disk_leaves_no_empty_gitignore(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from heredoc_lint.run import cache

    def no_space(*args: object, **kwargs: object) -> object:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache.json, "dumps", no_space)  # the pack cannot be written either
    real_fdopen = os.fdopen

    def full(fd: int, *args: object, **kwargs: object) -> object:
        handle = real_fdopen(fd, *args, **kwargs)  # type: ignore[call-overload]
        handle.write = no_space
        return handle

    monkeypatch.setattr(cache.os, "fdopen", full)
    store = cache.Cache(tmp_path / "c")
    store.put(str(tmp_path / "x.sh"), "k", [])
    (tmp_path / "x.sh").write_text("")
    store.save()
    assert (tmp_path / "c").is_dir()
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == []  # no empty .gitignore


def test_a_new_parser_version_changes_the_fingerprint(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """tree-sitter, tree-sitter-bash, libcst and PyYAML are stamped by their installed
    files (found without importing them): a reinstall replaces them, the stamp changes."""
    from heredoc_lint.run import cache

    assert set(cache._PARSERS) == {"tree_sitter", "tree_sitter_bash", "libcst", "yaml"}
    package = tmp_path / "fakeparser"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "_binding.so").write_bytes(b"v1")
    monkeypatch.syspath_prepend(str(tmp_path))
    before = cache._installed_stamp("fakeparser")
    (package / "_binding.so").write_bytes(b"v2.0")
    assert cache._installed_stamp("fakeparser") != before
    assert "fakeparser" not in sys.modules  # stamped, never imported
    assert cache._installed_stamp("no_such_module_hl") == "absent"
