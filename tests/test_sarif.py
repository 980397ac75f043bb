"""`--format sarif`: SARIF 2.1.0, validated against the schema kept in tests/data."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from cli_process import run_cli
from jsonschema import Draft7Validator

from heredoc_lint.engine import check_text
from heredoc_lint.report.lines import LineIndex
from heredoc_lint.report.output import FileReport
from heredoc_lint.report.sarif import render_sarif
from heredoc_lint.rules import RULES

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = json.loads((Path(__file__).parent / "data" / "sarif-schema-2.1.0.json").read_text())
SEED000 = ROOT / "tests" / "cases" / "seed000.sh"
SEED000_ARG = "tests/cases/seed000.sh"  # relative to ROOT, where the CLI runs


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd or ROOT)


def validate(log: dict[str, Any]) -> None:
    validator = Draft7Validator(SCHEMA, format_checker=Draft7Validator.FORMAT_CHECKER)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{list(e.absolute_path)}: {e.message}" for e in errors[:5])
    # `format: uri` needs an extra package in jsonschema: check the URIs here.
    driver = log["runs"][0]["tool"]["driver"]
    assert urlsplit(driver["informationUri"]).scheme in ("http", "https")
    for result in log["runs"][0]["results"]:
        for location in result["locations"]:
            uri = location["physicalLocation"]["artifactLocation"]["uri"]
            assert " " not in uri and urlsplit(uri).scheme in ("", "file")


def sarif(*args: str, cwd: Path | None = None) -> dict[str, Any]:
    result = run("--format", "sarif", *args, cwd=cwd)
    assert result.returncode in (0, 1), result.stderr
    log: dict[str, Any] = json.loads(result.stdout)
    validate(log)
    return log


def test_the_schema_is_a_valid_draft7_schema_naming_its_source() -> None:
    Draft7Validator.check_schema(SCHEMA)
    assert "sarif-schema-2.1.0.json" in SCHEMA["$comment"]
    assert "OASIS" in SCHEMA["$comment"]


def test_the_schema_rejects_what_sarif_forbids() -> None:
    good = sarif(SEED000_ARG)
    validator = Draft7Validator(SCHEMA)
    bad_level = json.loads(json.dumps(good))
    bad_level["runs"][0]["results"][0]["level"] = "fatal"
    bad_region = json.loads(json.dumps(good))
    bad_region["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"][
        "startLine"
    ] = 0
    no_driver = json.loads(json.dumps(good))
    del no_driver["runs"][0]["tool"]["driver"]
    unknown = json.loads(json.dumps(good))
    unknown["runs"][0]["results"][0]["severity"] = "error"
    empty_fix = json.loads(json.dumps(good))
    empty_fix["runs"][0]["results"][1]["fixes"][0]["artifactChanges"] = []
    for log in (bad_level, bad_region, no_driver, unknown, empty_fix):
        assert list(validator.iter_errors(log))


def test_seed000_results_rules_and_regions() -> None:
    log = sarif(SEED000_ARG)
    assert log["version"] == "2.1.0" and len(log["runs"]) == 1
    run_ = log["runs"][0]
    driver = run_["tool"]["driver"]
    assert driver["name"] == "heredoc-lint"
    from heredoc_lint import __version__

    assert driver["version"] == __version__
    assert [r["id"] for r in driver["rules"]] == [r.code for r in RULES]
    for descriptor, rule in zip(driver["rules"], RULES, strict=True):
        assert descriptor["name"] == rule.name
        assert descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["help"]["text"] == rule.doc.strip()
        assert descriptor["fullDescription"]["text"]
        level = {"error": "error", "warning": "warning", "info": "note"}[rule.severity.value]
        assert descriptor["defaultConfiguration"]["level"] == level
    assert run_["columnKind"] == "unicodeCodePoints"
    findings = json.loads(run("--format", "json", SEED000_ARG).stdout)
    results = run_["results"]
    assert len(results) == len(findings) == 7
    for result, finding in zip(results, findings, strict=True):
        assert result["ruleId"] == finding["code"]
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] == finding["severity"]  # error and warning are the same words
        assert result["message"]["text"] == finding["message"]
        (location,) = result["locations"]
        physical = location["physicalLocation"]
        assert physical["artifactLocation"]["uri"] == "tests/cases/seed000.sh"
        region = physical["region"]
        assert (region["startLine"], region["startColumn"]) == (finding["line"], finding["column"])
        assert (region["endLine"], region["endColumn"]) == (
            finding["end_line"],
            finding["end_column"],
        )
    text = SEED000.read_text().splitlines()
    pkill = results[0]["locations"][0]["physicalLocation"]["region"]
    assert results[0]["ruleId"] == "HL103"
    assert text[pkill["startLine"] - 1][pkill["startColumn"] - 1 : pkill["endColumn"] - 1] == (
        "pkill"
    )
    assert pkill["snippet"]["text"] == "pkill"


def offset(index: LineIndex, line: int, column: int) -> int:
    return index.starts[line - 1] + column - 1


def apply_sarif_fix(text: str, fix: dict[str, Any]) -> str:
    index = LineIndex(text)
    (change,) = fix["artifactChanges"]
    spans = []
    for replacement in change["replacements"]:
        region = replacement["deletedRegion"]
        start = offset(index, region["startLine"], region["startColumn"])
        end = offset(index, region["endLine"], region["endColumn"])
        spans.append((start, end, replacement.get("insertedContent", {}).get("text", "")))
    for start, end, content in sorted(spans, reverse=True):
        text = text[:start] + content + text[end:]
    return text


def test_fixes_are_artifact_changes_that_apply_like_the_fixer() -> None:
    text = SEED000.read_text()
    log = sarif(SEED000_ARG)
    results = log["runs"][0]["results"]
    heredoc = next(r for r in results if r["ruleId"] == "HL101")
    (fix,) = heredoc["fixes"]
    assert "base64" in fix["description"]["text"]
    fixed = apply_sarif_fix(text, fix)
    assert "base64 -d > /workspace/dflash/scripts/launch_mtp.sh" in fixed
    assert [f.code for f in check_text(fixed, "shell") if f.code != "HL103"] == []
    # HL103 waits for the heredoc body (which holds `sglang` too) to leave the string.
    assert "fixes" not in next(r for r in results if r["ruleId"] == "HL103")


def test_a_single_line_fix(tmp_path: Path) -> None:
    script = tmp_path / "restart.sh"
    text = "#!/bin/sh\nssh h 'pkill -f sglang; ./start'\n"
    script.write_text(text)
    (result,) = sarif(str(script))["runs"][0]["results"]
    assert result["properties"]["fix"] == {"applicability": "safe", "strategy": "bracket"}
    (fix,) = result["fixes"]
    (change,) = fix["artifactChanges"]
    assert unquote(urlsplit(change["artifactLocation"]["uri"]).path) == str(script)
    assert apply_sarif_fix(text, fix) == text.replace("-f sglang", "-f \\[s]glang")


def test_markdown_and_workflow_results_point_into_the_files() -> None:
    log = sarif("fixtures/docs", "fixtures/.github")
    results = log["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in results}
    assert uris == {"fixtures/docs/runbook.md", "fixtures/.github/workflows/deploy.yml"}
    for result in results:
        physical = result["locations"][0]["physicalLocation"]
        source = (ROOT / physical["artifactLocation"]["uri"]).read_text().splitlines()
        region = physical["region"]
        line = source[region["startLine"] - 1]
        assert line[region["startColumn"] - 1 :].startswith(region["snippet"]["text"])


def test_no_findings_is_a_valid_log_with_empty_results(tmp_path: Path) -> None:
    clean = tmp_path / "ok.sh"
    clean.write_text("ssh h 'cat > f' < local\n")
    log = sarif(str(clean))
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["tool"]["driver"]["rules"]


def test_info_is_note_and_columns_count_code_points(tmp_path: Path) -> None:
    script = tmp_path / "dir with space" / "é.sh"
    script.parent.mkdir()
    line = 'echo "héllo 😀"; ssh h "deploy $version"'
    script.write_text(line + "\n")
    log = sarif("--severity", "info", str(script))
    (result,) = log["runs"][0]["results"]
    assert result["level"] == "note"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert region["startColumn"] == line.index("$version") + 1
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.startswith("file:///") and "%20" in uri
    assert unquote(urlsplit(uri).path) == str(script)


@pytest.mark.parametrize("relative", ["a b/c.sh", "x.sh"])
def test_relative_paths_stay_relative_uri_references(relative: str) -> None:
    report = FileReport(relative, "scp -p 22 f h:\n", tuple(check_text("scp -p 22 f h:\n")))
    log = json.loads(render_sarif([report]))
    validate(log)
    uri = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"][
        "uri"
    ]
    assert unquote(uri) == relative and not urlsplit(uri).scheme


def test_scp_strategy_new_file_is_an_artifact_change() -> None:
    log = sarif("--fix-strategy", "scp", SEED000_ARG)
    heredoc = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "HL101")
    (fix,) = heredoc["fixes"]
    edit, new_file = fix["artifactChanges"]
    assert edit["artifactLocation"]["uri"] == SEED000_ARG
    assert new_file["artifactLocation"]["uri"] == "tests/cases/seed000.sh.d/launch_mtp.sh"
    (replacement,) = new_file["replacements"]
    assert replacement["insertedContent"]["text"].startswith("#!/bin/bash\nexport LD_LIBRARY")
    assert "$1" in replacement["insertedContent"]["text"]
