"""HL201: three origins that are the program's own, found on real code.

- A public function in a private module (`pkg/_internal/...`, `pkg/_impl.py`) is called
  by the project's own code only: its parameter is no evidence of outside text (dstack's
  `_internal` provisioning code, where every caller passes `/root/.dstack`).
- A directory of tests spelt `integration-tests/`, `e2e_tests/`... is test code, as
  `tests/` is (cluster-toolkit's `tools/python-integration-tests/`).
- `SNAP`, `SNAP_DATA`...: snapd sets them for a snap's commands to its own paths
  (microk8s's `bash -c ". {}/actions/common/utils.sh"`).

Each keeps the outside evidence where the same value has it: a public parameter named as a
host stays a warning; argv and the environment are evidence at info
(heredoc_lint/severities.py).
"""

from __future__ import annotations

import pytest

from heredoc_lint.engine import check_text
from heredoc_lint.model import Finding, Severity

# A parameter named as a host: the only parameter of a public function that is a warning by default
# (the shared case remote_py.py), so the private module's info shows against it.
PARAMETER = (
    "import subprocess\n"
    "def cleanup(host):\n"
    '    subprocess.run(f"ssh {host} sudo rm -rf /var/cache/app", shell=True)\n'
)


def hl201(text: str, path: str) -> list[Finding]:
    return [f for f in check_text(text, "python", path) if f.code == "HL201"]


@pytest.mark.parametrize(
    ("path", "severity"),
    [
        ("src/pkg/services/cleanup.py", Severity.WARNING),
        ("src/pkg/_internal/services/cleanup.py", Severity.INFO),
        ("src/pkg/_cleanup.py", Severity.INFO),
        ("_private/cleanup.py", Severity.INFO),
        ("src/pkg/__init__.py", Severity.WARNING),  # the package's own face
        ("src/pkg/__main__.py", Severity.WARNING),
        ("/home/_me/src/pkg/cleanup.py", Severity.WARNING),  # above the checkout
    ],
)
def test_a_parameter_in_a_private_module_is_the_programs_own(path: str, severity: Severity) -> None:
    (found,) = hl201(PARAMETER, path)
    assert found.severity is severity


def test_a_private_module_keeps_outside_evidence() -> None:
    text = PARAMETER + "import sys\ncleanup(sys.argv[1])\n"
    (found,) = hl201(text, "src/pkg/_internal/cleanup.py")
    # argv's evidence, not the private module's; argv is info by default (first look:
    # 4 findings, all debatable)
    assert (found.severity, found.evidence) == (Severity.INFO, "argv")
    assert "sys.argv" in found.message


ENVIRON = (
    "import os, subprocess\n"
    'value = os.environ.get("{name}")\n'
    'subprocess.run(["bash", "-c", ". {{}}/actions/utils.sh; refresh".format(value)])\n'
)


@pytest.mark.parametrize(
    ("name", "evidence"),
    [
        ("SNAP", "no-origin"),
        ("SNAP_DATA", "no-origin"),
        ("SNAP_COMMON", "no-origin"),
        ("SNAPSHOT_DIR", "environment"),  # not snapd's
        ("APP_HOME", "environment"),
    ],
)
def test_snapd_variables_are_the_snaps_own_paths(name: str, evidence: str) -> None:
    (found,) = hl201(ENVIRON.format(name=name), "scripts/wrappers/refresh.py")
    # both are info by default (the environment: 13 findings, all debatable); the
    # evidence tells the snap's own paths from the environment's text
    assert (found.severity, found.evidence) == (Severity.INFO, evidence)


@pytest.mark.parametrize(
    ("path", "severity"),
    [
        ("tools/python-integration-tests/topology.py", Severity.INFO),
        ("integration-tests/topology.py", Severity.INFO),
        ("e2e_tests/topology.py", Severity.INFO),
        ("tests-e2e/topology.py", Severity.INFO),
        ("latest/topology.py", Severity.WARNING),
        ("attestation/topology.py", Severity.WARNING),
        ("/srv/integration-tests/topology.py", Severity.WARNING),  # above the checkout
    ],
)
def test_test_directories_by_their_usual_names(path: str, severity: Severity) -> None:
    (found,) = hl201(PARAMETER, path)
    assert found.severity is severity


MAIN = (
    "import os\n"
    "def {name}(dataset):\n"
    "    os.system('tar -zxvf ./data/{{}}.tar.gz'.format(dataset))\n"
    "if __name__ == '__main__':\n"
    "    {name}('facades')\n"
)


@pytest.mark.parametrize(
    ("name", "evidence"), [("main", "no-origin"), ("extract", "parameter-unknown")]
)
def test_main_called_from_the_main_block_is_the_programs_own_run(name: str, evidence: str) -> None:
    """`main('facades')` under `__main__` is the program's one run, not an example of a
    function other modules import (nni's pix2pix example): its value is the literal.
    `dataset` says nothing of what it holds, so the parameter's evidence is info too: the
    evidence tells them apart."""
    found = hl201(MAIN.format(name=name), "examples/trial.py")
    assert [(f.severity, f.evidence) for f in found] == [(Severity.INFO, evidence)]
