"""Markdown runbooks: fenced shell blocks, console prompts, exact file positions, fixes."""

from __future__ import annotations

import base64
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from cli_process import CLI

from heredoc_lint.engine import check_text, fix_kind
from heredoc_lint.frontends.markdown import fragments, needs_more
from heredoc_lint.report.lines import LineIndex

ROOT = Path(__file__).resolve().parent.parent
RUNBOOK = ROOT / "fixtures" / "docs" / "runbook.md"


def positions(text: str, path: str = "doc.md") -> list[tuple[int, int, str]]:
    """(line, column, code) of every finding at warning or above."""
    index = LineIndex(text)
    return [
        (*index.position(f.start), f.code)
        for f in check_text(text, "markdown", path)
        if f.severity.rank >= 1
    ]


def where(text: str, needle: str, after: str = "", occurrence: int = 0) -> tuple[int, int]:
    """1-based (line, column) of `needle` in `text`, searching from `after`."""
    offset = text.index(after) if after else 0
    for _ in range(occurrence + 1):
        offset = text.index(needle, offset)
        found = offset
        offset += 1
    return LineIndex(text).position(found)


def test_runbook_findings_at_exact_file_positions() -> None:
    text = RUNBOOK.read_text()
    expected = {
        (*where(text, "pkill -9 -f sglang"), "HL103"),
        (*where(text, "<< 'EOF'"), "HL101"),
        (*where(text, "$1", after="export CUDA"), "HL102"),
        (*where(text, "$2", after="--port $2"), "HL102"),
        (*where(text, "-p 19248 root@gpu-1:"), "HL108"),
    }
    assert set(positions(text, str(RUNBOOK))) == expected


def test_runbook_clean_and_non_shell_blocks_have_no_findings() -> None:
    text = RUNBOOK.read_text()
    clean_from = LineIndex(text).position(text.index("## Safe forms"))[0]
    assert all(line < clean_from for line, _, _ in positions(text, str(RUNBOOK)))
    everything = check_text(text, "markdown", str(RUNBOOK))
    index = LineIndex(text)
    assert not [f for f in everything if index.position(f.start)[0] >= clean_from]


def test_python_and_text_fences_mentioning_ssh_are_ignored() -> None:
    text = (
        "```python\nsubprocess.run(\"ssh h 'pkill -f x; true'\", shell=True)\n```\n"
        '```text\nssh h "pkill -f x; echo $1"\n```\n'
        '```\nssh h "pkill -f x; echo $1"\n```\n'
    )
    assert fragments(text) == []
    assert check_text(text, "markdown") == []


@pytest.mark.parametrize(
    "opening",
    [
        "```bash",
        "```sh",
        "```shell",
        "```zsh",
        "~~~bash",
        "````bash",
        "``` bash title=x",
        "```Bash",
    ],
)
def test_fence_tags(opening: str) -> None:
    closing = opening.split()[0].rstrip("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
    text = f"intro\n\n{opening}\nssh h 'pkill -f app; echo done'\n{closing}\n"
    assert positions(text) == [(*where(text, "pkill"), "HL103")]


@pytest.mark.parametrize(
    ("shebang", "shell"),
    [
        ("#!/bin/bash", "bash"),
        ("#!/usr/bin/env bash", "bash"),
        ("#!/bin/sh", "bash"),  # as a `sh` fence is: the reader pastes it into bash
        ("#! /usr/bin/env zsh", "zsh"),
        ("#!/bin/dash", "bash"),
    ],
)
def test_a_fence_with_no_language_holding_a_script_is_shell(shebang: str, shell: str) -> None:
    for fence in ("```", "~~~"):
        text = f"A script:\n\n{fence}\n{shebang}\nssh h 'pkill -f app; echo done'\n{fence}\n"
        assert positions(text) == [(*where(text, "pkill"), "HL103")]
        assert [f.shell for f in fragments(text)] == [shell]


@pytest.mark.parametrize(
    "first",
    ["#!/usr/bin/env python3", "# !/bin/bash", "#!/bin/bashful", "", "echo start"],
)
def test_a_fence_with_no_language_and_no_shell_shebang_is_not_read(first: str) -> None:
    text = f"```\n{first}\nssh h 'pkill -f app; echo done'\n```\n"
    assert fragments(text) == []


def test_pandoc_attribute_info_string() -> None:
    text = "```{.bash .numberLines}\nscp -p 22 f h:\n```\n"
    assert positions(text) == [(*where(text, "-p"), "HL108")]


def test_a_longer_fence_holds_shorter_fence_lines_and_unclosed_runs_to_the_end() -> None:
    text = "````bash\necho '\n```\n'\nscp -p 22 f h:\n````\n\n```sh\nscp -p 23 f h:\n"
    (first, second) = fragments(text)
    assert first.text == "echo '\n```\n'\nscp -p 22 f h:\n"
    assert second.text == "scp -p 23 f h:\n"
    assert positions(text) == [
        (*where(text, "-p 22"), "HL108"),
        (*where(text, "-p 23"), "HL108"),
    ]


def test_indented_fence_in_a_list_and_in_a_blockquote() -> None:
    text = (
        "1. step\n\n"
        "   ```bash\n"
        "   ssh h \"cat > f << 'EOF'\n"
        "   x=$1\n"
        '   EOF"\n'
        "   ```\n\n"
        "> ```sh\n"
        "> scp -p 22 f h:\n"
        "> ```\n"
    )
    fragment = fragments(text)[0]
    assert fragment.text == "ssh h \"cat > f << 'EOF'\nx=$1\nEOF\"\n"
    assert fragments(text)[1].text == "scp -p 22 f h:\n"
    assert positions(text) == [
        (*where(text, "<<"), "HL101"),
        (*where(text, "$1"), "HL102"),
        (*where(text, "-p 22"), "HL108"),
    ]


def test_every_character_maps_to_the_same_file_character() -> None:
    text = RUNBOOK.read_text()
    found = fragments(text, str(RUNBOOK))
    assert len(found) == 6  # bash, sh, console, bash, shell, console
    for fragment in found:
        assert fragment.offsets is not None and fragment.cmdline == "-bash"
        assert fragment.depth == 0 and fragment.verbatim
        assert all(text[o] == c for c, o in zip(fragment.text, fragment.offsets, strict=False))
        assert list(fragment.offsets) == sorted(fragment.offsets)


def test_console_prompts_are_stripped_and_output_is_skipped() -> None:
    text = (
        "```console\n"
        "$ ssh h 'ls -l /w'\n"
        "-rw-r--r-- 1 root root 0 launch.sh\n"
        "$ scp -p 22 a \\\n"
        "    h:/w\n"
        "a   100%\n"
        "$ ssh h \"cat > f << 'EOF'\n"
        "x=$1\n"
        'EOF"\n'
        "# a root prompt is a comment, never a command: pkill -f x; echo\n"
        "pkill -f sglang; echo output\n"
        "$\n"
        "```\n"
    )
    (fragment,) = fragments(text)
    assert fragment.text == (
        "ssh h 'ls -l /w'\nscp -p 22 a \\\n    h:/w\nssh h \"cat > f << 'EOF'\nx=$1\nEOF\"\n"
    )
    assert positions(text) == [
        (*where(text, "-p 22"), "HL108"),
        (*where(text, "<<"), "HL101"),
        (*where(text, "$1"), "HL102"),
    ]


def test_console_continuation_prompts() -> None:
    text = (
        "```console\n"
        "$ for h in a b; do\n"
        ">   ssh $h 'pkill -f worker; echo'\n"
        "> done\n"
        "a: done\n"
        '$ ssh h "echo one &&\n'
        '> scp -p 22 f h:"\n'
        "```\n"
    )
    (fragment,) = fragments(text)
    assert fragment.text == (
        "for h in a b; do\n  ssh $h 'pkill -f worker; echo'\ndone\n"
        'ssh h "echo one &&\nscp -p 22 f h:"\n'
    )
    assert positions(text) == [(*where(text, "pkill"), "HL103"), (*where(text, "-p 22"), "HL108")]


def test_a_block_with_no_language_that_starts_with_sudo_is_bash() -> None:
    text = (
        "Add the repository:\n"
        "```\n"
        "# as your own user\n"
        "sudo cat > /etc/yum.repos.d/x.repo << EOF\n"
        "[x]\n"
        "EOF\n"
        "```\n"
    )
    (fragment,) = fragments(text)
    assert fragment.text == text.split("```\n")[1]
    assert positions(text) == [(*where(text, "> /etc"), "HL109")]


def test_a_stand_in_path_is_the_readers_to_pick() -> None:
    # A cheat sheet: whether the reader may write /path/to/file is theirs to know.
    text = "```\nsudo iptables-save > /path/to/file\n\tSave current rules\n```\n"
    assert [code for *_, code in positions(text)] == []
    assert [code for *_, code in positions(text.replace("/path/to", "/etc"))] == ["HL109"]


@pytest.mark.parametrize(
    "block",
    [
        "```\nsudoers: ALL\nsudo > f\n```\n",  # the first line is no sudo command
        "```\nUSER ALL=(ALL) NOPASSWD: ALL\n```\n",
        "```text\nsudo echo x > /etc/f\n```\n",  # another language
    ],
)
def test_other_blocks_with_no_language_are_not_read(block: str) -> None:
    assert fragments(block) == []


def test_lines_set_under_the_command_lose_the_prompts_width() -> None:
    # The heredoc's body and terminator line up with the command, past `$ `: layout.
    text = (
        "    $ cat <<EOF | sudo tee /etc/network/interfaces\n"
        "      auto br0\n"
        "        bridge_ports ${IF}\n"
        "      EOF\n"
        "    $ sudo reboot\n"
    )
    (fragment,) = fragments(text)
    assert fragment.text == (
        "cat <<EOF | sudo tee /etc/network/interfaces\nauto br0\n  bridge_ports ${IF}\n"
        "EOF\nsudo reboot\n"
    )
    assert positions(text) == []


def test_a_terminator_indented_past_a_body_that_is_not_stays_indented() -> None:
    text = "```console\n$ cat <<EOF > f\nx\n  EOF\n$ reboot\n```\n"
    assert [code for *_, code in positions(text)] == ["HL112"]


@pytest.mark.parametrize(
    ("command", "more"),
    [
        ("echo a", False),
        ("echo a \\", True),
        ("echo a \\\\", False),
        ("echo 'a", True),
        ('echo "a', True),
        ('echo "a\nb"', False),
        ("echo $(date", True),
        ("echo `date", True),
        ("cat << 'EOF'\nx", True),
        ("cat << 'EOF'\nx\nEOF", False),
        ("a |", True),
        ("a &&", True),
        ("echo '#' # it's", False),
        ("echo $'it\\'s", True),
    ],
)
def test_needs_more(command: str, more: bool) -> None:
    assert needs_more(command) is more


def test_fix_round_trip_keeps_indentation_and_delivers_the_intended_body(tmp_path: Path) -> None:
    text = RUNBOOK.read_text()
    outcome = fix_kind(text, "markdown", str(RUNBOOK))
    assert outcome.error is None and outcome.remaining == ()
    fixed = outcome.text
    assert positions(fixed, str(RUNBOOK)) == []
    assert fix_kind(fixed, "markdown", str(RUNBOOK)).text == fixed  # idempotent
    # Only the broken blocks changed; the clean half is byte for byte the same.
    marker = "## Safe forms"
    assert fixed[fixed.index(marker) :] == text[text.index(marker) :]
    line = next(x for x in fixed.splitlines() if "base64 -d" in x)
    assert line.startswith('   ssh root@gpu-1 "printf %s ')
    encoded = re.search(r"printf %s (\S+) ", line)
    assert encoded is not None
    assert base64.b64decode(encoded.group(1)).decode() == (
        "#!/bin/bash\nexport CUDA_VISIBLE_DEVICES=$1\n"
        "exec python3 -m sglang.launch_server --port $2\n"
    )
    assert '\n   chmod +x /w/launch.sh"\n   ```\n' in fixed
    assert "$ scp -P 19248 root@gpu-1:/w/launch.sh \\\n" in fixed
    assert "pkill -9 -f '[s]'glang" in fixed


def test_fix_inside_a_blockquote_and_crlf() -> None:
    text = "> ```bash\n> ssh h \"cat > f << 'EOF'\n> x\n> EOF\n> echo\"\n> ```\n"
    crlf = text.replace("\n", "\r\n")
    for source in (text, crlf):
        assert positions(source) == [(*where(source, "<<"), "HL101")]
        fixed = fix_kind(source, "markdown").text
        assert fixed == source.replace(
            "cat > f << 'EOF'\r\n> x\r\n> EOF\r\n> echo"
            if "\r" in source
            else "cat > f << 'EOF'\n> x\n> EOF\n> echo",
            "printf %s eAo= | base64 -d > f" + ("\r\n> echo" if "\r" in source else "\n> echo"),
        )


def test_console_fixes_never_touch_prompts_or_output() -> None:
    text = "```console\n$ ssh h 'pkill -f sglang; echo'\nout\n> not a prompt here\n```\n"
    fixed = fix_kind(text, "markdown").text
    assert fixed == text.replace("-f sglang", "-f \\[s]glang")


def test_cli_reads_markdown_files(tmp_path: Path) -> None:
    doc = tmp_path / "notes.md"
    doc.write_text("# x\n\n```sh\nssh h 'pkill -f app; echo'\n```\n")
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    result = subprocess.run(
        [*CLI, "--format", "json", str(tmp_path)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert result.returncode == 1, result.stderr
    (item,) = json.loads(result.stdout)
    assert (item["code"], item["line"], item["column"]) == ("HL103", 4, 8)


@pytest.mark.parametrize("strategy", ["split", "stdin"])
def test_fixes_that_rewrite_the_outer_command_stay_inside_the_block(strategy: str) -> None:
    from heredoc_lint.engine import Settings

    head = "# Notes\n\nSome text.\n\n```bash\n"
    if strategy == "split":
        command = "ssh h 'pkill -f sglang; echo sglang'\n"
        outcome = fix_kind(head + command + "```\n", "markdown", "doc.md", unsafe=True)
        fixed = fix_kind(command, "shell", "doc.sh", unsafe=True).text
    else:
        command = "ssh h \"cat > /x << 'EOF'\nhello\nEOF\necho\"\n"
        settings = Settings(fix_strategy=strategy)
        outcome = fix_kind(head + command + "```\n", "markdown", "doc.md", settings)
        fixed = fix_kind(command, "shell", "doc.sh", settings).text
    assert fixed != command
    assert outcome.text == head + fixed + "```\n"


def test_every_block_character_comes_from_its_file_character() -> None:
    """On generated documents (lists, nested lists, blockquotes, tabs, CRLF, unclosed
    fences, under-indented lines), each fragment is the parser's block content, and each
    of its characters is the file's character at its offset (a line break is the file's
    `\n`; a space the parser made of a tab stands on that tab)."""
    from markdown_it import MarkdownIt

    parser = MarkdownIt("commonmark")
    rng = random.Random(3)
    pieces = ["echo a", "  indented", "", "ssh h 'x'", "```", "~~~", "````", "> quoted"]
    pieces += ["- item", "\tx=1", "echo \0nul"]

    def document() -> str:
        out = []
        for _ in range(rng.randint(1, 4)):
            kind = rng.choice(["para", "fence", "list", "quote", "item", "nested", "tab"])
            if kind == "para":
                out.append("Some text.\n")
                continue
            fence = rng.choice(["```", "~~~", "````"])
            tag = rng.choice(["bash", "sh", "python", ""])
            body = [rng.choice(pieces) for _ in range(rng.randint(0, 4))]
            closed = rng.random() < 0.9
            if kind == "fence":
                pad = " " * rng.randint(0, 3)
                lines = [pad + fence + tag]
                lines += [pad[: rng.randint(0, len(pad))] + b for b in body]
                lines += [pad + fence] if closed else []
            elif kind == "list":
                lines = ["1. step", "", "   " + fence + tag]
                lines += ["   " + b if b else "" for b in body]
                lines += ["   " + fence] if closed else []
            elif kind == "item":
                lines = ["- " + fence + tag] + ["  " + b if b else "" for b in body]
                lines += ["  " + fence] if closed else []
            elif kind == "nested":
                lines = ["1. step", "   - sub", "", "     " + fence + tag]
                lines += ["     " + b if b else "" for b in body]
                lines += ["     " + fence] if closed else []
            elif kind == "tab":
                lines = ["- x", "", "\t" + fence + tag] + ["\t " + b for b in body]
                lines += ["\t" + fence] if closed else []
            else:
                lines = ["> " + fence + tag] + ["> " + b for b in body]
                lines += ["> " + fence] if closed else []
            out.append("\n".join(lines) + "\n\n")
        return "".join(out)

    checked = 0
    for k in range(3000):
        text = document()
        if k % 3 == 0:
            text = text.replace("\n", "\r\n")
        tokens = [token for token in parser.parse(text) if token.type == "fence"]
        if any(re.search(r"(?m)^ {0,3}(`{3,}|~{3,})\w", t.content) for t in tokens):
            continue  # cut where the author meant a closing fence (tested above)
        expected = [
            token.content.replace("\0", "\ufffd")
            for token in tokens
            if token.info.split()[:1] in (["bash"], ["sh"])
        ]
        found = fragments(text)
        assert [f.text.replace("\0", "\ufffd") for f in found] == [e for e in expected if e]
        for fragment in found:
            assert fragment.offsets is not None
            for c, offset in zip(fragment.text, fragment.offsets, strict=False):
                assert text[offset] == c or (c == " " and text[offset] == "\t"), text
                checked += 1
            assert list(fragment.offsets) == sorted(fragment.offsets)
    assert checked > 10_000


# -- fences as CommonMark finds them ---------------------------------------------------


def test_a_fence_indented_past_its_list_items_content_is_paragraph_text() -> None:
    text = (
        "- Create a builder:\n"
        "       ```shell\n"  # 7 spaces: past the item's content (column 2) by 5
        "       ssh h 'pkill -f app; echo'\n"
        "       ```\n"
        "- Then restart:\n"
        "  ```shell\n"
        "  ssh h 'pkill -f web; echo'\n"
        "  ```\n"
    )
    assert [f.text for f in fragments(text)] == ["ssh h 'pkill -f web; echo'\n"]
    assert positions(text) == [(*where(text, "pkill -f web"), "HL103")]


def test_a_fence_in_a_nested_list_ends_with_the_sub_item() -> None:
    text = (
        "1. step\n"
        "   - sub\n"
        "\n"
        "     ```bash\n"
        "     scp -p 22 f h:\n"
        "   ```\n"  # less indented than the sub item: ends it, and opens a fence of step 1
        "   ssh h 'pkill -f inside; echo'\n"
        "\n"
        "Text.\n"
        "\n"
        "```bash\n"
        "ssh h 'pkill -f app; echo'\n"
        "```\n"
    )
    assert [f.text for f in fragments(text)] == [
        "scp -p 22 f h:\n",
        "ssh h 'pkill -f app; echo'\n",
    ]
    assert positions(text) == [(5, 10, "HL108"), (12, 8, "HL103")]


def test_a_fence_closed_at_the_outer_items_indentation_hides_no_later_block() -> None:
    # The misplaced closing line opens an untagged fence of step 1 (CommonMark), and the
    # ```bash line below closes nothing; but it was meant to open a block: it does.
    text = (
        "1. step\n"
        "   - sub\n"
        "\n"
        "     ```bash\n"
        "     scp -p 22 f h:\n"
        "   ```\n"
        "\n"
        "   Then (it's quick):\n"
        "\n"
        "   ```bash\n"
        "   ssh h 'pkill -f app; echo'\n"
        "   ```\n"
    )
    assert [f.text for f in fragments(text)] == ["scp -p 22 f h:\n", "ssh h 'pkill -f app; echo'\n"]
    assert positions(text) == [(5, 10, "HL108"), (11, 11, "HL103")]
    assert [f.code for f in check_text(text, "markdown")] == ["HL108", "HL103"]


def test_fences_in_an_html_comment_or_in_indented_code_are_no_fences() -> None:
    text = (
        "<!-- old instructions\n"
        "```bash\n"
        "ssh h 'pkill -f old; echo'\n"
        "```\n"
        "-->\n"
        "\n"
        "Run this:\n"
        "\n"
        "    ```bash\n"
        "    ssh h 'pkill -f shown; echo'\n"
        "    ```\n"
    )
    assert fragments(text) == []
    assert check_text(text, "markdown") == []


@pytest.mark.parametrize(
    "block",
    [
        "    $ sudo echo x >> /etc/hosts\n    $ server &\n    [... output]\n",  # indented
        "```\n# as root? no: as you\n$ sudo echo x >> /etc/hosts\noutput\n```\n",  # no tag
        "> ```\n> $ sudo echo x >> /etc/hosts\n> ```\n",
    ],
)
def test_a_block_with_no_language_that_starts_with_a_prompt_is_a_transcript(block: str) -> None:
    text = "Add the host:\n\n" + block
    assert [code for _, _, code in positions(text)] == ["HL109"]
    assert positions(text)[0][:2] == where(text, ">> /etc/hosts")


@pytest.mark.parametrize(
    "block",
    [
        "    echo x | sudo tee -a /etc/hosts\n    sudo echo y >> /etc/hosts\n",  # no `sudo` first
        "```\nPrice: $ 5\n```\n",  # no language, no prompt
        "```\nPrice: $ 5\nsudo echo x >> /etc/hosts\n```\n",
        "    [root@h ~]# echo x >> /etc/hosts\n    $ ls\n",  # the first prompt is no `$ `
    ],
)
def test_a_block_with_no_language_and_no_prompt_is_not_read(block: str) -> None:
    assert check_text("Add the host:\n\n" + block, "markdown") == []


def test_indented_code_that_starts_with_sudo_is_bash() -> None:
    """As a fence without a language (round w: UbiquityRobotics/ubiquity_launches' README,
    `sudo echo "NEW_HOSTNAME" > /etc/hostname` indented in a list item): commands to
    paste into a shell. The fix keeps the block's indentation on the line it writes."""
    text = (
        "1. Name the robot:\n\n"
        "        # as the ros user\n"
        '        sudo echo "robot-1" > /etc/hostname\n'
        "        hostname\n"
    )
    assert positions(text) == [(*where(text, "> /etc/hostname"), "HL109")]
    fixed = fix_kind(text, "markdown", "README.md", unsafe=True).text
    assert fixed == text.replace(
        'sudo echo "robot-1" > /etc/hostname', 'echo "robot-1" | sudo tee /etc/hostname > /dev/null'
    )
    assert positions(fixed) == []


def test_a_line_with_an_info_string_closes_no_fence_but_its_prose_is_not_shell() -> None:
    # CommonMark: ```bash cannot close the block, so a renderer shows the prose as code.
    # The author meant it as a closing fence: the prose is not linted as shell.
    text = (
        "```bash\n"
        "ssh h 'pkill -f app; echo'\n"
        "```bash\n"
        "Then it's done, and the next step (it's quick) is:\n"
        "```bash\n"
        "scp -p 22 f h:\n"
        "```\n"
    )
    assert [f.text for f in fragments(text)] == ["ssh h 'pkill -f app; echo'\n", "scp -p 22 f h:\n"]
    assert positions(text) == [(2, 8, "HL103"), (6, 5, "HL108")]
    assert [f.code for f in check_text(text, "markdown")] == ["HL103", "HL108"]  # no HL001


def test_a_forgotten_closing_fence_keeps_both_blocks() -> None:
    text = "```bash\nssh h 'pkill -f app; echo'\n\n```bash\nscp -p 22 f h:\n```\n"
    assert [f.text for f in fragments(text)] == [
        "ssh h 'pkill -f app; echo'\n\n",
        "scp -p 22 f h:\n",
    ]
    assert positions(text) == [(2, 8, "HL103"), (5, 5, "HL108")]


def test_a_longer_fence_holds_a_shorter_opening_line() -> None:
    text = "````bash\n```bash\nscp -p 22 f h:\n```\n````\n"
    assert [f.text for f in fragments(text)] == ["```bash\nscp -p 22 f h:\n```\n"]


# -- mkdocs admonitions, details and content tabs --------------------------------------

MKDOCS = """\
# Install

!!! note "On the GPU node"
    Stop the server first:

    ```bash
    ssh gpu-1 'pkill -f sglang; echo stopped'
    ```

=== "Ubuntu"

    ```sh
    scp -p 22 f h:
    ```

=== "Fedora"
    ```console
    $ ssh h 'pkill -f web; echo'
    out
    ```

??? tip
    !!! warning
        ```bash
        ssh h "cat > f << 'EOF'
        x=$1
        EOF"
        ```

Example of the syntax, as indented code:

    !!! note
        ```bash
        ssh h 'pkill -f quoted; echo'
        ```
"""


def test_mkdocs_blocks_are_read_as_the_fences_mkdocs_renders() -> None:
    assert [f.text for f in fragments(MKDOCS)] == [
        "ssh gpu-1 'pkill -f sglang; echo stopped'\n",
        "scp -p 22 f h:\n",
        "ssh h 'pkill -f web; echo'\n",
        "ssh h \"cat > f << 'EOF'\nx=$1\nEOF\"\n",
    ]
    assert positions(MKDOCS) == [
        (7, 16, "HL103"),
        (13, 9, "HL108"),
        (18, 14, "HL103"),
        (25, 24, "HL101"),
        (26, 11, "HL102"),
    ]


def test_fix_in_an_admonition_in_a_list_keeps_the_indentation() -> None:
    text = (
        "1. Step\n\n"
        "    !!! note\n"
        "        ```bash\n"
        "        ssh h \"cat > f << 'EOF'\n"
        "        x\n"
        "        EOF\n"
        '        echo"\n'
        "        ```\n"
    )
    assert positions(text) == [(5, 24, "HL101")]
    fixed = fix_kind(text, "markdown").text
    assert fixed == text.replace(
        "cat > f << 'EOF'\n        x\n        EOF\n        echo",
        "printf %s eAo= | base64 -d > f\n        echo",
    )


def test_tabs_and_crlf_map_to_the_file() -> None:
    text = "- x\r\n\r\n  ```bash\r\n\tssh h 'pkill -f app; echo'\r\n  ```\r\n"
    (fragment,) = fragments(text)
    # The tab is four columns, two of them the item's indentation: the other two are
    # spaces of the text, which stand on that tab.
    assert fragment.text == "  ssh h 'pkill -f app; echo'\n"
    assert fragment.offsets is not None
    tab = text.index("\tssh")
    assert fragment.offsets[:3] == (tab, tab, tab + 1)
    assert fragment.offsets[-2] == text.index("\n", tab)  # the line break is the file's `\n`
    assert positions(text) == [(4, 9, "HL103")]  # a column counts a tab as one


# -- prompts ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "prompt",
    [
        "$ ",
        "user@host:~$ ",
        "root@box:/srv# ",
        "pi@raspberrypi:~ $ ",
        "[root@host dir]# ",
        "[user@host ~]$ ",
        "~/src$ ",
        "/ # ",
        "(venv) $ ",
        "(base) user@gpu:~/w$ ",
        "Johns-MacBook:~ john$ ",
        "zynq$ ",
        "bash-5.1$ ",
    ],
)
def test_console_prompts(prompt: str) -> None:
    text = (
        "```console\n"
        f"{prompt}ssh h 'pkill -f app; echo'\n"
        "it's output\n"
        f"{prompt}scp -p 22 f h:\n"
        "```\n"
    )
    (fragment,) = fragments(text)
    assert fragment.text == "ssh h 'pkill -f app; echo'\nscp -p 22 f h:\n"
    assert positions(text) == [
        (2, len(prompt) + 8, "HL103"),
        (4, len(prompt) + 5, "HL108"),
    ]


@pytest.mark.parametrize("prompt", ["PS> ", "PS C:\\> ", ">>> ", "host> ", "C:\\> "])
def test_prompts_of_other_shells_are_not_shell(prompt: str) -> None:
    text = f"```console\n{prompt}ssh h 'pkill -f app; echo'\n```\n"
    assert fragments(text) == []


def test_a_bare_word_prompt_needs_the_first_line() -> None:
    # `zynq$` on the first line: the prompt of this transcript.  Elsewhere, a word
    # before a `$` is output (a price, a table...).
    text = (
        "```console\n"
        "$ ls\n"
        "zynq$ ssh h 'pkill -f app; echo'\n"
        "Step # ssh h 'pkill -f other; echo'\n"
        "```\n"
    )
    assert fragments(text)[0].text == "ls\n"
    assert positions(text) == []


def test_a_root_prompt_in_a_console_block_without_other_prompts() -> None:
    text = (
        "```console\n"
        "# apt-get install -y openssh-client\n"
        "Reading package lists... Done\n"
        "# ssh h 'pkill -f app; echo'\n"
        "```\n"
    )
    (fragment,) = fragments(text)
    assert fragment.text == "apt-get install -y openssh-client\nssh h 'pkill -f app; echo'\n"
    assert positions(text) == [(4, 10, "HL103")]


def test_comments_in_a_console_block_are_no_commands() -> None:
    # `#` before a sentence, in a block of another language's commands: comments.
    text = (
        "```console\n"
        "# Import the key (it's needed) and stop ssh h 'pkill -f app; echo'\n"
        "certutil -f -importpfx key.p12 NoExport\n"
        "```\n"
        "```console\n"
        "$ cat /etc/ssh/sshd_config\n"
        "# ssh h 'pkill -f app; echo'\n"
        "```\n"
    )
    assert [f.text for f in fragments(text)] == ["cat /etc/ssh/sshd_config\n"]
    assert check_text(text, "markdown") == []


@pytest.mark.parametrize(
    "block",
    [
        # A script with comments, tagged as a session: it starts with no prompt.
        "kubectl get pods\n# then run ssh h 'pkill -f app; echo' (see below)\nping h\n",
        "# From the CLI\nkubectl get pods\n\n# output ssh h 'pkill -f app; echo'\nNAME\n",
    ],
)
def test_comments_in_a_session_block_that_starts_without_a_prompt(block: str) -> None:
    text = f"```ShellSession\n{block}```\n"
    assert fragments(text) == []
    assert check_text(text, "markdown") == []


def test_a_transcript_in_a_bash_fence() -> None:
    text = (
        "```bash\n"
        "# stop it\n"
        "$ ssh h 'pkill -f app; echo'\n"
        "it's stopped\n"
        "$ scp -p 22 f h:\n"
        "f   100%\n"
        "```\n"
    )
    (fragment,) = fragments(text)
    assert fragment.text == "ssh h 'pkill -f app; echo'\nscp -p 22 f h:\n"
    assert [(*LineIndex(text).position(f.start), f.code) for f in check_text(text, "markdown")] == [
        (3, 10, "HL103"),
        (5, 7, "HL108"),
    ]  # and no HL001 for the output's open quote


def test_a_root_transcript_in_an_sh_fence() -> None:
    text = (
        "```sh\n"
        '[root@node1 ~]# ssh node2 "pkill -f worker; echo"\n'
        "Last login: Mon Jan  1 10:00:00 2026 from 10.0.0.1 (it's cached)\n"
        "[root@node1 ~]# cat /etc/os-release\n"
        'NAME="CentOS Linux"\n'
        "```\n"
    )
    (fragment,) = fragments(text)
    assert fragment.text == 'ssh node2 "pkill -f worker; echo"\ncat /etc/os-release\n'
    assert [(*LineIndex(text).position(f.start), f.code) for f in check_text(text, "markdown")] == [
        (2, 28, "HL103")
    ]


def test_a_script_in_a_bash_fence_stays_a_script() -> None:
    text = (
        "```bash\n"
        "# root prompts are comments here: pkill -f x; echo\n"
        "cat > /etc/motd <<'EOF'\n"
        "$ this line is data\n"
        "EOF\n"
        "$HOME/bin/setup\n"
        "ssh h 'pkill -f app; echo'\n"
        "```\n"
        "```sh\n"
        "$HOME/bin/setup\n"
        "$ ssh h 'pkill -f web; echo'\n"
        "```\n"
    )
    first, second = fragments(text)
    assert first.text == text.split("```bash\n")[1].split("```")[0]
    assert second.text == "$HOME/bin/setup\n$ ssh h 'pkill -f web; echo'\n"
    assert positions(text) == [(7, 8, "HL103")]  # `$ ssh` in a script runs a command `$`


def test_markdown_it_is_imported_only_for_a_document_with_a_shell_fence(tmp_path: Path) -> None:
    files = {
        "run.sh": "ssh h 'pkill -f app; echo'\n",
        "notes.md": "# Notes\n\n```python\nprint('ssh h')\n```\n",
        "runbook.md": "# Notes\n\n```bash\nssh h 'pkill -f app; echo'\n```\n",
    }
    imported = {}
    for name, content in files.items():
        (tmp_path / name).write_text(content)
        result = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "heredoc_lint", "--no-cache", name],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            timeout=60,
        )
        assert result.returncode == (0 if name == "notes.md" else 1), result.stderr
        imported[name] = re.search(r"\| +markdown_it$", result.stderr, re.MULTILINE) is not None
    assert imported == {"run.sh": False, "notes.md": False, "runbook.md": True}


def test_fixes_in_transcripts_keep_the_prompts() -> None:
    text = (
        "```sh\n"
        '[root@node1 ~]# ssh node2 "pkill -f worker; echo"\n'
        "out\n"
        "```\n"
        "!!! note\n"
        "    ```console\n"
        "    user@h:~$ ssh h 'pkill -f app; echo'\n"
        "    ```\n"
    )
    assert fix_kind(text, "markdown").text == text.replace("-f worker", "-f '[w]'orker").replace(
        "-f app", "-f \\[a]pp"
    )
