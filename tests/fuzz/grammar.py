"""Shell-like text from a small grammar, driven by any source of choices.

`Builder(choose).script()` builds a script of commands whose words use every quoting
style, expansions, heredocs (well and badly terminated), and wrappers that nest new
layers (`ssh`, `bash -c`, `eval`, `sudo sh -c`, `su -c`, `docker exec`, `kubectl exec`,
`xargs sh -c`, prefixes such as `nohup`/`timeout`), each layer quoted for its outer
layer correctly or carelessly (that is where the bugs the tool looks for are born).

`choose(n)` returns an int in [0, n): hypothesis draws them in tests/test_fuzz.py,
atheris's FuzzedDataProvider in tests/fuzz/harness.py, `random.Random` anywhere else.
Nothing here is ever executed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Choose = Callable[[int], int]

NAMES = ["x", "HOME", "PATH", "USER", "host", "port", "i", "f", "_", "CUDA_VISIBLE_DEVICES"]
PLAIN = [
    "echo",
    "cat",
    "printf",
    "ls",
    "cd",
    "rm",
    "-rf",
    "/tmp/x",
    "ok",
    "true",
    "chmod",
    "+x",
    "f.sh",
    "python3",
    "-m",
    "sglang",
    "--port",
    "8000",
    "a=b",
    "x=1",
    "export",
    "sleep",
    "2",
    "wait",
    "kill",
    "-9",
    "tee",
    "-a",
    "mkdir",
    "-p",
    "/w",
    "é",
    "中文",
    "😀",
    "--",
    "-",
    "{a,b}",
    "*.sh",
    "~/x",
    "a\\ b",
    "#",
    "!",
    "%",
    "\u2028",
]
COMMANDS = ["echo", "cat", "printf %s", "ls -l", "true", "sleep 1", "make", "git pull", "."]
DELIMITERS = ["EOF", "END", "'EOF'", '"EOF"', "\\EOF", "E'O'F", "-EOF", "-'EOF'", ""]
HOSTS = [
    "h",
    "gpu-1",
    "root@gpu-1",
    "user@198.51.100.7",
    "-p 2222 h",
    "-o BatchMode=yes h",
    "-J jump h",
    "-l root h",
    "-n h",
    "-tt h",
    "-- h",
    "-p",
    "",
]
SHELLS = ["bash -c", "sh -c", "bash -lc", "sh -ec", "zsh -c", "dash -c", "bash -s", "sh"]
PREFIXES = [
    "nohup",
    "timeout 5",
    "env A=1",
    "nice -n 5",
    "stdbuf -oL",
    "sudo",
    "sudo -u u",
    "setsid",
    "exec",
    "command",
    "time",
    "!",
]
WRAPPERS = [
    "ssh",
    "shell",
    "eval",
    "sudo sh -c",
    "su -c",
    "su root -c",
    "runuser -c",
    "docker exec c sh -c",
    "podman exec -i c bash -c",
    "kubectl exec p -- sh -c",
    "xargs sh -c",
    "flock /tmp/l -c",
    "watch",
    "gcloud compute ssh vm --command",
    "vagrant ssh -c",
    "tmux new-session -d",
    "find . -exec sh -c",
]
OPERATORS = ["; ", " && ", " || ", " | ", " & ", "\n", ";\n", " |& ", "\r\n", " ;; "]
REDIRECTS = [
    "> /dev/null",
    "2>&1",
    ">/dev/null 2>&1",
    "< /dev/null",
    ">> log",
    "&>f",
    "2>/dev/null",
    "<&-",
    ">&2",
    "< <(ls)",
    "<<< 'here'",
    ">|f",
    "3<>f",
]
RAW = [
    "'",
    '"',
    "`",
    "$",
    "\\",
    "(",
    ")",
    "{",
    "}",
    "[[",
    "]]",
    "<<",
    "<<<",
    "$((",
    "${",
    "'\\''",
    '\\"',
    '\\\\\\"',
    "\\\n",
    "\t",
    "\r",
    "\x00",
    "\x1b",
    "\ufeff",
    "\udcff",
    "# heredoc-lint: disable=HL101",
    "# heredoc-lint: disable-file=HL103",
    "# noqa",
    "EOF",
    "\nEOF\n",
    "esac",
    "fi",
    "done",
    "then",
    "do",
]


class Builder:
    """Builds text from `choose`; `budget` bounds the number of constructs."""

    def __init__(self, choose: Choose, budget: int = 60) -> None:
        self.choose = choose
        self.budget = budget

    def pick(self, items: Sequence[str]) -> str:
        return items[self.choose(len(items))]

    def chance(self, one_in: int) -> bool:
        return self.choose(one_in) == 0

    def spend(self) -> bool:
        self.budget -= 1
        return self.budget > 0

    # words -----------------------------------------------------------------------------

    def expansion(self, depth: int) -> str:
        name = self.pick(NAMES)
        kind = self.choose(11)
        if kind == 0:
            return f"${name}"
        if kind == 1:
            return "${" + name + self.pick(["", ":-d", "#*/", "%%.*", "/a/b", "[@]", ":?e"]) + "}"
        if kind == 2:
            return "$" + self.pick(["1", "2", "9", "@", "*", "#", "$", "!", "?", "-", "0"])
        if kind == 3 and depth < 6 and self.spend():
            return "$(" + self.command(depth + 1) + ")"
        if kind == 4 and depth < 6 and self.spend():
            return "`" + self.command(depth + 1).replace("`", "\\`") + "`"
        if kind == 5:
            return "$((" + self.pick(["1+2", "x*2", "$x-1", "(1"]) + "))"
        if kind == 6 and depth < 6 and self.spend():
            return self.pick(["<(", ">("]) + self.command(depth + 1) + ")"
        if kind == 7:
            return "$(hostname)"
        if kind == 8:
            return "$(whoami)"
        if kind == 9:
            return "\\$" + name
        return "$'" + self.pick(["\\n", "\\t", "\\'", "a", "\\x41", "\\u00e9"]) + "'"

    def word(self, depth: int) -> str:
        kind = self.choose(9)
        if kind <= 2:
            return self.pick(PLAIN)
        if kind == 3:
            return "'" + self.pick(PLAIN + ["$x", "`a`", '"', "\\"]) + "'"
        if kind == 4:
            parts = [
                self.pick(PLAIN) if self.chance(2) else self.expansion(depth)
                for _ in range(1 + self.choose(3))
            ]
            return '"' + "".join(parts).replace('"', '\\"') + '"'
        if kind == 5:
            return self.expansion(depth)
        if kind == 6:  # a stray special character: rarely, most texts should parse
            return self.pick(RAW) if self.chance(4) else self.pick(PLAIN)
        if kind == 7:
            return self.pick(PLAIN) + self.expansion(depth)
        return self.pick(REDIRECTS)

    # layers ----------------------------------------------------------------------------

    def quote_layer(self, inner: str) -> str:
        """`inner` as one word of the outer layer, quoted well or carelessly."""
        style = self.choose(7)
        if style == 0:
            return "'" + inner.replace("'", "'\\''") + "'"
        if style == 1:  # correctly escaped for "..."
            return '"' + "".join("\\" + c if c in '\\$`"' else c for c in inner) + '"'
        if style == 2:  # the usual mistake: only the double quotes escaped
            return '"' + inner.replace('"', '\\"') + '"'
        if style == 3:  # not escaped at all
            return '"' + inner + '"'
        if style == 4:
            return "'" + inner + "'"
        if style == 5:
            return "$'" + inner.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n") + "'"
        return inner  # unquoted: ssh joins the words again

    def wrapped(self, depth: int) -> str:
        wrapper = self.pick(WRAPPERS)
        inner = self.script(depth + 1, self.choose(3) + 1)
        quoted = self.quote_layer(inner)
        if wrapper == "ssh":
            return f"ssh {self.pick(HOSTS)} {quoted}"
        if wrapper == "shell":
            shell = self.pick(SHELLS)
            return f"{shell} {quoted}" + (
                f" {self.pick(['_', 'arg0', 'a b'])}" if self.chance(3) else ""
            )
        if wrapper.startswith("find"):
            return f"{wrapper} {quoted} _ {{}} \\;"
        return f"{wrapper} {quoted}"

    def heredoc(self, depth: int) -> str:
        delimiter = self.pick(DELIMITERS)
        bare = delimiter.strip("'\"\\-").replace("'", "")
        dash = "-" if delimiter.startswith("-") else ""
        op = "<<" + dash + (" " if self.chance(2) else "") + delimiter.lstrip("-")
        head = self.pick(
            [
                "cat",
                "cat >",
                "tee",
                "sudo tee",
                "bash -s",
                "ssh h",
                "ssh h bash -s",
                "python3 -",
                "docker exec -i c sh",
                "cat >>",
                "sudo cat >",
                "sh",
            ]
        )
        target = " /w/f.sh" if head.endswith(">") else ""
        lines = []
        for _ in range(self.choose(5)):
            if self.chance(3) and self.spend():
                lines.append(self.command(depth + 1))
            else:
                lines.append(" ".join(self.word(depth) for _ in range(self.choose(4))))
        ending = self.choose(8)
        if ending == 0:
            terminator = "  " + bare  # indented
        elif ending == 1:
            terminator = bare + " "  # trailing blank
        elif ending == 2:
            terminator = bare + "; echo done"  # glued
        elif ending == 3:
            terminator = ""  # never terminated
        elif ending == 4:
            terminator = "\t" + bare
        else:
            terminator = bare
        after = self.pick(["", " && echo ok", " | sh", "; chmod +x f"]) if self.chance(3) else ""
        return f"{head}{target} {op}{after}\n" + "".join(line + "\n" for line in lines) + terminator

    def pkill(self) -> str:
        flag = self.pick(["-f", "-9 -f", "-9f", "--full", "-fx", "-0 -f", "-f -u root", "-x"])
        pattern = self.pick(
            [
                "sglang",
                "'[s]glang'",
                '"python.*server"',
                "launch",
                "x",
                "'a|b'",
                '"$name"',
                "''",
                "'('",
            ]
        )
        tail = self.pick(["", " 2>/dev/null", " || true", "; sleep 2", " && echo ok"])
        return f"{self.pick(['pkill', 'pgrep', 'sudo pkill'])} {flag} {pattern}{tail}"

    def command(self, depth: int = 0) -> str:
        if not self.spend():
            return self.pick(COMMANDS)
        kind = self.choose(14)
        if kind <= 2 and depth < 4:  # each layer of quoting can make the text 4 times longer
            return self.wrapped(depth)
        if kind == 3:
            return self.heredoc(depth)
        if kind == 4:
            return self.pkill()
        if kind == 5:
            return self.pick(PREFIXES) + " " + self.command(depth)
        if kind == 6:
            return "(" + self.script(depth, 2) + ")"
        if kind == 7:
            return "{ " + self.script(depth, 2) + "; }"
        if kind == 8:
            control = self.choose(5)
            body = self.script(depth, 2)
            if control == 0:
                return f"if {self.command(depth)}; then {body}; else {self.command(depth)}; fi"
            if control == 1:
                return f"while read -r line; do {body}; done < list"
            if control == 2:
                return f"for h in a b c; do {body}; done"
            if control == 3:
                return f"case $x in a) {body};; *) :;; esac"
            return f"f() {{ {body}; }}"
        if kind == 9 and self.chance(2):
            state = self.pick(["cd /srv", "export A=1", "source env.sh", "umask 022", "x=1"])
            return f"ssh {self.pick(HOSTS)} {state}{self.pick(OPERATORS)}{self.command(depth)}"
        if kind == 9:
            return f"scp {self.pick(['-p 22', '-P 22', '-p', '-rp'])} f h:/tmp/"
        if kind == 10:
            return f"x=$({self.command(depth + 1)})" if depth < 6 else "x=1"
        if kind == 11:
            return "# " + " ".join(self.word(depth) for _ in range(self.choose(3)))
        words = [self.pick(COMMANDS)] + [self.word(depth) for _ in range(self.choose(5))]
        return " ".join(words)

    def script(self, depth: int = 0, max_commands: int = 6) -> str:
        count = 1 + self.choose(max_commands)
        out = [self.command(depth)]
        for _ in range(count - 1):
            out.append(self.pick(OPERATORS))
            out.append(self.command(depth))
        return "".join(out)

    def file(self) -> str:
        """A script file: maybe a shebang, commands on lines, maybe CRLF, maybe no final newline."""
        text = self.pick(["#!/bin/bash\n", "#!/bin/sh\n", "", "\ufeff#!/bin/bash\n"])
        text += "\n".join(self.script() for _ in range(1 + self.choose(4)))
        if self.chance(2):
            text += "\n"
        if self.chance(6):
            text = text.replace("\n", "\r\n")
        return text


def mutate(text: str, choose: Choose, snippet: Callable[[], str], rounds: int = 4) -> str:
    """`text` with a few byte-level and grammar-level mutations at chosen places."""
    for _ in range(rounds):
        n = len(text)
        at = choose(n + 1)
        kind = choose(8)
        if kind == 0:  # delete a span
            text = text[:at] + text[at + choose(64) :]
        elif kind == 1:  # duplicate a span
            span = text[at : at + choose(256)]
            text = text[:at] + span + span + text[at:]
        elif kind == 2:  # insert grammar text
            text = text[:at] + snippet() + text[at:]
        elif kind == 3:  # insert a quote or another special character
            text = text[:at] + RAW[choose(len(RAW))] + text[at:]
        elif kind == 4:  # truncate
            text = text[:at]
        elif kind == 5:  # swap two spans
            other = choose(n + 1)
            a, b = sorted((at, other))
            text = (
                text[:a] + text[b : b + 16] + text[a + 16 : b] + text[a : a + 16] + text[b + 16 :]
            )
        elif kind == 6:  # wrap a line into an ssh string
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            end = n if end < 0 else end
            text = text[:start] + 'ssh h "' + text[start:end] + '"' + text[end:]
        else:  # CRLF a region
            text = text[:at] + text[at : at + 200].replace("\n", "\r\n") + text[at + 200 :]
    return text
