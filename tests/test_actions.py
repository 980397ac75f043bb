"""GitHub Actions workflows: which steps are shell, YAML scalars mapped back to the file."""

from __future__ import annotations

import base64
import itertools
import json
import random
import re
from pathlib import Path

import pytest
import yaml
from cli_process import run_cli

from heredoc_lint.engine import check_text, fix_kind
from heredoc_lint.frontends.actions import SCRIPT_PATH, fragments, placeholders
from heredoc_lint.report.lines import LineIndex

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = ROOT / "fixtures" / ".github" / "workflows"


def positions(text: str, min_rank: int = 1) -> list[tuple[int, int, str]]:
    index = LineIndex(text)
    return [
        (*index.position(f.start), f.code)
        for f in check_text(text, "actions", "w.yml")
        if f.severity.rank >= min_rank
    ]


def where(text: str, needle: str, after: str = "") -> tuple[int, int]:
    offset = text.index(needle, text.index(after) if after else 0)
    return LineIndex(text).position(offset)


def workflow(step: str, job_extra: str = "", top: str = "") -> str:
    return (
        f"name: t\non: push\n{top}jobs:\n  j:\n    runs-on: ubuntu-latest\n{job_extra}"
        f"    steps:\n      - uses: actions/checkout@v4\n{step}"
    )


def test_deploy_fixture_findings_at_exact_file_positions() -> None:
    text = (WORKFLOWS / "deploy.yml").read_text()
    assert set(positions(text)) == {
        (*where(text, "pkill -f 'celery"), "HL103"),
        (*where(text, "<< 'EOF'"), "HL101"),
        (*where(text, "$1 --port"), "HL102"),
        (*where(text, "$2\n"), "HL102"),
        (*where(text, "-p 2222"), "HL108"),
    }


def test_clean_steps_have_no_findings() -> None:
    text = (WORKFLOWS / "deploy.yml").read_text()
    clean_from = LineIndex(text).position(text.index("# Clean: data"))[0]
    assert all(line < clean_from for line, _, _ in positions(text))
    assert positions((WORKFLOWS / "ci.yml").read_text()) == []


def test_only_bash_and_sh_steps_are_read() -> None:
    text = (WORKFLOWS / "deploy.yml").read_text()
    runs = [f.text for f in fragments(text)]
    assert len(runs) == 4
    assert not any("import subprocess" in r for r in runs)  # shell: python
    assert not any("echo done" in r for r in runs)  # windows-latest: pwsh


@pytest.mark.parametrize(
    ("job_extra", "top", "step_shell", "expected"),
    [
        ("", "", "", f"bash -e {SCRIPT_PATH}"),
        ("", "", "        shell: bash\n", f"bash --noprofile --norc -eo pipefail {SCRIPT_PATH}"),
        ("", "", "        shell: sh\n", f"sh -e {SCRIPT_PATH}"),
        ("", "", "        shell: bash -x {0}\n", f"bash -x {SCRIPT_PATH}"),
        ("", "", "        shell: /usr/bin/zsh {0}\n", f"/usr/bin/zsh {SCRIPT_PATH}"),
        ("    defaults:\n      run:\n        shell: sh\n", "", "", f"sh -e {SCRIPT_PATH}"),
        ("", "defaults:\n  run:\n    shell: sh\n", "", f"sh -e {SCRIPT_PATH}"),
        (
            "    defaults:\n      run:\n        shell: bash\n",
            "defaults:\n  run:\n    shell: pwsh\n",
            "",
            f"bash --noprofile --norc -eo pipefail {SCRIPT_PATH}",
        ),
        ("", "defaults:\n  run:\n    shell: pwsh\n", "", None),
        ("", "", "        shell: pwsh\n", None),
        ("", "", "        shell: python\n", None),
        ("", "", "        shell: cmd\n", None),
        ("", "", "        shell: perl {0}\n", None),
        ("", "", "        shell: ${{ matrix.shell }}\n", None),
        ("", "defaults:\n  run:\n    shell: sh\n", "        shell: powershell\n", None),
    ],
)
def test_shell_resolution(job_extra: str, top: str, step_shell: str, expected: str | None) -> None:
    text = workflow("      - run: scp -p 22 f h:/x\n" + step_shell, job_extra, top)
    found = fragments(text)
    if expected is None:
        assert found == []
        assert positions(text) == []
    else:
        (fragment,) = found
        assert fragment.cmdline == expected
        assert positions(text) == [(*where(text, "-p 22"), "HL108")]


def test_windows_runner_defaults_to_pwsh() -> None:
    step = "      - run: scp -p 22 f h:/x\n"
    windows = workflow(step).replace("ubuntu-latest", "windows-2022")
    assert fragments(windows) == []
    explicit = workflow(step + "        shell: bash\n").replace("ubuntu-latest", "windows-2022")
    assert len(fragments(explicit)) == 1
    matrix = workflow(step).replace("ubuntu-latest", "${{ matrix.os }}")
    assert len(fragments(matrix)) == 1


NL = "\n          "  # a line break and the indentation of a step's block scalar
SCP = "scp -p 22 f h:/x"
STYLES = {
    "literal": f"      - run: |{NL}echo start{NL}{SCP}{NL}echo end\n",
    "literal-strip": f"      - run: |-{NL}echo start{NL}{SCP}\n",
    "literal-keep": f"      - run: |+{NL}echo start{NL}{SCP}\n\n\n",
    "literal-indicator": f"      - run: |4{NL}  echo start{NL}  {SCP}\n",
    "literal-comment": f"      - run: |  # the script{NL}echo{NL}{SCP}\n",
    "folded": f"      - run: >{NL}echo start &&{NL}{SCP}\n",
    "folded-more": f"      - run: >-{NL}echo start\n{NL}  more{NL}{SCP}\n",
    "plain": f"      - run: {SCP}\n",
    "plain-multiline": f"      - run: echo start &&{NL}{SCP}\n",
    "single": f"      - run: 'echo ''start'' && {SCP}'\n",
    "single-multiline": f"      - run: 'echo start &&\n{NL}{SCP}'\n",
    "double": f'      - run: "echo \\"start\\" \\t&& {SCP}"\n',
    "double-escaped-break": f'      - run: "echo start &&\\{NL}\\ {SCP}"\n',
    "flow-mapping": f"      - {{name: x, run: {SCP}}}\n",
    "crlf": f"      - run: |\r{NL}echo start\r{NL}{SCP}\r\n",
}


@pytest.mark.parametrize("style", sorted(STYLES))
def test_scalar_styles_decode_like_yaml_and_map_back(style: str) -> None:
    text = workflow(STYLES[style])
    if style == "crlf":
        text = text.replace("\n", "\r\n").replace("\r\r\n", "\r\n")
    (fragment,) = fragments(text)
    value = yaml.safe_load(text)["jobs"]["j"]["steps"][1]["run"]
    assert fragment.text == value
    assert fragment.offsets is not None
    anchor = fragment.text.index("-p 22")
    assert text[fragment.offsets[anchor] : fragment.offsets[anchor] + 5] == "-p 22"
    assert positions(text) == [(*where(text, "-p 22"), "HL108")]


@pytest.mark.parametrize("style", sorted(STYLES))
def test_scalar_styles_fix_round_trip(style: str) -> None:
    text = workflow(STYLES[style])
    fixed = fix_kind(text, "actions").text
    assert positions(fixed) == []
    before = yaml.safe_load(text)["jobs"]["j"]["steps"][1]["run"]
    after = yaml.safe_load(fixed)["jobs"]["j"]["steps"][1]["run"]
    assert after == before.replace("-p 22", "-P 22")


def test_block_scalar_values_agree_with_pyyaml_on_many_shapes() -> None:
    rng = random.Random(7)
    words = ["echo", "'q'", '"d"', "$x", "\\", "#", "x#y", "${{ a.b }}", "ü", "a:b", "-", "''"]
    headers = ["|", "|-", "|+", ">", ">-", ">+", "|2", ">2", "|  # c"]
    checked = 0
    for header, blank, extra in itertools.product(headers, (0, 1), ("", "\n", "\n\n")):
        for _ in range(8):
            lines = []
            for _ in range(rng.randint(1, 5)):
                line = " ".join(rng.choice(words) for _ in range(rng.randint(1, 4)))
                indent = " " * rng.choice((10, 10, 10, 12))
                lines.append("" if blank and rng.random() < 0.3 else indent + line)
            text = workflow(f"      - run: {header}\n" + "\n".join(lines) + extra + "\n")
            try:
                value = yaml.safe_load(text)["jobs"]["j"]["steps"][1]["run"]
            except yaml.YAMLError:
                continue
            if not isinstance(value, str) or not value.strip():
                continue
            (fragment,) = fragments(text)
            assert fragment.text == placeholders(value)[0], (header, lines)
            assert fragment.offsets is not None
            for char, offset in zip(fragment.text, fragment.offsets, strict=False):
                if char not in " \n$_{}":
                    assert text[offset] == char
            checked += 1
    assert checked > 200


def test_expressions_are_opaque_same_length_words() -> None:
    text = workflow(
        "      - run: |\n"
        "          pkill -f ${{ inputs.pattern }}; echo ${{ format('{0}}}', github.sha) }}\n"
        "          scp -p 22 f ${{ secrets.HOST }}:\n"
    )
    (fragment,) = fragments(text)
    value = yaml.safe_load(text)["jobs"]["j"]["steps"][1]["run"]
    assert len(fragment.text) == len(value)
    assert re.findall(r"\$\{\w+\}", fragment.text) == [
        "${__inputs_pattern__}",
        "${__format___0______github_sha___}",
        "${__secrets_HOST__}",
    ]
    assert [value[a:b] for a, b in fragment.interpolations] == [
        "${{ inputs.pattern }}",
        "${{ format('{0}}}', github.sha) }}",
        "${{ secrets.HOST }}",
    ]
    # A pattern known only at run time is not checked; the rest still is, in place.
    assert positions(text) == [(*where(text, "-p 22"), "HL108")]


def test_fixes_never_rewrite_an_expression() -> None:
    text = workflow(
        "      - run: |\n"
        "          ssh h \"cat > /etc/app.conf << 'EOF'\n"
        "          rev=${{ github.sha }}\n"
        "          EOF\n"
        '          echo ok"\n'
    )
    fixed = fix_kind(text, "actions").text
    assert "${{ github.sha }}" in fixed
    assert yaml.safe_load(fixed) == yaml.safe_load(text)


def test_deploy_fixture_fix_round_trip() -> None:
    text = (WORKFLOWS / "deploy.yml").read_text()
    outcome = fix_kind(text, "actions", str(WORKFLOWS / "deploy.yml"))
    assert outcome.error is None
    assert [f.code for f in outcome.remaining if f.severity.rank >= 1] == []
    fixed = outcome.text
    assert positions(fixed) == []
    assert fix_kind(fixed, "actions").text == fixed
    steps = yaml.safe_load(fixed)["jobs"]["deploy"]["steps"]
    old_steps = yaml.safe_load(text)["jobs"]["deploy"]["steps"]
    assert steps[1]["run"] == old_steps[1]["run"].replace("'celery", "'[c]elery")
    encoded = re.search(r"printf %s (\S+) \| base64 -d > /srv/app/launch.sh\n", steps[2]["run"])
    assert encoded is not None
    assert base64.b64decode(encoded.group(1)).decode() == (
        "#!/bin/bash\nexec /srv/app/bin/server --workers $1 --port $2\n"
    )
    assert steps[2]["run"].endswith('\nchmod +x /srv/app/launch.sh"\n')
    assert steps[3]["run"] == old_steps[3]["run"].replace("-p 2222", "-P 2222")
    assert steps[4:] == old_steps[4:]


def test_invalid_yaml_is_a_parse_error_finding() -> None:
    text = "jobs:\n  j:\n    steps:\n      - run: 'unterminated\n"
    (finding,) = check_text(text, "actions", "w.yml")
    assert finding.code == "HL001"
    assert "YAML" in finding.message


def test_cli_finds_workflows_under_dot_github(tmp_path: Path) -> None:
    workflows = tmp_path / ".github" / "workflows"
    workflows.mkdir(parents=True)
    text = workflow("      - run: scp -p 22 f h:/x\n")
    (workflows / "w.yml").write_text(text)
    (tmp_path / "other.yml").write_text(workflow("      - run: scp -p 22 f h:/x\n"))
    result = run_cli("--format", "json", tmp_path)
    assert result.returncode == 1, result.stderr
    (item,) = json.loads(result.stdout)
    assert Path(item["path"]).name == "w.yml"
    assert (item["code"], item["line"], item["column"]) == ("HL108", *where(text, "-p 22"))


def test_expressions_are_not_reported_as_local_expansions() -> None:
    text = workflow(
        "      - run: |\n"
        "          ssh h \"cat > /etc/app.conf << 'EOF'\n"
        "          rev=${{ github.sha }}\n"
        "          EOF\n"
        '          echo ${{ matrix.flavour }}"\n'
    )
    assert [f.code for f in check_text(text, "actions", "w.yml") if f.code == "HL102"] == []


def test_anchors_aliases_tags_and_several_documents() -> None:
    text = (
        "jobs:\n  j:\n    runs-on: ubuntu-latest\n    steps:\n"
        "      - run: &script |\n          scp -p 22 f h:/x\n"
        "      - run: *script\n"
        "      - run: !!str |\n          scp -p 23 f h:/x\n"
        "      - run: &plain scp -p 24 f h:/x\n"
        "---\njobs:\n  k:\n    steps:\n      - run: scp -p 25 f h:/x\n"
    )
    assert positions(text) == [
        (*where(text, "-p 22"), "HL108"),  # once, though the alias runs it twice
        (*where(text, "-p 23"), "HL108"),
        (*where(text, "-p 24"), "HL108"),
        (*where(text, "-p 25"), "HL108"),
    ]
    assert all(f.verbatim for f in fragments(text))


@pytest.mark.parametrize(
    ("condition", "checked"),
    [
        ("${{ contains(matrix.runs_on, 'windows') }}", False),
        ("runner.os == 'Windows'", False),
        ("${{ startsWith(matrix.os, 'windows') }}", False),
        ("runner.os != 'Windows'", True),  # negated: bash on Linux
        ("${{ !contains(matrix.os, 'windows') }}", True),
        ("runner.os == 'Windows' || inputs.force", True),  # combined: not read
        ("github.event_name == 'push'", True),
    ],
)
def test_a_step_run_only_on_windows_is_powershell(condition: str, checked: bool) -> None:
    """On a Windows runner the default shell is pwsh: a step whose `if:` runs it only there
    is PowerShell, not bash (the precision corpus's pwsh-step pattern)."""
    step = f'      - if: {condition}\n        run: |\n          ssh $env:H -v echo "a; b"\n'
    text = workflow(step, top="").replace("runs-on: ubuntu-latest", "runs-on: ${{ matrix.os }}")
    assert bool(fragments(text)) is checked
