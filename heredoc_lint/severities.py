"""The default severity of every finding: one row per rule and evidence kind.

A finding names the evidence that raised it (`Finding.evidence`, a short stable word); this
table alone decides the severity a run shows it at.  Each row carries what justifies it:
the first-look figures of the pair (findings at default severity on corpus batches read
after the rule last changed, labelled by hand: bench/corpus/batches.tsv, WILD.md), or the
contract (SPEC.md, the shared cases) where no such finding has been seen yet.

A pair reaches warning or error on measurement only with first-look precision
TP/(TP+FP) of at least GRADUATE_PRECISION over at least GRADUATE_FINDINGS findings.  One
measured below that on five findings or more is info, unless a shared case expects it at
default severity (`held` says which).  One seen less often keeps SPEC.md's default until
it is measured: the contract and the cases it is judged on name those severities.  A pair
at info is not shown by default, so it is never measured on a first look.

When a rule's evidence is split, the first-look findings of its old pairs are shared out
by the evidence the current build gives each of them (on the same snapshots, every
finding matched to its label): HL201's were, on 2026-12-06, when its `parameter` evidence
was split by what the value's name says it holds. UNPLACED counts the first-look findings
that matching could not place (the build of the first look no longer reports them there).
tests/test_severities.py keeps the rows, the rules, the figures and the cases in step.
"""

from __future__ import annotations

from dataclasses import dataclass

from heredoc_lint.model import Severity

GRADUATE_FINDINGS = 10
GRADUATE_PRECISION = 0.9

ERROR, WARNING, INFO = Severity.ERROR, Severity.WARNING, Severity.INFO


@dataclass(frozen=True)
class FirstLook:
    """Findings of the pair at default severity on batches read after the rule last
    changed (bench/corpus/batches.tsv), by verdict."""

    tp: int
    fp: int
    debatable: int

    @property
    def findings(self) -> int:
        return self.tp + self.fp + self.debatable

    @property
    def precision(self) -> float | None:
        judged = self.tp + self.fp
        return self.tp / judged if judged else None


@dataclass(frozen=True)
class Row:
    severity: Severity
    why: str  # what the evidence is, in a few words
    first_look: FirstLook | None = None  # None: never shown on a first look (info)
    held: str = ""  # what keeps it above info against its first look: a shared case


# (rule, evidence) -> row.  Order: by rule, the surest evidence first.
TABLE: dict[tuple[str, str], Row] = {
    # HL001 parse-error
    ("HL001", "shell-string-refused"): Row(
        INFO, "a string a shell runs does not parse", FirstLook(4, 1, 0)
    ),
    ("HL001", "script-refused"): Row(
        INFO, "a script that holds what this tool checks does not parse", FirstLook(3, 3, 5)
    ),
    ("HL001", "source-unreadable"): Row(
        INFO, "the file does not parse in its own language", FirstLook(1, 0, 8)
    ),
    ("HL001", "script-without-checked"): Row(
        INFO, "a script with nothing this tool checks does not parse"
    ),
    ("HL001", "bash-accepts"): Row(INFO, "tree-sitter-bash fails where bash parses"),
    ("HL001", "not-a-script"): Row(INFO, "a template, transcript or session, not a script"),
    ("HL001", "runtime-built"): Row(INFO, "the text is built from run-time values"),
    ("HL001", "source-not-checked"): Row(INFO, "a source this tool does not read (Python 2)"),
    # HL002 unused-suppression
    ("HL002", "unused"): Row(WARNING, "the suppression silences no finding"),
    # HL101 heredoc-in-remote-string
    ("HL101", "body-parsed-by-outer-shell"): Row(
        WARNING,
        "the outer shell changes the body",
        FirstLook(2, 23, 0),
        held="the shared cases seed000.sh, write_cron.sh, push_env.sh (`<< 'EOF'` in ssh \"...\")",
    ),
    ("HL101", "local-values"): Row(
        INFO, "the outer shell fills in variables the script sets", FirstLook(0, 11, 0)
    ),
    ("HL101", "escaped-for-both-shells"): Row(
        INFO, "an unquoted body escaped for the outer shell", FirstLook(0, 19, 0)
    ),
    ("HL101", "arrives-as-written"): Row(INFO, "the body arrives as written today"),
    # HL102 client-side-expansion
    ("HL102", "quoted-delimiter"): Row(ERROR, "inside a quoted-delimiter heredoc"),
    ("HL102", "quoted-delimiter-binding"): Row(
        INFO, "inside a quoted-delimiter heredoc, bound outside", FirstLook(0, 7, 0)
    ),
    ("HL102", "continuation-in-quoted-heredoc"): Row(
        ERROR, "a backslash-newline in a quoted heredoc"
    ),
    ("HL102", "binding-inside"): Row(
        ERROR, "the name is bound in the same string, later", FirstLook(3, 0, 0)
    ),
    ("HL102", "awk-field"): Row(ERROR, "a field of an awk program", FirstLook(0, 0, 1)),
    ("HL102", "positional-empty"): Row(WARNING, "a positional parameter that is empty there"),
    ("HL102", "special-parameter"): Row(
        INFO, "`$?`, `$!` or `$$` of the wrong shell", FirstLook(2, 1, 2)
    ),
    ("HL102", "machine-probe"): Row(
        INFO, "a command that describes the machine", FirstLook(0, 6, 0)
    ),
    ("HL102", "positional-empty-local-use"): Row(INFO, "an empty positional, meant locally"),
    ("HL102", "special-parameter-local-use"): Row(INFO, "a special parameter, meant locally"),
    ("HL102", "machine-probe-local-use"): Row(INFO, "a machine probe, meant locally"),
    ("HL102", "positional"): Row(INFO, "a positional parameter of the script"),
    ("HL102", "local-variable"): Row(INFO, "a variable set in the outer script"),
    ("HL102", "machine-variable"): Row(INFO, "HOME, USER, PWD...: this machine's"),
    ("HL102", "local-expansion"): Row(INFO, "any other local expansion"),
    # HL103 pkill-self-match
    ("HL103", "fed-by-stdin"): Row(ERROR, "the shell feeding the script waits for it"),
    ("HL103", "shares-string"): Row(
        ERROR,
        "other commands share the string",
        FirstLook(5, 10, 10),
        held="the shared cases seed000.sh, seed003.sh, reload_workers.sh, remote_py.py",
    ),
    # Split from shares-string on 2026-12-07: round z's three `pkill -f X ; pkill -f X`.
    ("HL103", "repeat-lost"): Row(
        INFO, "only the same command again is lost: the status changes", FirstLook(0, 0, 3)
    ),
    ("HL103", "script-last-command"): Row(WARNING, "a script keeps its process"),
    ("HL103", "redirection-keeps-shell"): Row(WARNING, "bash keeps its shell for a redirection"),
    ("HL103", "dash-keeps-shell"): Row(
        WARNING, "dash keeps its shell for one command", FirstLook(0, 1, 0)
    ),
    ("HL103", "path-directory"): Row(
        INFO, "only the script's directory matches: it depends on how it is started"
    ),
    ("HL103", "oldest-first"): Row(INFO, "pgrep asks for the oldest match: the target's"),
    ("HL103", "last-command"): Row(
        INFO, "the string's last command: bash 5.2 runs it in its shell's place"
    ),
    ("HL103", "lone-status-ignored"): Row(
        INFO, "its shell's only command, in a call that drops the status"
    ),
    # HL104 remote-background-holds-session
    ("HL104", "background-command"): Row(
        WARNING,
        "a background command keeps the session's output",
        FirstLook(14, 5, 3),
        held="the shared case tail_logs.sh (`nohup tail -f ... &` over ssh)",
    ),
    ("HL104", "background-group"): Row(
        WARNING, "a background group or subshell keeps it", FirstLook(0, 0, 1)
    ),
    ("HL104", "background-pipeline"): Row(WARNING, "a background pipeline keeps it"),
    ("HL104", "background-list"): Row(
        WARNING,
        "the subshell of a background list keeps it while its last command runs",
        FirstLook(1, 0, 0),
    ),
    ("HL104", "channel-unwaited"): Row(INFO, "nothing shown waits for the channel"),
    # HL105 ssh-swallows-loop-stdin
    ("HL105", "ssh-in-read-loop"): Row(WARNING, "ssh reads the loop's input", FirstLook(7, 0, 5)),
    # ssh reads its input only once connected: a loop over a file has read every line by
    # then, unless it waits (round z, beaker-toolbox: all 40 hosts read): timing decides.
    ("HL105", "job-in-read-loop"): Row(INFO, "a background job keeps the loop's input"),
    ("HL105", "function-in-read-loop"): Row(
        WARNING, "a function that runs ssh reads it", FirstLook(3, 1, 0)
    ),
    # HL106 ssh-argument-rejoin
    ("HL106", "rejoined-word"): Row(
        INFO, "a word's value is split again remotely", FirstLook(1, 4, 0)
    ),
    ("HL106", "split-assignment"): Row(WARNING, "an assignment word's value is split remotely"),
    # HL107 unquoted-heredoc-to-remote
    ("HL107", "remote-meaning"): Row(
        INFO, "the body's expansions are meant remotely", FirstLook(1, 2, 2)
    ),
    ("HL107", "local-meaning"): Row(INFO, "the body's expansions may be meant locally"),
    # HL108 scp-port-flag
    ("HL108", "port-number"): Row(ERROR, "`scp -p` followed by a number"),
    ("HL108", "port-from-options"): Row(ERROR, "`-p N` in options scp shares"),
    # HL109 sudo-redirect
    ("HL109", "unprivileged-redirect"): Row(
        ERROR,
        "the caller's shell opens the file",
        FirstLook(43, 99, 21),
        held="the shared case sysctl.sh (`sudo echo ... > /proc/...`)",
    ),
    ("HL109", "root-by-guard"): Row(INFO, "a guard shows the script runs as root"),
    ("HL109", "root-by-action"): Row(INFO, "it runs what only root may, without sudo"),
    ("HL109", "root-by-provisioner"): Row(INFO, "a Vagrant shell provisioner runs it as root"),
    ("HL109", "root-by-caller"): Row(INFO, "another file of the project runs it with sudo"),
    ("HL109", "root-by-container"): Row(INFO, "a Dockerfile runs it as the container's root"),
    ("HL109", "target-made-writable"): Row(INFO, "the script hands the file to chmod or chown"),
    # HL110 local-operator-after-ssh
    ("HL110", "state-change-lost"): Row(ERROR, "ssh runs only a state change"),
    # HL111 nested-quoting-depth
    ("HL111", "escape-chain"): Row(
        WARNING,
        "the string needs an escape chain",
        FirstLook(0, 7, 1),
        held="the shared case seed003.sh (`'\\''` in a heredoc of an ssh string)",
    ),
    ("HL111", "three-shells-changing"): Row(
        WARNING,
        "three shells, the middle one a remote shell that only starts ssh",
        FirstLook(2, 15, 0),
        held="the shared case jump.sh (`ssh gateway \"ssh internal-db '...'\"`)",
    ),
    ("HL111", "three-shells-escaped"): Row(
        INFO, "three shells, written with escapes for the outer ones"
    ),
    ("HL111", "three-shells-as-written"): Row(INFO, "three shells, it arrives as written"),
    # HL112 heredoc-terminator
    ("HL112", "near-miss-terminator"): Row(
        ERROR, "a line nearly the delimiter", FirstLook(14, 0, 4)
    ),
    ("HL112", "never-terminated"): Row(INFO, "no line is the delimiter", FirstLook(3, 1, 2)),
    ("HL112", "template-field"): Row(INFO, "a template's placeholder"),
    # HL201 shell-interpolation-unquoted
    ("HL201", "argv"): Row(INFO, "from the command line", FirstLook(0, 0, 4)),
    ("HL201", "cli-option"): Row(INFO, "a command-line option", FirstLook(1, 7, 22)),
    ("HL201", "request"): Row(INFO, "from an HTTP request", FirstLook(2, 1, 2)),
    ("HL201", "network"): Row(INFO, "read from the network", FirstLook(0, 0, 7)),
    ("HL201", "input"): Row(INFO, "read from input", FirstLook(11, 3, 18)),
    ("HL201", "environment"): Row(INFO, "from the environment", FirstLook(0, 0, 13)),
    ("HL201", "config"): Row(INFO, "from configuration", FirstLook(0, 1, 28)),
    ("HL201", "parameter"): Row(
        INFO,
        "a parameter of a public function, named as a path or free text",
        FirstLook(18, 8, 61),
    ),
    ("HL201", "parameter-host"): Row(
        WARNING,
        "a parameter of a public function, named as a host",
        FirstLook(0, 8, 8),
        held="the shared case remote_py.py (`ssh {host} uptime`, shell=True)",
    ),
    ("HL201", "parameter-url"): Row(
        INFO, "a parameter of a public function, named as a URL", FirstLook(0, 0, 17)
    ),
    ("HL201", "parameter-unknown"): Row(
        INFO,
        "a parameter of a public function, its name says nothing of what it holds",
        FirstLook(13, 29, 66),
    ),
    ("HL201", "restricted-name"): Row(
        INFO,
        "named as an identifier (a port, an id, a branch): one word in practice",
        FirstLook(1, 5, 84),
    ),
    ("HL201", "test-code"): Row(INFO, "in test code, not read from outside"),
    ("HL201", "parameter-in-double-quotes"): Row(INFO, "a parameter inside double quotes"),
    ("HL201", "private-parameter"): Row(INFO, "a parameter in a private module"),
    ("HL201", "example-only"): Row(INFO, "only called with a literal example"),
    ("HL201", "no-origin"): Row(INFO, "nothing shows where it comes from"),
    # HL202 runtime-heredoc-body
    ("HL202", "runtime-body"): Row(
        WARNING,
        "the body is built at run time",
        FirstLook(0, 6, 1),
        held="the shared case remote_py.py (`exec_command` of an f-string heredoc)",
    ),
}


# rule -> first-look findings of bench/corpus/batches.tsv that no row holds (see above).
UNPLACED: dict[str, FirstLook] = {"HL201": FirstLook(0, 0, 2)}


def graduated(look: FirstLook | None) -> bool:
    """Whether first-look figures earn a pair warning or error on measurement alone."""
    if look is None or look.findings < GRADUATE_FINDINGS:
        return False
    precision = look.precision
    return precision is not None and precision >= GRADUATE_PRECISION


def basis(row: Row) -> str:
    """What its severity stands on, in words: its first-look figures, or the contract."""
    look = row.first_look
    if look is None or not look.findings:
        seen = "no finding on a first look yet"
    else:
        precision = "-" if look.precision is None else f"{look.precision:.2f}"
        seen = (
            f"first look: {look.findings} findings, {look.tp} TP, {look.fp} FP, "
            f"{look.debatable} debatable, precision {precision}"
        )
    if row.severity is INFO or graduated(look):
        return seen
    if row.held:
        return f"{seen}; kept at {row.severity.value} by {row.held}"
    return f"{seen}; SPEC.md's default until measured on {GRADUATE_FINDINGS} findings"


def severity(code: str, evidence: str) -> Severity:
    """The default severity of a finding of `code` raised by `evidence`."""
    return TABLE[code, evidence].severity


def rows(code: str) -> list[tuple[str, Row]]:
    """The rule's rows: (evidence, row), in the table's order."""
    return [(evidence, row) for (c, evidence), row in TABLE.items() if c == code]


def highest(code: str) -> Severity:
    """The rule's highest default severity: the one its documentation names."""
    return max((row.severity for _, row in rows(code)), key=lambda s: s.rank)
