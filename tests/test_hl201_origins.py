"""HL201 on the patterns of the precision bench (bench/corpus/patterns.md): where a value
comes from decides between a warning and info.

Each pattern is a minimal reproducer written here (no third-party text). A pattern that
was a false or debatable warning on real code stays below warning; a real bug that the
bench lost is reported again, and its runtime failure is shown through the real channel
(`subprocess.run(..., shell=True)`, a real HTTP server on loopback).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import threading
import types
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path

import pytest

from heredoc_lint.engine import check_text, fix_kind
from heredoc_lint.frontends.python.callers import numeric_options
from heredoc_lint.model import Finding, Severity
from heredoc_lint.severities import severity as table_severity


def hl201(text: str, path: str = "t.py") -> list[Finding]:
    return [f for f in check_text(text, "python", path) if f.code == "HL201"]


# What the table makes of text read from the network (measured: info since round t).
NETWORK = table_severity("HL201", "network")


def severities(text: str, path: str = "t.py") -> dict[str, Severity]:
    return {text[f.start : f.end]: f.severity for f in hl201(text, path)}


def evidences(text: str, path: str = "t.py") -> dict[str, tuple[Severity, str]]:
    """Each value's severity and the evidence that set it (heredoc_lint/severities.py)."""
    return {text[f.start : f.end]: (f.severity, f.evidence) for f in hl201(text, path)}


# argv, options, the environment, configuration and input() are evidence at info: on their
# first look on real code most such findings were debatable (heredoc_lint/severities.py).
OPTION = (Severity.INFO, "cli-option")
ENVIRONMENT = (Severity.INFO, "environment")
NO_ORIGIN = (Severity.INFO, "no-origin")
# A parameter of a public function is judged by what its name says it holds: only a host
# is a warning (the shared case remote_py.py); a path or free text, a URL and a name that
# says nothing are info (first look: most such findings were debatable).
PARAMETER = (Severity.INFO, "parameter")
HOST = (Severity.WARNING, "parameter-host")
URL = (Severity.INFO, "parameter-url")
UNKNOWN = (Severity.INFO, "parameter-unknown")


# -- argparse: an option declared as a number is one word (insightface get_aux_dataset) -------

ARGPARSE = """import argparse
import os

parser = argparse.ArgumentParser()
parser.add_argument('--datapath', type=str, default='../data/')
parser.add_argument('--output', '-o', type=int, required=True)
parser.add_argument('--scale', type=float, default=1.0)
parser.add_argument('--sizes', type=int, nargs='+')
parser.add_argument('--dry-run', action='store_true')
args = parser.parse_args()
os.system("mkdir -p " + args.datapath + "/scan" + str(args.output))
os.system(f"resize {args.scale} {args.sizes} {args.dry_run}")
"""


def test_an_int_option_is_no_evidence_a_str_option_and_a_list_are() -> None:
    found = evidences(ARGPARSE)
    assert found["args.datapath"] == OPTION
    assert found["{args.sizes}"] == OPTION  # nargs: a list, "[1, 2]" has a blank
    assert found.get("str(args.output)", NO_ORIGIN) == NO_ORIGIN
    assert found.get("{args.scale}", NO_ORIGIN) == NO_ORIGIN
    assert found.get("{args.dry_run}", NO_ORIGIN) == NO_ORIGIN


def test_what_argparse_gives_for_those_options() -> None:
    """The premise, from argparse itself: a number option's text is one shell word, or the
    program stops; a nargs option's text is a list with blanks."""
    import ast as _ast

    assert numeric_options(_ast.parse(ARGPARSE)) == frozenset({"output", "scale", "dry_run"})
    parser = argparse.ArgumentParser(exit_on_error=False)
    parser.add_argument("--output", type=int)
    parser.add_argument("--sizes", type=int, nargs="+")
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args(["--output", "7", "--sizes", "1", "2"])
    assert (str(args.output), str(args.dry_run), str(args.sizes)) == ("7", "False", "[1, 2]")
    with pytest.raises(argparse.ArgumentError):
        parser.parse_args(["--output", "7; rm -rf x"])


def test_a_destination_declared_twice_otherwise_is_not_a_number() -> None:
    import ast as _ast

    text = (
        "import argparse\np = argparse.ArgumentParser()\n"
        "p.add_argument('--n', type=int)\np.add_argument('--n', dest='n', type=str)\n"
    )
    assert numeric_options(_ast.parse(text)) == frozenset()


# -- variables a batch scheduler sets (VILA dist_helper) -----------------------------------------


def test_a_scheduler_variable_is_no_evidence_other_variables_are() -> None:
    text = (
        "import os, subprocess\n"
        "nodes = os.environ['SLURM_NODELIST']\n"
        "rank = os.getenv('OMPI_COMM_WORLD_RANK')\n"
        "data = os.environ.get('DATA_DIR')\n"
        "subprocess.getoutput(f'scontrol show hostname {nodes} {rank} {data}')\n"
    )
    assert evidences(text) == {
        "{nodes}": NO_ORIGIN,
        "{rank}": NO_ORIGIN,
        "{data}": ENVIRONMENT,
    }


# -- test code: its values are its authors' own (aws utils.py, luigi test_ssh.py) -------------

TEST_HELPER = """import os
import subprocess


def add_keys_to_known_hosts(hostname, host_keys_file):
    os.system(f"ssh-keyscan -t rsa {hostname} >> {host_keys_file}")


host = os.environ.get("SSH_TEST_HOST", "localhost")
subprocess.check_output("ssh %s true" % host, shell=True)
"""


@pytest.mark.parametrize(
    "path", ["tests/integration/utils.py", "pkg/test_ssh.py", "conftest.py", "a/ssh_test.py"]
)
def test_in_test_code_parameters_and_variables_are_info(path: str) -> None:
    found = severities(TEST_HELPER, path)
    assert set(found) == {"{hostname}", "{host_keys_file}", "%s"}
    assert set(found.values()) == {Severity.INFO}
    (first, *_) = hl201(TEST_HELPER, path)
    assert "which is no evidence of outside text here" in first.message


@pytest.mark.parametrize(
    "path", ["deploy/utils.py", "contest.py", "latest_run.py", "/home/u/tests/proj/deploy.py"]
)
def test_outside_test_code_the_same_values_warn(path: str) -> None:
    # the parameters keep their evidence: the host warns, the file is a parameter at info;
    # the environment variable keeps its evidence, which is info
    assert evidences(TEST_HELPER, path) == {
        "{hostname}": HOST,
        "{host_keys_file}": PARAMETER,
        "%s": ENVIRONMENT,
    }


# -- a parameter inside double quotes (rfbackend whispertosrt.py) ------------------------------

DOUBLE = """import subprocess
import sys


def convert(input_path, output_path, bitrate):
    subprocess.run(f'ffmpeg -i "{input_path}" -b:v {bitrate} "{output_path}"', shell=True)


def main():
    subprocess.run(f'ffmpeg -i "{sys.argv[1]}" out.webm', shell=True)
"""


def test_a_parameter_in_double_quotes_is_info_argv_there_warns() -> None:
    in_quotes = (Severity.INFO, "parameter-in-double-quotes")
    assert evidences(DOUBLE) == {
        "{input_path}": in_quotes,
        "{bitrate}": UNKNOWN,  # unquoted: a blank splits it; its name says nothing
        "{output_path}": in_quotes,
        "{sys.argv[1]}": (Severity.INFO, "argv"),  # still argv's evidence, at argv's info
    }


def test_what_double_quotes_protect_a_path_from() -> None:
    """The premise, from sh: a path with blanks and `*` is one word inside "...";
    only `$`, backtick, `\\` and `"` are still read."""
    script = 'printf "<%s>" "{}"'
    for path, shown in [("my dir/*.mp4", "<my dir/*.mp4>"), ("a$HOME", "<a>")]:
        done = subprocess.run(
            script.format(path), shell=True, capture_output=True, text=True, env={"HOME": ""}
        )
        assert done.stdout == shown


# -- network text in the program's own shell text (rfbackend makemp3.py) -----------------------

SPEAK = """import subprocess

import requests


def story(url):
    response = requests.post(url, json={})
    response = response.json()
    text = "<speak>" + response["result"] + "</speak>"
    output = 'printf %s/ --text "' + text + '"'
    return subprocess.run(output, shell=True, capture_output=True, text=True).stdout
"""
# As above, with shell text of the program's own in the value: `\"` for the shell.
MIXED = SPEAK.replace(
    '"</speak>"\n', '"</speak>"\n    text = text.replace("\\n", \'<break time=\\\\"1s\\\\"/>\')\n'
)


class _Reply(BaseHTTPRequestHandler):
    body = b""

    def do_POST(self) -> None:  # noqa: N802 - the name http.server calls
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
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


def test_network_text_is_reported_and_its_fix_offered() -> None:
    (finding,) = hl201(SPEAK)
    assert SPEAK[finding.start : finding.end] == 'response["result"]'
    assert (finding.severity, finding.evidence) == (NETWORK, "network")
    assert "it is read from the network (`requests.post`)" in finding.message
    assert finding.fix is not None


def test_network_text_in_shell_text_is_reported_without_a_fix() -> None:
    assert '<break time=\\\\"1s\\\\"/>' in MIXED
    (finding,) = hl201(MIXED)
    assert MIXED[finding.start : finding.end] == "text"
    assert (finding.severity, finding.evidence) == (NETWORK, "network")
    assert "it is read from the network (`requests.post`)" in finding.message
    assert finding.message.endswith("keep its shell text as it is")
    assert finding.fix is None


def _story(source: str, name: str, url: str) -> str:
    module = types.ModuleType(name)
    exec(compile(source, f"{name}.py", "exec"), module.__dict__)
    result: str = module.story(url)
    return result


@pytest.mark.parametrize("source", [SPEAK, MIXED], ids=["plain", "mixed"])
def test_the_reply_runs_in_the_shell(source: str, server: HTTPServer, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    _Reply.body = json.dumps({"result": "plain words"}).encode()
    # one argument after --text, as the author meant
    assert _story(source, "original", url) == "--text/<speak>plain words</speak>/"
    marker = tmp_path / "ran"
    _Reply.body = json.dumps({"result": f'x" ; touch {marker} ; echo "'}).encode()
    _story(source, "original", url)
    assert marker.exists()  # the reply's `"` closed the quotes and its command ran


def test_the_fixed_code_keeps_the_reply_one_word(server: HTTPServer, tmp_path: Path) -> None:
    after = fix_kind(SPEAK, "python", "t.py", unsafe=True)
    assert after.error is None and hl201(after.text) == []
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    marker = tmp_path / "ran"
    _Reply.body = json.dumps({"result": f'x" ; touch {marker} ; echo "'}).encode()
    reply = f'x" ; touch {marker} ; echo "'
    assert _story(after.text, "fixed", url) == f"--text/<speak>{reply}</speak>/"
    assert not marker.exists()


def test_a_number_from_the_network_is_still_no_finding() -> None:
    text = (
        "import os, requests\n"
        "r = requests.get('http://h/n').json()\n"
        "os.system(f'sleep {int(r[\"n\"])}')\n"
    )
    assert hl201(text) == []


# -- a long way from the reply to the command (rfbackend makemp3.py:39) -------------------------

LONG_WAY = """import subprocess

import requests


def synthesize(text, voice, slow):
    text = text.replace("\\n", "")
    if slow:
        text = "<speak>" + text + "</speak>"
    else:
        text = "<speak><prosody rate='50%'>" + text + "</prosody></speak>"
    subprocess.run('polly --voice-id "' + voice + '" --text "' + text + '"', shell=True)


def both(english, chinese):
    synthesize(english, "Danielle", False)
    synthesize(chinese, "Hiujin", True)


def fetch(url):
    response = requests.post(url, json={})
    data = response.json()
    result = data["result"]
    for item in result:
        english = item["english"]
        chinese = item["chinese"]
        both(english, chinese)
"""


def test_evidence_is_followed_through_rebindings_loops_and_two_callers() -> None:
    assert severities(LONG_WAY) == {"voice": Severity.INFO, "text": NETWORK}
    (finding,) = (f for f in hl201(LONG_WAY) if f.evidence == "network")
    assert (
        "it is read from the network (`requests.post`), passed to `both()` on line 27, "
        "passed to `synthesize()` on line 16"
    ) in finding.message


# -- a helper of the file that returns its argument quoted (boilerplates) ----------------------

QUOTING_HELPER = """import shlex
import subprocess


def remote_path(path):
    return shlex.quote(path.rstrip("/"))


def listing(path):
    target = remote_path(path)
    return subprocess.run(f"ls -d -- {target}", shell=True, capture_output=True, text=True).stdout
"""


HOME_HELPER = """import shlex
import subprocess


def home_path(path, slash=False):
    normalized = path.rstrip("/")
    suffix = "/" if slash else ""
    if normalized in ("~", ""):
        return f'"$HOME"{suffix}'
    if normalized.startswith("~/"):
        quoted = shlex.quote(normalized[2:] + suffix)
        return f'"$HOME"/{quoted}'
    return shlex.quote(normalized + suffix)


def make(host, path):
    target = home_path(path)
    subprocess.run(["ssh", host, f"mkdir -p -- {target}"], check=True)
"""


@pytest.mark.parametrize("text", [QUOTING_HELPER, HOME_HELPER], ids=["quote", "home"])
def test_a_value_a_helper_returns_quoted_is_no_finding(text: str) -> None:
    """Quoting it again (the fix) would make `mkdir` create a directory named `"$HOME"`."""
    assert hl201(text) == []


@pytest.mark.parametrize(
    ("text", "change"),
    [
        (QUOTING_HELPER, ("shlex.quote(path", "(path")),
        (HOME_HELPER, ("return shlex.quote(normalized + suffix)", "return normalized")),
        (HOME_HELPER, ("quoted = shlex.quote(normalized[2:] + suffix)", "quoted = path")),
    ],
)
def test_a_helper_with_one_unquoted_return_is_evidence(text: str, change: tuple[str, str]) -> None:
    changed = text.replace(*change)
    assert changed != text
    # the parameter's evidence (at info: `target` says nothing of what it holds)
    assert set(evidences(changed).values()) == {UNKNOWN}


def test_the_helpers_quoting_holds_in_sh(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # where a `$(touch ran)` that ran would leave its file
    module = types.ModuleType("listing")
    exec(compile(QUOTING_HELPER, "listing.py", "exec"), module.__dict__)
    odd = tmp_path / "my dir; $(touch ran)"
    odd.mkdir()
    assert module.listing(f"{odd}/") == f"{odd}\n"
    assert not (tmp_path / "ran").exists()
    unquoted = QUOTING_HELPER.replace("shlex.quote(path", "(path")
    exec(compile(unquoted, "listing.py", "exec"), module.__dict__)
    module.listing(f"{odd}/")
    assert (tmp_path / "ran").exists()  # the same value without the helper's quoting runs


# -- an attribute of `self` set from the environment (gpt-neox corpora.py) --------------------

ATTRIBUTES = """import os


class Dataset:
    def __init__(self, data_dir=None, name="pile"):
        if data_dir is None:
            data_dir = os.environ.get("DATA_DIR", "./data")
        self._data_dir = data_dir
        self.name = name

    @property
    def base_dir(self):
        return self._data_dir

    def download(self, url):
        os.system(f"wget {url} -O {os.path.join(self.base_dir, self.name)}")
"""


def test_an_attribute_set_from_the_environment_is_evidence_a_parameter_is_not() -> None:
    found = evidences(ATTRIBUTES)
    assert found["{os.path.join(self.base_dir, self.name)}"] == ENVIRONMENT
    assert found["{url}"] == URL  # a parameter of the public method, named as a URL
    (finding,) = (f for f in hl201(ATTRIBUTES) if "self.base_dir" in f.message)
    assert (
        "it comes from the environment (`os.environ.get`), through `self._data_dir`, "
        "through `self.base_dir`"
    ) in finding.message
    # stored from a parameter alone, the attribute shows nothing
    plain = ATTRIBUTES.replace('os.environ.get("DATA_DIR", "./data")', '"./data"')
    (finding,) = (f for f in hl201(plain) if "self.base_dir" in f.message)
    assert "parameter" not in finding.message.split("; ")[-1]
    assert (finding.severity, finding.evidence) == NO_ORIGIN


def test_a_directory_with_a_blank_breaks_that_wget(tmp_path: Path) -> None:
    """The premise, from sh: `-O` takes the first word; the rest is another URL."""
    out = tmp_path / "my data" / "pile"
    done = subprocess.run(
        f"set -- -O {out}; echo $#", shell=True, capture_output=True, text=True, check=True
    )
    assert done.stdout == "3\n"


# -- a backslash before the value escapes its first character only -------------------------

BACKSLASHED = """import os


def show(p):
    os.system(f"echo \\\\{p}")
"""


def test_a_value_after_a_backslash_is_still_unquoted(tmp_path: Path) -> None:
    """`echo \\{p}`: the backslash quotes the value's first character, the rest is read
    by the shell: a `;` in it runs a command, as bash shows."""
    script = tmp_path / "show.py"
    script.write_text(BACKSLASHED + "show('x; echo INJECTED')\n")
    done = subprocess.run(["python3", str(script)], capture_output=True, text=True, timeout=30)
    assert done.stdout.splitlines() == ["x", "INJECTED"]
    (found,) = hl201(BACKSLASHED)
    assert (found.severity, found.evidence) == UNKNOWN  # `p` says nothing: info
    assert "unquoted shell word" in found.message
    start = BACKSLASHED.index("{p}")
    assert (found.start, found.end) == (start, start + 3)


# -- pytest: the values of a parametrized parameter are the file's own (pyinvoke) ---------


@pytest.mark.parametrize(
    "names", ['"argstr, expected"', '["argstr", "expected"]', '("expected", "argstr")']
)
def test_a_parametrized_parameter_is_no_evidence(names: str) -> None:
    """`@pytest.mark.parametrize` lists the values: option words meant to be split."""
    text = (
        "import pytest\nfrom invoke import run\n\n"
        f'@pytest.mark.parametrize({names}, [("val --optional -- x", "ok")])\n'
        "def remainder(argstr, expected, other):\n"
        '    run(f"inv parsing {argstr}")\n'
        '    run(f"inv parsing {other}")\n'
    )
    assert evidences(text) == {"{argstr}": NO_ORIGIN, "{other}": UNKNOWN}


# -- what a web framework hands a handler is the client's ----------------------------------
_ROUTES = """\
import subprocess

from flask import Flask

app = Flask(__name__)


@app.route("/api/service/<service_name>/status")
def status(service_name):
    return subprocess.check_output(f"systemctl status {service_name}", shell=True)


@app.get("/items/{item}")
def items(item, limit: int = 10, request=None):
    subprocess.run(f"head -n {limit} /srv/{item}", shell=True)


def upload(request):
    deploy_id = request.POST.get("deploy_id")
    subprocess.getstatusoutput(f"mkdir -p /repos/{deploy_id}")


class Restart:
    def post(self):
        subprocess.run(f"systemctl restart {self.request.data['unit']}", shell=True)
"""


def test_what_a_route_or_a_request_object_gives_is_the_clients() -> None:
    """A route's parameters (Flask `<name>`, FastAPI `{name}` and its query parameters)
    and what a request object holds (Django's `request.POST`, DRF's `request.data` on
    `self.request`) are the client's text: the request's evidence, whatever the name says
    (a client sends `x;id` as a service name as easily as a path), at info by default
    (first look: 2 TP, 1 FP, 2 debatable). A parameter annotated `int` is one word: no
    finding."""
    request = (Severity.INFO, "request")
    found = evidences(_ROUTES)
    assert found == {
        "{service_name}": request,
        "{item}": request,
        "{deploy_id}": request,
        "{self.request.data['unit']}": request,
    }
    messages = {_ROUTES[f.start : f.end]: f.message for f in hl201(_ROUTES)}
    assert (
        "a parameter of the route `/api/service/<service_name>/status`"
        in (messages["{service_name}"])
    )
    assert "it comes from an HTTP request (`request.POST`)" in messages["{deploy_id}"]


# -- a method's parameter, by what its class's own `self.` calls pass (round z) -------------
_METHOD = """import os
import sys


class Node:
    def collect(self, host):
        return self.extract(host)

    def extract(self, host):
        return os.popen("nc localhost 2006 | grep {}".format(host)).read()

    def run(self):
        return self.collect(VALUE)
"""


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("'10.10.1.55'", NO_ORIGIN),  # its class only ever passes a literal address
        ("sys.argv[1]", (Severity.INFO, "argv")),  # the command line, through `collect`
        ("*sys.argv[1:]", HOST),  # not all in sight: the parameter is the evidence
    ],
)
def test_a_method_parameter_is_judged_by_its_classs_own_calls(
    value: str, expected: tuple[Severity, str]
) -> None:
    text = _METHOD.replace("VALUE", value)
    assert evidences(text) == {"{}": expected}
