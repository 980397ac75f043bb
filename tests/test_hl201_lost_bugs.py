"""HL201: three real bugs of the precision corpus that the bench had lost, found again,
and the evidence rules that decide them (bench/corpus/patterns.md).

Each reproducer is written here after the pattern of the real bug (no third-party text).
The tests check the finding (line, column, severity, the evidence in the message) and
run the code through its real channel (paramiko against the test sshd, `subprocess`
with `shell=True`) to show a value that breaks it.
"""

from __future__ import annotations

import json
import subprocess
import threading
import types
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import paramiko  # type: ignore[import-untyped]
import pytest

from heredoc_lint.engine import check_text
from heredoc_lint.model import Finding, Severity
from heredoc_lint.severities import severity


def hl201(text: str, path: str = "t.py") -> list[Finding]:
    return [f for f in check_text(text, "python", path) if f.code == "HL201"]


def at(text: str, finding: Finding) -> tuple[int, int, str]:
    """(line, column, text) of a finding, both 1-based, as the CLI prints them."""
    line = text.count("\n", 0, finding.start) + 1
    column = finding.start - (text.rfind("\n", 0, finding.start) + 1) + 1
    return line, column, text[finding.start : finding.end]


def load(source: str, name: str) -> types.ModuleType:
    module = types.ModuleType(name)  # imported, not run: `__main__` blocks stay out
    exec(compile(source, f"{name}.py", "exec"), module.__dict__)
    return module


# -- a public function called only with a literal example at the top level ------------------
# (rfbackend homecommand.py: another module passes a directory from an HTTP request)

HOME_COMMAND = """import paramiko


def run_command_on_remote(ssh, command, remote_dir):
    full_command = f"cd {remote_dir} && {command}"
    stdin, stdout, stderr = ssh.exec_command(full_command)
    return stdout.read(), stdout.channel.recv_exit_status()


if __name__ == "__main__":
    client = paramiko.SSHClient()
    run_command_on_remote(client, "touch hithere.txt", "/home/erik")
"""

EXAMPLE_WORDS = (
    "it comes from a parameter of the public function `run_command_on_remote` "
    "(the file calls it only with a literal example, line 12)"
)


def test_a_parameter_called_only_with_a_literal_example_is_evidence() -> None:
    (finding,) = hl201(HOME_COMMAND)
    column = HOME_COMMAND.splitlines()[4].index("{remote_dir}") + 1
    assert (column, at(HOME_COMMAND, finding)) == (25, (5, 25, "{remote_dir}"))
    # a path parameter's evidence, at info (first look: 18 TP, 8 FP, 61 debatable)
    assert (finding.severity, finding.evidence) == (Severity.INFO, "parameter")
    assert EXAMPLE_WORDS in finding.message


def test_a_bare_top_level_example_call_counts_the_same() -> None:
    bare = HOME_COMMAND.replace(
        'if __name__ == "__main__":\n    client = paramiko.SSHClient()\n    run_',
        "client = paramiko.SSHClient()\nrun_",
    )
    assert "\nrun_command_on_remote(client, " in bare
    (finding,) = hl201(bare)
    assert (finding.severity, finding.evidence) == (Severity.INFO, "parameter")
    assert "the file calls it only with a literal example, line 11" in finding.message


def test_the_directory_breaks_the_remote_command(
    tmp_path: Path, client: paramiko.SSHClient
) -> None:
    module = load(HOME_COMMAND, "homecommand")
    plain, blank = tmp_path / "plain", tmp_path / "two words"
    plain.mkdir()
    blank.mkdir()
    assert module.run_command_on_remote(client, "pwd", str(plain)) == (
        f"{plain}\n".encode(),
        0,
    )
    # `cd /tmp/.../two words`: two arguments; the command after && never runs
    out, status = module.run_command_on_remote(client, "pwd", str(blank))
    assert status != 0 and out == b""


def test_a_program_of_its_own_values_is_still_no_evidence() -> None:
    """Calls made inside the program's functions, or with values it computes, are its
    own use of the function: they decide, as before."""
    inside = HOME_COMMAND.replace('if __name__ == "__main__":\n', "def main():\n")
    computed = HOME_COMMAND.replace('"/home/erik"', '"/home/" + str(len("erik"))')
    for text in (inside, computed):
        assert text != HOME_COMMAND
        (finding,) = hl201(text)
        assert (finding.severity, finding.evidence) == (Severity.INFO, "no-origin"), text
        assert "literal example" not in finding.message


# (nanotron scripts/weka.py: the example passes a YAML-style literal through a parser)

WARMUP = '''import subprocess


def parse_input_paths(input_data):
    if isinstance(input_data, list):
        return input_data
    lines = input_data.strip().split("\\n")
    return [line.strip().strip("- ") for line in lines if line.strip()]


def warmup_datasets(input_paths):
    for folder_path in parse_input_paths(input_paths):
        folder_path = folder_path.rstrip("/")
        cmd = f"find -L {folder_path} -type f"
        subprocess.run(cmd, shell=True, check=True, capture_output=True, text=True)


if __name__ == "__main__":
    sample = """
      - /fsx/datasets/a
      - /fsx/datasets/b/
    """
    warmup_datasets(sample)
'''


def test_a_parameter_given_a_literal_example_through_a_name_is_evidence() -> None:
    (finding,) = hl201(WARMUP)
    column = WARMUP.splitlines()[13].index("{folder_path}") + 1
    assert (column, at(WARMUP, finding)) == (25, (14, 25, "{folder_path}"))
    assert (finding.severity, finding.evidence) == (Severity.INFO, "parameter")
    assert "(the file calls it only with a literal example, line 23)" in finding.message
    assert finding.message.count("through `parse_input_paths()`") == 1


def test_the_folder_breaks_find(tmp_path: Path) -> None:
    module = load(WARMUP, "weka")
    for name in ("plain", "two words"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "f").write_text("x")
    module.warmup_datasets([str(tmp_path / "plain")])
    with pytest.raises(subprocess.CalledProcessError) as failed:
        module.warmup_datasets([str(tmp_path / "two words")])
    assert "No such file or directory" in failed.value.stderr


def test_an_example_call_keeps_a_path_under_the_parameter_evidence() -> None:
    text = WARMUP.replace("find -L {folder_path} -type f", "find -L {folder_path}/data -type f")
    (finding,) = hl201(text)
    assert (at(text, finding)[2], finding.severity, finding.evidence) == (
        "{folder_path}",
        Severity.INFO,
        "parameter",
    )


def test_an_example_call_does_not_make_a_glob_stem_evidence() -> None:
    """`scp {stem}*`: a glob over the files the function made from that stem, with a
    literal example under `__main__` (rfbackend mp3helper.py, debatable): info."""
    text = (
        "import subprocess\n\n\ndef publish(stem):\n"
        '    subprocess.run(f"scp {stem}* host:/srv/mp3", shell=True)\n\n\n'
        'if __name__ == "__main__":\n    publish("/home/me/song.mp3")\n'
    )
    (finding,) = hl201(text)
    assert at(text, finding)[2] == "{stem}"
    assert (finding.severity, finding.evidence) == (Severity.INFO, "example-only")
    # without the example call, the parameter of a public function is evidence (at info:
    # `stem` says nothing of what it holds)
    alone = text.split("\n\n\nif __name__")[0] + "\n"
    assert [(f.severity, f.evidence) for f in hl201(alone)] == [
        (Severity.INFO, "parameter-unknown")
    ]


# -- a list filled from the network (rfbackend makemp3.py:80) ----------------------------------

GAP = """import subprocess

import requests


def gap_speech(list_of_tokens, voice):
    text = "<speak>"
    for tokens in list_of_tokens:
        sentence = ""
        for i in range(len(tokens)):
            sentence = sentence + tokens[i]
        text = text + sentence + '<break time=\\\\"1s\\\\"/>'
    text = text + "</speak>"
    output = 'printf %s/ --voice-id "' + voice + '" --text "' + text + '"'
    return subprocess.run(output, shell=True, capture_output=True, text=True).stdout


def make_gap_file(url):
    response = requests.post(url, json={})
    response_data = response.json()
    allofthem = []
    for item in response_data["result"]:
        tok = item["chinese"]
        allofthem.append(tok)
    return gap_speech(allofthem, "Hiujin")
"""


def test_text_appended_to_a_list_keeps_its_origin() -> None:
    found = {GAP[f.start : f.end]: f for f in hl201(GAP)}
    assert set(found) == {"voice", "text"}
    assert found["voice"].severity is Severity.INFO  # only the program's own literal
    text = found["text"]
    line = GAP.splitlines()[13]
    assert at(GAP, text) == (14, line.index("+ text +") + 3, "text")
    assert (text.severity, text.evidence) == (severity("HL201", "network"), "network")
    assert (
        "it is read from the network (`requests.post`), added to `allofthem`, "
        "passed to `gap_speech()` on line 25"
    ) in text.message


def test_an_append_elsewhere_is_not_this_lists() -> None:
    """Only the function that binds the list fills it: a list of the same name in another
    function, filled from the network, says nothing of this one."""
    other = GAP.replace(
        "def make_gap_file(url):",
        "def other(url):\n    allofthem = []\n"
        "    allofthem.append(requests.get(url).text)\n\n\n"
        "def make_gap_file(url):",
    ).replace('        tok = item["chinese"]\n', '        tok = "x"\n')
    assert {GAP[f.start : f.end] for f in hl201(GAP)} == {"voice", "text"}
    assert all(f.severity is Severity.INFO for f in hl201(other))


class _Reply(BaseHTTPRequestHandler):
    body = b"{}"

    def do_POST(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(self.body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[HTTPServer]:
    httpd = HTTPServer(("127.0.0.1", 0), _Reply)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_the_reply_runs_in_the_shell(server: HTTPServer, tmp_path: Path) -> None:
    module = load(GAP, "makemp3")
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    _Reply.body = json.dumps({"result": [{"chinese": "ni hao"}]}).encode()
    assert module.make_gap_file(url) == (
        '--voice-id/Hiujin/--text/<speak>ni hao<break time="1s"/></speak>/'
    )
    marker = tmp_path / "ran"
    _Reply.body = json.dumps({"result": [{"chinese": f'x" ; touch {marker} ; echo "'}]}).encode()
    module.make_gap_file(url)
    assert marker.exists()  # the reply's `"` closed the quotes and its command ran


# -- a parameter whose default is a quantity (rfbackend whispertosrt.py:185) --------------------

CONVERT = """import subprocess


def convert(src, video_bitrate="500k", crf=30):
    subprocess.run(f"ffmpeg -i x.mp4 -b:v {video_bitrate} -crf {crf} out.webm", shell=True)
"""


def test_a_quantity_default_is_no_evidence() -> None:
    found = {CONVERT[f.start : f.end]: f.severity for f in hl201(CONVERT)}
    assert found == {"{video_bitrate}": Severity.INFO, "{crf}": Severity.INFO}
    for finding in hl201(CONVERT):
        assert "nothing in this file shows where the value comes from" in finding.message


@pytest.mark.parametrize(
    "default", ['"/srv/videos"', '"out.webm"', '"fast"', "None", '""', '"500 k"']
)
def test_a_default_that_is_no_quantity_keeps_the_parameter_evidence(default: str) -> None:
    text = CONVERT.replace('"500k"', default)
    (finding,) = (f for f in hl201(text) if text[f.start : f.end] == "{video_bitrate}")
    # the parameter's evidence, at info: `video_bitrate` says nothing of what it holds
    assert (finding.severity, finding.evidence) == (Severity.INFO, "parameter-unknown")
    assert "a parameter of the public function `convert`" in finding.message


def test_what_a_caller_passes_still_decides_over_the_default() -> None:
    text = CONVERT + "\n\nimport sys\nconvert('a', sys.argv[1])\n"
    (finding,) = (f for f in hl201(text) if text[f.start : f.end] == "{video_bitrate}")
    # argv's evidence, not the default's; still found, at info: argv's first look was
    # 4 findings, all debatable
    assert (finding.severity, finding.evidence) == (Severity.INFO, "argv")
    assert "`sys.argv`), passed to `convert()` on line 9" in finding.message


def test_a_bitrate_with_a_blank_breaks_ffmpegs_arguments() -> None:
    """The shell splits the value: what a quantity default shows does not happen."""
    for value, words in (("500k", ["500k"]), ("500 k", ["500", "k"])):
        done = subprocess.run(
            f"printf '%s\\n' -b:v {value}", shell=True, capture_output=True, text=True
        )
        assert done.stdout.splitlines() == ["-b:v", *words]


# -- a parameter the function names itself when not given (rfbackend explaintext:131) ----------

RENDER_TEXT = """import random
import subprocess


def render_text(text, filename=None):
    if filename is None:
        filename = "talk" + str(random.randint(100, 999)) + ".mp3"
    with open(filename + ".txt", "w") as out:
        out.write(text)
    subprocess.run(f"cp {filename}* /srv/mp3/", shell=True)
"""


def test_a_name_the_function_makes_itself_shows_the_kind_its_callers_pass() -> None:
    (finding,) = hl201(RENDER_TEXT)
    assert at(RENDER_TEXT, finding)[::2] == (10, "{filename}")
    assert finding.severity is Severity.INFO
    assert "nothing in this file shows where the value comes from" in finding.message


@pytest.mark.parametrize(
    ("fallback", "why", "severity", "evidence"),
    [
        # a parameter named as a file: info (first look: 18 TP, 8 FP, 61 debatable)
        ('text.split()[0] + ".mp3"', "made of another parameter", Severity.INFO, "parameter"),
        # still found, at info: input()'s first look was 11 TP, 3 FP, 18 debatable
        ('input("name? ")', "typed in", Severity.INFO, "input"),
        ('"talk" + suffix', "a name the file does not show", Severity.INFO, "parameter"),
    ],
)
def test_a_fallback_made_of_outside_text_keeps_the_evidence(
    fallback: str, why: str, severity: Severity, evidence: str
) -> None:
    text = RENDER_TEXT.replace('"talk" + str(random.randint(100, 999)) + ".mp3"', fallback)
    assert text != RENDER_TEXT
    found = {(text[f.start : f.end], f.severity, f.evidence) for f in hl201(text)}
    assert ("{filename}", severity, evidence) in found, why


def test_a_none_default_without_a_fallback_keeps_the_evidence() -> None:
    text = RENDER_TEXT.replace(
        '    if filename is None:\n        filename = "talk" + str(random.randint(100, 999)) '
        '+ ".mp3"\n',
        "",
    )
    assert "randint" not in text
    (finding,) = hl201(text)
    assert (finding.severity, finding.evidence) == (Severity.INFO, "parameter")
    assert "a parameter of the public function `render_text`" in finding.message


def test_the_made_name_runs_and_what_it_rules_out_breaks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The function's own names are one word; a caller's name with a blank is two."""
    out = tmp_path / "out"
    out.mkdir()
    module = load(RENDER_TEXT.replace("/srv/mp3/", f"{out}/"), "render")
    monkeypatch.chdir(tmp_path)
    module.render_text("hello")
    assert [p.name[:4] for p in out.iterdir()] == ["talk"]
    module.render_text("hello", "two words.mp3")
    assert not any(p.name.startswith("two") for p in out.iterdir())  # `cp two words.mp3*`
