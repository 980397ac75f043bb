#!/usr/bin/env python3
"""Does any input shape cost more than linear time?

    python3 bench/bench_shapes.py [--factor 8]

For each shape (a long line, deep nesting, many heredocs, many files...), times the
engine on a size-n input and on a size n*factor input (the least CPU time of several
runs) and prints the growth: about `factor` is linear, factor**2 quadratic.  The
collector is tuned as the `heredoc-lint` process tunes it (entry.GC_THRESHOLDS).  The
directory shape goes through the real CLI (wall time: file system included).  Last,
texts from the fuzzing grammar (tests/fuzz/grammar.py), repeated.  Not a
test: it asserts nothing; a shape whose growth is over 2x the factor is marked `<<`.

    python3 bench/bench_shapes.py --memory

measures instead the peak memory per input byte of the CLI on the shapes of issue 18
item 8 (a 10 MB script that is one ssh string, a 1.6 MB Python string literal, a 2 MB
command given to the agent hook) and on other Python shapes (many small literals, an
f-string of many fields, many escapes), against the target: under 100 bytes per input
byte beyond a fixed allowance (heredoc_lint.run.memory), the input refused past it; each row
says whether the input was checked or refused.  First, the cost per token of the costliest
shapes, against memory.PER_TOKEN.  `--memory NAME` measures the shapes whose label holds
NAME.  Under each, the floor of the parsers for the same input, each alone in a fresh
interpreter: tree-sitter-bash parsing (and holding) the shell texts the engine parses,
and Python's ast of a Python file; the engine holds both, so the part above them is its
own.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path

from heredoc_lint.cli.entry import GC_THRESHOLDS
from heredoc_lint.engine import check_text
from heredoc_lint.kinds import SourceKind
from heredoc_lint.run.settings import Settings

# Each makes a text of size n; the prefilter is off so every shape is parsed and walked.
SHAPES: dict[str, Callable[[int], str]] = {
    "one long line (5 MB at x8)": lambda n: 'ssh h "echo ' + "a " * (312_500 * n) + '"\n',
    "one long line, no trigger": lambda n: "echo " + "a" * (625_000 * n) + "\n",
    "long double-quoted ssh string": lambda n: 'ssh h "echo ' + "a$x " * (300 * n) + '"',
    "many ssh heredoc statements": lambda n: "ssh h \"cat > /f <<'EOF'\nx\nEOF\"\n" * (20 * n),
    "heredocs (10,000 at x8)": lambda n: "cat <<EOF\n$x\nEOF\n" * (1_250 * n),
    "heredocs in one ssh string": lambda n: (
        'ssh h "' + "cat > /f <<'EOF'\nx\nEOF\n" * (10 * n) + '"'
    ),
    "many lines": lambda n: "ssh h 'pkill -f x; echo ok' && echo $x\n" * (20 * n),
    "many words to ssh": lambda n: "ssh h " + "a 'b c' " * (200 * n),
    "nested $( (10,000 at x8)": lambda n: (
        "ssh h echo " + "$(" * (1_250 * n) + "x" + ")" * (1_250 * n)
    ),
    'nested "$( (10,000 at x8)': lambda n: (
        "ssh h echo " + '"$(' * (1_250 * n) + "x" + ')"' * (1_250 * n)
    ),
    "deep eval chain": lambda n: "eval " * (10 * n) + "echo hi",
    "long pipeline": lambda n: "ssh h x " + "| cat " * (100 * n),
    "nested ifs": lambda n: "ssh h x\n" + "if true; then " * (40 * n) + "x" + "; fi" * (40 * n),
    "many suppressions": lambda n: 'ssh h "echo $x"  # heredoc-lint: disable=HL101\n' * (40 * n),
}


def cpu_cost(run: Callable[[], object], repeat: int) -> float:
    """The least CPU time of `repeat` runs: the noise of a busy machine only adds."""
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        run()
        best = min(best, time.process_time() - start)
    return max(best, 1e-3)


def engine_growth(make: Callable[[int], str], factor: int) -> tuple[float, float]:
    settings = Settings(prefilter=False)
    small, large = make(1), make(factor)
    check_text(small, "shell", "s.sh", settings)  # imports, compiled patterns
    return (
        cpu_cost(lambda: check_text(small, "shell", "s.sh", settings), repeat=5),
        cpu_cost(lambda: check_text(large, "shell", "s.sh", settings), repeat=2),
    )


# --- issue 18 item 7: the rule shapes that were quadratic or cubic ------------------------

# Each makes a text of size n; timed at n, 2n, 4n and 8n from the first size.  Checked as
# an agent's command and then fixed, as the hook does (and --fix), with every rule on.
RULE_SHAPES: dict[str, tuple[int, Callable[[int], str]]] = {
    # Up to 76 KB: past 100 KB the base64 fix no longer fits in one argument, and is not made.
    "heredocs in one ssh string": (500, lambda n: 'ssh h "' + "cat > /f <<'E'\nx\nE\n" * n + '"'),
    "nested while loops, ssh in each": (
        1_000,
        lambda n: "while true; do ssh h x\n" * n + "done\n" * n,
    ),
    'lines `ssh h "pkill -f sglang; echo"`': (
        1_000,
        lambda n: 'ssh h "pkill -f sglang; echo"\n' * n,
    ),
    "pkill calls as words of one ssh": (1_000, lambda n: "ssh h " + "pkill -f sglang \\; " * n),
    "ssh string of `x=1; echo $x`s": (1_000, lambda n: 'ssh h "x=1; ' + "echo $x $1; " * n + '"'),
    "ssh statements with unquoted heredocs": (1_000, lambda n: "ssh h bash <<E\n$x\nE\n" * n),
    # HL106 asks of every word whether it is one of the leading assignments: asked once.
    "assignment words of one ssh": (
        1_000,
        lambda n: "ssh h " + "".join(f'"A{k}=1" ' for k in range(n)) + '"B=x y" cmd\n',
    ),
    # Each HL107 fix (quote the delimiter) is lifted through the same long word: its lexer
    # states must be computed once, not once per edit (edits.py keeps them).
    "unquoted heredocs to ssh in one ssh string": (
        125,
        lambda n: 'ssh a "' + "ssh b <<EOF\necho \\$USER\nEOF\n" * n + '"\n',
    ),
}
# The same for Python files (checked and fixed as a file of kind "python").
PYTHON_RULE_SHAPES: dict[str, tuple[int, Callable[[int], str]]] = {
    "exec_command calls, each read": (
        250,
        lambda n: (
            "import paramiko\nc = paramiko.SSHClient()\ndef f():\n"
            + '    _, o, _ = c.exec_command("nohup ./job > /tmp/j.log &")\n    o.read()\n' * n
        ),
    ),
    "f-string of many fields": (
        500,
        lambda n: (
            'import subprocess\ndef f(a, b):\n    subprocess.run(f"echo '
            + "{a} {b:d} " * n
            + '", shell=True)\n'
        ),
    ),
    # Helpers calling helpers n times each, four deep: the commands at the top are read
    # once each, not once per path (n**4 of them).
    "helpers calling each other": (
        8,
        lambda n: (
            "import paramiko\nc = paramiko.SSHClient()\ndef h4(cmd):\n    c.exec_command(cmd)\n"
            + "".join(f"def h{k}(cmd):\n" + f"    h{k + 1}(cmd)\n" * n for k in (3, 2, 1))
            + "".join(f"h1('pkill -f app{i}; ./start')\n" for i in range(n))
        ),
    ),
}


def rule_shapes() -> None:
    """CPU time of check and fix for each rule shape at four doubling sizes, and the growth
    from each size to the next (linear: about x2; quadratic: x4; cubic: x8)."""
    from heredoc_lint.engine import fix_kind

    def check_and_fix(text: str, kind: SourceKind) -> None:
        fix_kind(text, kind, findings=check_text(text, kind))

    print("issue 18 item 7: check + fix (CPU s at n, 2n, 4n, 8n; growth x2 each)")
    shapes: list[tuple[str, tuple[int, Callable[[int], str]], SourceKind]] = [
        (name, shape, "command") for name, shape in RULE_SHAPES.items()
    ]
    shapes += [(name, shape, "python") for name, shape in PYTHON_RULE_SHAPES.items()]
    for name, (first, make), kind in shapes:
        texts = [make(first * 2**k) for k in range(4)]
        check_and_fix(texts[0], kind)  # imports, compiled patterns
        costs = [cpu_cost(partial(check_and_fix, t, kind), repeat=2) for t in texts]
        growth = max(b / a for a, b in zip(costs, costs[1:], strict=False))
        print(
            f"  {name:<38} {len(texts[-1]) / 1e3:5.0f} KB at 8n: "
            + " ".join(f"{c:6.2f}" for c in costs)
            + f"   worst step x{growth:3.1f}{'  <<' if growth > 3 else ''}"
        )


def grammar_growth(examples: int, factor: int) -> list[float]:
    """Growth for `examples` texts from the fuzzing grammar (tests/fuzz/grammar.py, fixed
    seed), each repeated to about 5,000 characters and then `factor` times that."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
    from fuzz.grammar import Builder

    chooser = random.Random(20261129)
    growths = []
    for _ in range(examples):
        unit = Builder(lambda n: chooser.randrange(n), 25).file() + "\n"
        copies = max(1, 5000 // len(unit))
        small, large = engine_growth(lambda n, u=unit, c=copies: u * (c * n), factor)
        growths.append(large / small)
    return sorted(growths)


def files_growth(count: int, factor: int) -> tuple[float, float]:
    """Wall time of the CLI on `count` and `count * factor` short files (100,000 at x8)."""
    work = Path(tempfile.mkdtemp(prefix="heredoc-lint-shapes-"))
    try:
        times = []
        for n in (count, count * factor):
            root = work / f"files{n}"
            for i in range(n):
                folder = root / f"d{i // 1000:03d}"
                if i % 1000 == 0:
                    folder.mkdir(parents=True)
                (folder / f"f{i:06d}.sh").write_text(f"#!/bin/sh\nssh h echo {i}\n")
            start = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "heredoc_lint",
                    "--no-cache",
                    "--format",
                    "concise",
                    str(root),
                ],
                stdout=subprocess.DEVNULL,
                check=False,
            )
            times.append(time.perf_counter() - start)
        return times[0], times[1]
    finally:
        shutil.rmtree(work, ignore_errors=True)


# --- issue 18 item 8: memory per input byte (peak RSS of the real CLI) ------------------

MEMORY_TARGET = 100  # bytes of peak memory per input byte (issue 18 item 8)


def _one_ssh_string(size: int) -> str:
    return 'ssh h "' + "echo hello world; " * (size // 18) + '"\n'


def _hook_payload(command: str) -> str:
    return json.dumps(
        {"hook_event_name": "PreToolUse", "tool_name": "Bash", "tool_input": {"command": command}}
    )


def _python_run(literal: str) -> str:
    return f'import subprocess\nsubprocess.run(["ssh", "h", {literal}])\n'


def _ordinary(files: list[Path], size: int, tiny: str) -> str:
    """About `size` characters of real code no one here wrote: `files` one after another,
    as many times as it takes; `tiny` for the base measure (a few characters)."""
    if size < 1_000:
        return tiny
    texts = [f.read_text(errors="replace") for f in files]
    out: list[str] = []
    length = 0
    while length < size and texts:
        for text in texts:
            out.append(text if text.endswith("\n") else text + "\n")
            length += len(out[-1])
            if length >= size:
                break
    return "".join(out)


def _stdlib_python() -> list[Path]:
    """This Python's own standard library modules (with subprocess in them: the
    prefilter keeps them), largest first."""
    import sysconfig

    found = Path(sysconfig.get_paths()["stdlib"]).glob("*.py")
    keep = [f for f in found if "subprocess" in f.read_text(errors="replace")]
    return sorted(keep, key=lambda f: -f.stat().st_size)


def _system_shell() -> list[Path]:
    """Shell scripts under /usr/bin (a `#!/bin/sh` or bash first line), largest first."""
    found = []
    for f in Path("/usr/bin").iterdir():
        try:
            with f.open("rb") as handle:
                head = handle.readline(64)
        except OSError:
            continue
        if f.is_file() and head.startswith(b"#!") and head.rstrip().endswith((b"sh", b"bash")):
            found.append(f)
    return sorted(found, key=lambda f: -f.stat().st_size)


# Each: a file name (`-`: the command of an agent hook, on its stdin), the sizes measured
# (the largest is the issue's), and the text of about `size` characters.
MEMORY_SHAPES: dict[str, tuple[str, tuple[int, ...], Callable[[int], str]]] = {
    "script that is one ssh string": ("s.sh", (1_250_000, 10_000_000), _one_ssh_string),
    "Python string literal to ssh": (
        "s.py",
        (200_000, 1_600_000),
        lambda size: (
            'import subprocess\nsubprocess.run(["ssh", "h", "' + "x = 1; " * (size // 7) + '"])\n'
        ),
    ),
    "hook command, one ssh string": ("-", (250_000, 2_000_000), _one_ssh_string),
    # The Python frontend's own cost: the literal above is a dense command list, which
    # costs the shell parse more per byte than the ssh string's text does.
    "Python literal, ssh string's text": (
        "s.py",
        (250_000, 1_000_000),
        lambda size: _python_run('"' + "echo hello world; " * (size // 18) + '"'),
    ),
    "Python file of many small literals": (
        "s.py",
        (250_000, 1_000_000),
        lambda size: (
            "import subprocess\n"
            + 'subprocess.run(["ssh", "h", "echo a; " \'b\'])\n' * (size // 47)
        ),
    ),
    "f-string with many placeholders": (
        "s.py",
        (250_000, 1_000_000),
        lambda size: _python_run('f"echo ' + "{a} {b:d} " * (size // 10) + '"'),
    ),
    # For scale, ordinary code: what a real file costs per byte, parsers included.
    "ordinary Python (this Python's stdlib)": (
        "s.py",
        (1_000_000,),
        lambda size: _ordinary(_stdlib_python(), size, "import subprocess\n"),
    ),
    "ordinary shell (scripts in /usr/bin)": (
        "s.sh",
        (1_000_000,),
        lambda size: _ordinary(_system_shell(), size, "echo hi\n"),
    ),
    "Python literal with many escapes": (
        "s.py",
        (250_000, 1_000_000),
        lambda size: _python_run('"' + "echo \\t\\x41\\\n; " * (size // 16) + '"'),
    ),
}


def _nested(command: str, depth: int) -> str:
    for _ in range(depth):
        command = "bash -c '" + command.replace("'", "'\\''") + "'"
    return command


# The costliest shapes per token (heredoc_lint.run.memory.PER_TOKEN prices every token at
# the most any of these costs), each about 12 KB or less: small enough to be checked in
# the CLI's own process, so what is measured is the check's cost, not the bound's.
TOKEN_SHAPES: dict[str, tuple[str, Callable[[int], str]]] = {
    "f-string of {a} fields": ("s.py", lambda n: _python_run('f"' + "{a}" * (n // 3) + '"')),
    "f-string of {a:{b}} fields": (
        "s.py",
        lambda n: _python_run('f"' + "{a:{b}}" * (n // 7) + '"'),
    ),
    "f-string of {a!r} fields": ("s.py", lambda n: _python_run('f"' + "{a!r}" * (n // 5) + '"')),
    "many f-strings": ("s.py", lambda n: _python_run(" ".join(['f"{a}"'] * (n // 7)))),
    "names joined with +": (
        "s.py",
        lambda n: 'a = "x"\n' + _python_run("+".join(["a"] * (n // 2))),
    ),
    "`$a` in an ssh string": ("s.sh", lambda n: 'ssh h "' + "$a" * (n // 2) + '"\n'),
    "`a;` in an ssh string": ("s.sh", lambda n: 'ssh h "' + "a;" * (n // 2) + '"\n'),
    "`$a` in ssh, 8 bash -c deep": (
        "s.sh",
        lambda n: _nested('ssh h "' + "$a" * (n // 2) + '"', 8) + "\n",
    ),
    "calls of os.system": (
        "s.py",
        lambda n: "import os\n" + 'os.system("ssh h a;b")\n' * (n // 22),
    ),
}


def token_shapes() -> None:
    """Peak memory per token of each TOKEN_SHAPES shape, against memory.PER_TOKEN."""
    from heredoc_lint.run import memory

    work = Path(tempfile.mkdtemp(prefix="hl-tokens-"))
    try:
        print(f"peak memory per token (memory.PER_TOKEN: {memory.PER_TOKEN} B):")
        for label, (name, make) in TOKEN_SHAPES.items():
            _, base, _ = _memory_run(name, make(30), work)
            size = 12_000
            while memory.costly(make(size).encode()):  # checked here, not in the worker
                size = size * 3 // 4
            text = make(size)
            _, peak, _ = _memory_run(name, text, work)
            tokens = memory.tokens(text.encode())
            per_token = (peak - base) / tokens
            mark = "" if per_token < memory.PER_TOKEN else "  << over PER_TOKEN"
            print(f"  {label:<32} {tokens:6} tokens: {per_token:6.0f} B/token{mark}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


_PEAK = (
    "import resource, subprocess, sys, time\n"
    "start = time.monotonic()\n"
    "stdin = open(sys.argv[1]) if sys.argv[1] != '-' else subprocess.DEVNULL\n"
    "run = subprocess.run(sys.argv[2:], stdin=stdin, stdout=subprocess.DEVNULL,"
    " stderr=subprocess.PIPE, text=True)\n"
    "refused = 'needs more memory than' in run.stderr\n"
    "print(time.monotonic() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,"
    " int(refused))\n"
)


def peak_of(argv: list[str], cwd: Path, stdin: str = "-") -> tuple[float, int, bool]:
    """(wall seconds, peak resident bytes, whether it refused the input as over the
    memory bound) of a command, alone under a fresh interpreter, its stdin the file
    `stdin` (`-`: none).  The peak is that of the command or of any process it waited
    for: the forked one that checks a large input included."""
    out = subprocess.run(
        [sys.executable, "-c", _PEAK, stdin, *argv],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return float(out[0]), int(out[1]) * 1024, out[2] == "1"


# The parsers' own cost, alone in a fresh interpreter (ru_maxrss after the parse, above it
# before): tree-sitter-bash on the shell texts the engine parses (each layer's, from each
# fragment of a Python file; all held), and Python's ast of a Python file.  The engine
# holds a tree per layer and the file's ast: floors no change of its own structures removes.
_FLOOR = (
    "import ast, json, resource, sys\n"
    "import tree_sitter, tree_sitter_bash\n"
    "parser = tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))\n"
    "parser.parse(b'echo warm-up')\n"
    "texts = json.load(open(sys.argv[2]))\n"
    "data = [t.encode('utf-8', 'surrogateescape') for t in texts]\n"
    "before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
    "held = [parser.parse(d) for d in data] if sys.argv[1] == 'bash' else ast.parse(texts[0])\n"
    "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before)\n"
)


def parser_floor(parser: str, texts: list[str], work: Path) -> int:
    """Bytes of peak memory that `parser` ("bash": tree-sitter-bash, "python": ast) takes
    to parse and hold `texts`, alone in a fresh interpreter."""
    (work / "texts.json").write_text(json.dumps(texts))
    # Through a small process: Linux keeps a process's peak across fork and exec, so a
    # child of this one (which holds the input) would start at this one's peak.
    launch = "import subprocess, sys; sys.exit(subprocess.run(sys.argv[1:]).returncode)"
    out = subprocess.run(
        [sys.executable, "-c", launch, sys.executable, "-c", _FLOOR, parser, "texts.json"],
        cwd=work,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return int(out) * 1024


def shell_texts(name: str, text: str) -> list[str]:
    """The shell texts the engine parses for the input `text`: each layer's (the script or
    command, the ssh string's text in it...), from each fragment of a Python file."""
    from heredoc_lint.frontends import fragments
    from heredoc_lint.layers.layer import file_layer, root_layer, walk_layers

    if name.endswith(".py"):
        roots = [root_layer(fragment) for fragment in fragments("python", text)]
    else:
        roots = [file_layer(text)]
    return [layer.text for root in roots for layer in walk_layers(root)]


def _memory_run(name: str, text: str, work: Path) -> tuple[float, int, bool]:
    """Peak of `heredoc-lint FILE` on `text`, or of the agent hook on it as a command."""
    cli = [sys.executable, "-m", "heredoc_lint"]
    if name == "-":
        (work / "payload.json").write_text(_hook_payload(text))
        return peak_of([*cli, "hook", "claude"], work, stdin="payload.json")
    (work / name).write_text(text)
    return peak_of([*cli, "--no-cache", name], work)


def memory_shapes(only: str = "") -> None:
    """Peak memory per input byte of `heredoc-lint FILE` (or of the hook) for each memory
    shape at each of its sizes, above the peak for a tiny input of the same kind; and
    whether that stays within the bound (heredoc_lint.run.memory: the allowance and 100
    bytes per byte), checked or refused."""
    from heredoc_lint.run import memory

    work = Path(tempfile.mkdtemp(prefix="hl-memory-"))
    try:
        print(
            f"peak memory per input byte (target: under {MEMORY_TARGET} B/B beyond "
            f"an allowance of {memory.ALLOWANCE >> 20} MiB; past it the input is refused):"
        )
        for label, (name, sizes, make) in MEMORY_SHAPES.items():
            if only not in label:
                continue
            _, base, _ = _memory_run(name, make(36), work)
            for size in sizes:
                text = make(size)
                seconds, peak, refused = _memory_run(name, text, work)
                grown = peak - base
                per_byte = grown / len(text)
                size_bytes = len(text.encode())
                within = grown <= memory.allowed(size_bytes)
                mark = "" if within else "  << over the bound"
                verdict = "refused" if refused else "checked"
                print(
                    f"  {label:<36} {len(text) / 1e6:6.2f} MB: {seconds:6.1f} s, "
                    f"{peak / 1e6:5.0f} MB peak, {per_byte:5.0f} B/B, {verdict}{mark}"
                )
                # The parsers' floor for the same input: what is theirs, not the engine's.
                floor = parser_floor("bash", shell_texts(name, text), work) / len(text)
                line = f"  {'':<36} {'':>9}  parsers alone: tree-sitter-bash {floor:4.0f} B/B"
                if name.endswith(".py"):
                    tree = parser_floor("python", [text], work) / len(text)
                    line += f", Python ast {tree:4.0f} B/B"
                print(line)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--factor", type=int, default=8)
    parser.add_argument("--files", type=int, default=12_500, help="short files at size 1")
    parser.add_argument("--grammar", type=int, default=40, help="fuzzing-grammar texts")
    parser.add_argument(
        "--memory",
        nargs="?",
        const="",
        metavar="NAME",
        help="memory shapes only (issue 18), or those whose label holds NAME",
    )
    args = parser.parse_args()
    if args.memory is not None:
        token_shapes()
        memory_shapes(args.memory)
        return
    factor = args.factor
    gc.set_threshold(*GC_THRESHOLDS)  # as the heredoc-lint process sets it
    print(
        f"growth of cost for input x{factor} (linear: about {factor}; quadratic: {factor * factor})"
    )
    rows = [(name, *engine_growth(make, factor)) for name, make in SHAPES.items()]
    rows.append(
        (f"short files ({args.files * factor:,} at x{factor})", *files_growth(args.files, factor))
    )
    for name, small, large in rows:
        growth = large / small
        mark = "  <<" if growth > 2 * factor else ""
        print(f"  {name:<38} {small:8.3f} s -> {large:8.3f} s   x{growth:5.1f}{mark}")
    growths = grammar_growth(args.grammar, factor)
    print(
        f"  {len(growths)} fuzzing-grammar texts: growth median x{growths[len(growths) // 2]:.1f},"
        f" highest x{growths[-1]:.1f}{'  <<' if growths[-1] > 2 * factor else ''}"
    )
    rule_shapes()


if __name__ == "__main__":
    main()
