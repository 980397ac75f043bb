"""What the shell files a script sources define for it (heredoc_lint.project.sourcing): wrapper
functions and literal values of `lib/remote.sh`, used by the script as if written at
its `source` line; bash, with `ssh` a function that prints what it is given, agrees on
the text the remote shell would receive."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_process import run_cli

from heredoc_lint.engine import check_text
from heredoc_lint.project.sourcing import imported

LIBRARY = 'r() { ssh "$HOST" "$@"; }\non() { r "$@"; }\nKILL="pkill -f worker; ./worker"\n'
_PRINTING_SSH = 'ssh() { shift; printf "%s\\n" "$*"; }\n'


def project(tmp_path: Path, script: str, library: str = LIBRARY, at: str = "lib/remote.sh") -> Path:
    (tmp_path / ".git").mkdir(exist_ok=True)
    (tmp_path / at).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / at).write_text(library)
    (tmp_path / "bin").mkdir(exist_ok=True)
    path = tmp_path / "bin" / "deploy.sh"
    path.write_text(script)
    return path


def codes(path: Path) -> list[tuple[str, str]]:
    return [(f.code, f.severity.value) for f in check_text(path.read_text(), "shell", str(path))]


@pytest.mark.parametrize(
    "source",
    [
        '. "$(dirname "$0")/../../lib/remote.sh"',  # above the project's top
        'source "$(dirname "$0")/remote.sh"',  # no such file beside the script
        "source /etc/remote.sh",  # absolute: outside the project
        "source ~/lib/remote.sh",
    ],
)
def test_a_path_not_followed_imports_nothing(tmp_path: Path, source: str) -> None:
    path = project(tmp_path, f"#!/bin/bash\n{source}\non 'pkill -f app; ./app'\n")
    assert imported(str(path), path.read_text()) is None
    assert codes(path) == []


@pytest.mark.parametrize(
    "source",
    [
        'source "$(dirname "$0")/lib/remote.sh"',
        '. "$(dirname "$0")/../lib/remote.sh"',
        '. "${BASH_SOURCE%/*}"/lib/remote.sh',
        'DIR="$(cd "$(dirname "$0")" && pwd)"\n. "$DIR/lib/remote.sh"',
        "[ -f lib/remote.sh ] && . lib/remote.sh",
        "if true; then source lib/remote.sh; fi",
    ],
)
def test_a_wrapper_of_a_sourced_file_is_followed(tmp_path: Path, source: str) -> None:
    """From bin/, the library is found in the directory above (the project's top)."""
    script = f"#!/bin/bash\n{source}\non 'pkill -f app; ./app'\n"
    path = project(tmp_path, script)
    found = [f for f in check_text(script, "shell", str(path)) if f.code == "HL103"]
    assert [f.severity.value for f in found] == ["error"]
    assert found[0].message.endswith(f"(sent by `on` of {tmp_path}/lib/remote.sh line 2 to ssh)")
    assert script[found[0].start : found[0].end] == "pkill"


def test_the_text_is_what_bash_sends(tmp_path: Path) -> None:
    """The remote string the tool reads through two wrappers of the library is the one
    bash gives ssh, `$3` of the awk program expanded (HL102's bug)."""
    script = "#!/bin/bash\nsource lib/remote.sh\non \"df -h | awk '{print $3}'\"\n"
    path = project(tmp_path, script)
    ran = subprocess.run(
        ["bash", "-c", _PRINTING_SSH + f"cd {tmp_path} && source {path}", "x"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert ran.stdout == "df -h | awk '{print }'\n"
    found = [f for f in check_text(script, "shell", str(path)) if f.code == "HL102"]
    assert [f.severity.value for f in found] == ["error"]
    assert script[found[0].start : found[0].end] == "$3"


def test_a_loop_calling_the_wrapper_swallows_its_input(tmp_path: Path) -> None:
    script = '#!/bin/bash\n. lib/remote.sh\nwhile read -r h; do\n  on "uptime"\ndone < hosts\n'
    path = project(tmp_path, script)
    (found,) = [f for f in check_text(script, "shell", str(path)) if f.code == "HL105"]
    assert f"`ssh -n` in the function `on` ({tmp_path}/lib/remote.sh line 2)" in found.message


def test_a_literal_value_of_a_sourced_file_is_the_text_sent(tmp_path: Path) -> None:
    script = '#!/bin/bash\nsource lib/remote.sh\nssh h "$KILL"\n'
    path = project(tmp_path, script)
    assert ("HL103", "error") in codes(path)


@pytest.mark.parametrize(
    "script",
    [
        # Called before the library is sourced: bash has no such function yet.
        "#!/bin/bash\non 'pkill -f app; ./app'\nsource lib/remote.sh\n",
        # Defined again by the script: which one a call reaches is a guess.
        "#!/bin/bash\nsource lib/remote.sh\non() { echo \"$@\"; }\non 'pkill -f app; ./app'\n",
        # Bound again by the script.
        '#!/bin/bash\nsource lib/remote.sh\nread -r KILL\nssh h "$KILL"\n',
    ],
)
def test_a_definition_the_call_may_not_reach_is_not_used(tmp_path: Path, script: str) -> None:
    path = project(tmp_path, script)
    assert ("HL103", "error") not in codes(path)


def test_two_files_defining_one_name_leave_it_out(tmp_path: Path) -> None:
    script = "#!/bin/bash\nsource lib/remote.sh\nsource lib/other.sh\non 'pkill -f a; ./a'\n"
    path = project(tmp_path, script)
    (tmp_path / "lib" / "other.sh").write_text('on() { echo "$@"; }\n')
    found = imported(str(path), script)
    assert found is not None and "on" not in found.definitions.functions
    assert ("HL103", "error") not in codes(path)


def test_a_library_sourced_by_a_library_is_followed(tmp_path: Path) -> None:
    path = project(tmp_path, "#!/bin/bash\nsource lib/all.sh\non 'pkill -f a; ./a'\n")
    (tmp_path / "lib" / "all.sh").write_text('. "$(dirname "${BASH_SOURCE[0]}")/remote.sh"\n')
    assert ("HL103", "error") in codes(path)


def test_a_file_sourcing_itself_ends(tmp_path: Path) -> None:
    path = project(
        tmp_path, "#!/bin/bash\nsource lib/remote.sh\n", library="source lib/remote.sh\n"
    )
    found = imported(str(path), path.read_text())
    assert found is not None and not found.definitions.functions


def test_editing_the_library_rechecks_the_script(tmp_path: Path) -> None:
    path = project(tmp_path, "#!/bin/bash\nsource lib/remote.sh\non 'pkill -f app; ./app'\n")
    cache = str(tmp_path / "cache")

    def found() -> list[str]:
        ran = run_cli("--format", "json", "--cache-dir", cache, path)
        return [f["code"] for f in json.loads(ran.stdout)]

    assert found() == ["HL103"]
    (tmp_path / "lib" / "remote.sh").write_text('on() { echo "$@"; }\n')
    assert found() == []
