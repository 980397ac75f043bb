"""The pre-commit hooks, run by the real `pre-commit try-repo` on this checkout."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BROKEN = """#!/bin/bash
ssh -p 2022 ops@db-1 "pkill -f pg_dump; cat > /etc/backup.conf << 'EOF'
target=$1
EOF
"
"""
CLEAN = "#!/bin/bash\nssh ops@db-1 'cat > /etc/backup.conf' < backup.conf\n"


@pytest.fixture(scope="module")
def precommit(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    exe = shutil.which("pre-commit")
    if exe is None or shutil.which("git") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("pre-commit and git are needed in CI (pip install pre-commit)")
        pytest.skip("pre-commit or git missing")
    return [exe]


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "broken.sh").write_text(BROKEN)
    (repo / "clean.sh").write_text(CLEAN)
    (repo / "rotate").write_text(BROKEN)  # no suffix: found by its shebang
    for name in ("broken.sh", "clean.sh", "rotate"):
        (repo / name).chmod(0o755)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    return repo


def _try(
    precommit: list[str], repo: Path, hook: str, *files: str, home: Path
) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(home)}
    return subprocess.run(
        [*precommit, "try-repo", str(ROOT), hook, "--files", *files],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )


def test_precommit_round_trip(
    precommit: list[str], tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    home = tmp_path_factory.getbasetemp() / "pre-commit-home"
    repo = _repo(tmp_path)

    failing = _try(precommit, repo, "heredoc-lint", "broken.sh", "rotate", home=home)
    assert failing.returncode == 1, failing.stdout + failing.stderr
    assert "broken.sh:2:" in failing.stdout and "HL103" in failing.stdout
    assert "rotate:2:" in failing.stdout  # the extension-less shebang script was passed too

    passing = _try(precommit, repo, "heredoc-lint", "clean.sh", home=home)
    assert passing.returncode == 0, passing.stdout + passing.stderr

    fixing = _try(precommit, repo, "heredoc-lint-fix", "broken.sh", home=home)
    # pre-commit fails a hook that modified files; the file is fixed on disk.
    assert fixing.returncode == 1
    fixed = (repo / "broken.sh").read_text()
    assert fixed != BROKEN
    assert "base64 -d > /etc/backup.conf" in fixed
    assert "'[p]'g_dump" in fixed
    again = _try(precommit, repo, "heredoc-lint", "broken.sh", home=home)
    assert again.returncode == 0, again.stdout


def _evil_repo(tmp_path: Path) -> Path:
    """A repository that tries to switch the gate off: an empty file named
    `--config=evil.sh` (pre-commit passes it first, the names sort before letters) next to
    an `evil.sh` that is both valid TOML and valid shell, and a script with an error."""
    repo = tmp_path / "evil"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "evil.sh").write_text('ignore = ["HL"]\n')
    (repo / "--config=evil.sh").write_text("")
    (repo / "deploy.sh").write_text('ssh h "pkill -f sglang; ./restart"\n')
    subprocess.run([*git, "add", "--", "."], check=True)
    subprocess.run([*git, "commit", "-qm", "init"], check=True)
    return repo


@pytest.mark.parametrize("hook", ["heredoc-lint", "heredoc-lint-fix"])
def test_a_file_named_like_an_option_cannot_turn_the_hooks_off(
    precommit: list[str],
    tmp_path: Path,
    tmp_path_factory: pytest.TempPathFactory,
    hook: str,
) -> None:
    home = tmp_path_factory.getbasetemp() / "pre-commit-home"
    repo = _evil_repo(tmp_path)
    env = {**os.environ, "PRE_COMMIT_HOME": str(home)}
    done = subprocess.run(
        [*precommit, "try-repo", str(ROOT), hook, "--all-files", "--verbose"],
        cwd=repo,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    if hook == "heredoc-lint":
        assert "deploy.sh:1:8: HL103 [error]" in done.stdout, done.stdout
    else:  # fixed on disk (pre-commit fails a hook that changed files)
        assert "'[s]'glang" in (repo / "deploy.sh").read_text()
