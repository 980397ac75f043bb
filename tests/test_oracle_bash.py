"""Bash is the oracle: the de-quoter and the heredoc scanner agree with bash on the corpus.

Words: every static word of every simple command of the real corpus (argv words,
assignment words, redirection targets) is handed to bash as an argument of `printf
'%s\\0'`, verbatim from the source, with pathname expansion off; bash's NUL-separated
output must be exactly `[Word.received()]`.  Brace expansion is on for the words the
de-quoter does not flag with `braces` (so a missed flag shows up as extra arguments)
and off for the flagged ones.  A static word has no expansion, so evaluating its source
text runs nothing.

Heredocs: the file's text is wrapped in a function definition that bash parses but never
calls, and `declare -f` prints the function back; bash prints each here-document body
as it stored it (tabs of `<<-` stripped; for an unquoted delimiter, backslash-newlines
removed), followed by its delimiter line.  Every body bash prints must equal
`Heredoc.literal_value()` for a quoted delimiter and `Heredoc.read_value()` for an
unquoted one (the same string when the body has no backslash-newline); and bash's
"delimited by end-of-file" warnings must fall on the heredocs the scanner reports as
unterminated or ended by `EOF)`.

Nothing from the corpus is executed: bash only parses the corpus text (`bash -n`, the
function definition) and runs printf on words without expansions.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

import pytest
from corpus import CorpusFile, corpus_files, decode, encode

from heredoc_lint.shell.heredoc import Heredoc, mask_heredocs, scan_heredocs
from heredoc_lint.shell.syntax import Script, parse_script
from heredoc_lint.shell.words import Word

T = TypeVar("T")
R = TypeVar("R")

BASH = ("bash", "--norc", "--noprofile")
# Pathname expansion off: a static word is then its source text minus quoting.
# extglob on: bash-completion is written for it, and `@(a|b)` is a syntax error without.
PRELUDE = "set -f; set +B; shopt -s extglob\n"
END = "__heredoc_lint_end__"
FUNCTION = "__heredoc_lint_oracle"
WORDS_PER_BASH = 5000  # words per bash process: a few processes for the whole corpus
# `name=(...)`, `name+=(...)`: a compound array assignment (in `declare`, `local`, ...)
# is not an argument printf could take: bash hands it to the builtin unexpanded.
_COMPOUND_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=\(")
# Inside backticks bash removes the backslash of `\\`, `\``, `\$` (and `\"` within double
# quotes) before it parses the command: such a word's source is not the text bash parses.
_BACKTICK_ESCAPE = re.compile(r'\\[\\`$"]')
_EOF_WARNING = re.compile(r"here-document at line (\d+) delimited by end-of-file")


# -- the oracle (also used by test_words.py and test_heredoc.py) -------------------------


def run_bash(script: str, *, timeout: float = 120) -> tuple[int, str, str]:
    """Run a bash script given on stdin; return (exit code, stdout, stderr)."""
    result = subprocess.run(
        BASH,
        input=encode(script),
        capture_output=True,
        timeout=timeout,
        check=False,
        env={**os.environ, "LC_ALL": "C.UTF-8"},  # the de-quoter models a UTF-8 locale
    )
    return result.returncode, decode(result.stdout), decode(result.stderr)


def printf_line(source: str) -> str:
    """Lines printing the word written as `source`, then a \\1 separator."""
    # A `#` that starts a word starts a comment; an empty quoted prefix keeps it a word.
    prefix = '""' if source.replace("\\\n", "").startswith("#") else ""
    return f"printf '%s\\0' {prefix}{source}\nprintf '\\1\\0'\n"


def bash_argv(
    sources: Sequence[str], brace_expansion: Sequence[bool] | None = None
) -> list[list[str]] | None:
    """The arguments bash makes of each word written as in `sources`; None on an error.

    Pathname expansion is off; brace expansion is on for the words `brace_expansion`
    says (default: none).
    """
    lines = [PRELUDE]
    on = False
    for k, source in enumerate(sources):
        want = bool(brace_expansion and brace_expansion[k])
        if want != on:
            lines.append("set -B\n" if want else "set +B\n")
            on = want
        lines.append(printf_line(source))
    lines.append(f"printf '%s\\0' {END}\n")
    code, out, _ = run_bash("".join(lines))
    values = out.split("\0")
    if code != 0 or values[-2:] != [END, ""]:
        return None
    groups: list[list[str]] = [[]]
    for value in values[:-2]:
        if value == "\1":
            groups.append([])
        else:
            groups[-1].append(value)
    groups.pop()  # what follows the last separator: nothing
    return groups if len(groups) == len(sources) else None


def sh_single_quote(text: str) -> str:
    """bash's sh_single_quote: how `declare -f` prints a quoted heredoc delimiter."""
    return "'" + text.replace("'", "'\\''") + "'"


def function_listing(text: str) -> tuple[str | None, str]:
    """(`declare -f` of a function whose body is `text`, or None; bash's stderr).

    bash parses the definition and prints it back; the function is never called.
    """
    script = f"shopt -s extglob\n{FUNCTION}() {{\n{text}\n}}\ndeclare -f {FUNCTION}\n"
    code, out, err = run_bash(script)
    return (out if code == 0 and out else None), err


LISTING_FIRST_LINE = 3  # `text` starts on line 3 of the script above


@dataclass(frozen=True)
class HeredocQuery:
    """What a listing shows of a heredoc's operator, in its two possible spellings."""

    delimiter: str
    quoted: bool
    strip_tabs: bool
    source: str  # the operator as written: a backtick substitution is printed verbatim

    @classmethod
    def of(cls, heredoc: Heredoc, text: str) -> HeredocQuery:
        source = text[heredoc.op_start : heredoc.op_end]
        return cls(heredoc.delimiter, heredoc.quoted, heredoc.strip_tabs, source)

    @property
    def printed(self) -> str:
        word = sh_single_quote(self.delimiter) if self.quoted else self.delimiter
        return "<<" + ("-" if self.strip_tabs else "") + word


def _find_header(
    listing: str, query: HeredocQuery, start: int, taken: Callable[[int], bool]
) -> int | None:
    for header in (query.printed, query.source):
        at = listing.find(header, start)
        while at >= 0 and taken(at):
            at = listing.find(header, at + 1)
        if at >= 0:
            return at
    return None


def _body_in_listing(listing: str, start: int, delimiter: str) -> tuple[str, int, int] | None:
    """Read a body printed from `start` up to its delimiter line.

    Return (body, end of the delimiter, start of the next line).
    """
    pos = start
    while True:
        nl = listing.find("\n", pos)
        line_end = len(listing) if nl < 0 else nl
        line = listing[pos:line_end]
        # In a backtick substitution, printed as written, the closing backtick follows.
        if line == delimiter or line.startswith(delimiter + "`"):
            return listing[start:pos], pos + len(delimiter), line_end + 1
        if nl < 0:
            return None
        pos = nl + 1


def _read_listing(
    listing: str, queries: Sequence[HeredocQuery]
) -> tuple[list[str | None], list[tuple[int, int]]]:
    """The bodies `declare -f` printed for `queries` (None where one was not found),
    and their spans in the listing.

    `declare -f` prints a heredoc operator as `<<DELIM`, `<<-DELIM` or with the
    delimiter single-quoted; after the end of its line come, for each operator of the
    line in turn, the body as bash stored it and the delimiter alone on a line.

    Operators are searched in source order, skipping the bodies already read (which may
    hold `<<EOF` as text).  `declare -f` prints a command's words before its
    redirections, so an operator may come after one of a later heredoc (`cat <<A
    $(cat <<B ...)`): when it is not found after the previous one, the search starts
    again from the top.
    """
    bodies: list[str | None] = [None] * len(queries)
    read: list[tuple[int, int]] = []  # spans of the bodies read so far
    used: set[int] = set()  # operators found so far
    next_body: dict[int, int] = {}  # end of an operator line: where its next body starts

    def taken(at: int) -> bool:
        return at in used or any(a <= at < b for a, b in read)

    cursor = 0
    for index, query in enumerate(queries):
        at = _find_header(listing, query, cursor, taken)
        if at is None:
            at = _find_header(listing, query, 0, taken)
        nl = -1 if at is None else listing.find("\n", at)
        if at is None or nl < 0:
            continue
        used.add(at)
        cursor = at + 1
        start = next_body.get(nl, nl + 1)
        found = _body_in_listing(listing, start, query.delimiter)
        if found is not None:
            bodies[index], delimiter_end, next_body[nl] = found
            read.append((start, delimiter_end))
    return bodies, read


def bash_heredoc_bodies(listing: str, queries: Sequence[HeredocQuery]) -> list[str | None]:
    """The bodies `declare -f` printed for `queries` (see `_read_listing`)."""
    return _read_listing(listing, queries)[0]


def listing_code(listing: str, queries: Sequence[HeredocQuery]) -> str:
    """The listing with the bodies of `queries` (and their delimiters) blanked out."""
    chars = list(listing)
    for start, end in _read_listing(listing, queries)[1]:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def eof_warning_lines(stderr: str, first_line: int = LISTING_FIRST_LINE) -> set[int]:
    """Lines of `text` (1-based) whose heredoc bash says was delimited by end-of-file.

    `first_line` is the line of bash's input on which `text` starts.
    """
    return {int(m.group(1)) - first_line + 1 for m in _EOF_WARNING.finditer(stderr)}


def bash_warns_at_parse(heredoc: Heredoc, text: str) -> bool | None:
    """Does bash warn "delimited by end-of-file" when it parses this heredoc?

    It does for an unterminated one and for one ended by `EOF)`; None for a heredoc in
    backticks (it ends at the backtick), whose text bash parses only when it runs it.
    """
    after = text[heredoc.end : heredoc.end + 1]
    if after == "`":
        return None
    return not heredoc.terminated or after not in ("", "\n")


def warned_lines(heredocs: Sequence[Heredoc], text: str) -> set[int]:
    """The lines of the operators bash should warn about (see `bash_warns_at_parse`)."""
    return {text.count("\n", 0, h.op_start) + 1 for h in heredocs if bash_warns_at_parse(h, text)}


def expected_body(heredoc: Heredoc, text: str) -> str:
    """What bash stores for the body: the literal text, or for an unquoted delimiter
    the text with backslash-newlines removed."""
    return heredoc.literal_value(text) if heredoc.quoted else heredoc.read_value(text)


# -- the corpus, parsed ------------------------------------------------------------------


@dataclass(frozen=True)
class Parsed:
    file: CorpusFile
    script: Script | None
    crash: str | None  # the exception parse_script raised


@dataclass(frozen=True)
class ParsedCorpus:
    files: tuple[Parsed, ...]
    seconds: float  # collecting and parsing


def _parse(file: CorpusFile) -> Parsed:
    try:
        return Parsed(file, parse_script(file.text), None)
    except Exception as exc:  # noqa: BLE001 - every crash is reported by the test
        return Parsed(file, None, f"{type(exc).__name__}: {exc}")


@pytest.fixture(scope="module")
def corpus() -> ParsedCorpus:
    started = time.perf_counter()
    files = tuple(_parse(f) for f in corpus_files())
    return ParsedCorpus(files, time.perf_counter() - started)


def _report(
    capsys: pytest.CaptureFixture[str],
    record: Callable[[str, object], None],
    title: str,
    stats: dict[str, object],
) -> None:
    """Show the counts in the test output (even without -s) and in the JUnit report."""
    for key, value in stats.items():
        record(key, value)
    with capsys.disabled():
        print(f"\n[{title}] " + ", ".join(f"{k}={v}" for k, v in stats.items()))


def _parallel(function: Callable[[T], R], items: Sequence[T]) -> list[R]:
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        return list(pool.map(function, items))


# -- choosing the words ------------------------------------------------------------------


@dataclass(frozen=True)
class WordCase:
    file: str
    word: Word
    source: str

    def describe(self, got: object) -> str:
        return (
            f"{self.file}:{self.word.start}: source {self.source!r}: "
            f"de-quoter {self.word.received()!r}, bash {got!r}"
        )


def backtick_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the backtick command substitutions, as tree-sitter sees them."""
    if "`" not in text:
        return []
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    data = mask_heredocs(text, scan_heredocs(text)).encode("utf-8", "surrogateescape")
    tree = Parser(Language(tree_sitter_bash.language())).parse(data)

    def char(byte: int) -> int:
        return len(data[:byte].decode("utf-8", "surrogateescape"))

    spans = []
    stack = [tree.root_node]
    while stack:
        node = stack.pop()
        if node.type == "command_substitution" and data[node.start_byte] == ord("`"):
            spans.append((char(node.start_byte), char(node.end_byte)))
        stack.extend(node.children)
    return spans


def _exclusion(
    script: Script, word: Word, source: str, backticks: list[tuple[int, int]]
) -> str | None:
    """Why a static word is not compared, or None.  Each reason is narrow and counted."""
    if could_run_code(source):
        return "safety: a substitution outside single quotes (never evaluated)"
    if any(e.start < word.end and word.start < e.end for e in script.errors):
        return "in a tree-sitter ERROR region"
    if _COMPOUND_ASSIGNMENT.match(source):
        return "compound array assignment (not a printf argument)"
    if _BACKTICK_ESCAPE.search(source) and any(a < word.start < b for a, b in backticks):
        return 'inside backticks with \\\\ \\` \\$ \\" (bash un-escapes them first)'
    return None


def could_run_code(source: str) -> bool:
    """Does `source` hold `$(` or a backtick outside single quotes, or an unquoted `<(`
    or `>(`?

    A guard independent of the de-quoter: should it ever call a word with a command
    substitution static, the oracle still never hands that word to bash.  (`$'...'` is
    read like double quotes here: too careful is fine.)
    """
    in_double = False
    i = 0
    while i < len(source):
        c = source[i]
        if c == "\\":
            i += 2
            continue
        if c == '"':
            in_double = not in_double
        elif c == "'" and not in_double and not source[:i].endswith("$"):
            close = source.find("'", i + 1)
            i = len(source) if close < 0 else close + 1
            continue
        elif (
            c == "`"
            or source.startswith("$(", i)
            or (not in_double and source.startswith(("<(", ">("), i))
        ):
            return True
        i += 1
    return False


def _words(script: Script) -> Iterator[Word]:
    seen: set[tuple[int, int]] = set()
    for command in script.commands:
        targets = [r.target for r in command.redirects if r.target is not None]
        for word in (*command.words, *command.assignments, *targets):
            if (word.start, word.end) not in seen:  # outer redirections repeat per command
                seen.add((word.start, word.end))
                yield word


def word_cases(corpus: ParsedCorpus) -> tuple[list[WordCase], Counter[str]]:
    cases: list[WordCase] = []
    excluded: Counter[str] = Counter()
    for parsed in corpus.files:
        script = parsed.script
        if script is None:
            continue
        backticks = backtick_spans(script.text)
        for word in _words(script):
            if not word.static:
                excluded["not static (not compared)"] += 1
                continue
            source = script.text[word.start : word.end]
            reason = _exclusion(script, word, source, backticks)
            if reason is None:
                cases.append(WordCase(parsed.file.name, word, source))
            else:
                excluded[reason] += 1
    return cases, excluded


def _evaluate(cases: Sequence[WordCase]) -> list[list[str] | None]:
    """bash's arguments for each case; None for a word bash could not evaluate."""
    got = bash_argv([c.source for c in cases], [not c.word.braces for c in cases])
    if got is not None:
        return list(got)
    if len(cases) == 1:
        return [None]
    middle = len(cases) // 2  # find the culprit by halves
    return _evaluate(cases[:middle]) + _evaluate(cases[middle:])


# -- the tests ---------------------------------------------------------------------------


def test_bash_argv_reads_words_as_bash() -> None:
    words = ["a", "'b c'", "#x", "$'\\x41\\n'", '"\\$"', "a{b,c}", "''"]
    assert bash_argv(words, [False, False, False, False, False, True, False]) == [
        ["a"],
        ["b c"],
        ["#x"],
        ["A\n"],
        ["$"],
        ["ab", "ac"],
        [""],
    ]
    assert bash_argv(["'unbalanced"]) is None


def test_safety_guard_sees_every_substitution() -> None:
    for source in ['"$(x)"', "a`x`", "<(x)", "\"'$(x)'\"", '"<("$(x)', "$'\\'$(x)'"]:
        assert could_run_code(source), source
    for source in ["'$(x)'", "\\$(x)", "'`'", '"<(x)"', "a\\`"]:
        assert not could_run_code(source), source


def test_listing_shows_bodies_as_bash_stored_them() -> None:
    text = (
        "cat <<'EOF'; echo done\na $x\n\\b\nEOF\n"
        'cat <<A <<-"B" | tr a b\none\\\ntwo\nA\n\t\tthree\n\tB\n'
        "x=$(cat <<EOF\nin sub\nEOF\n)\n"
        "cat <<A $(cat <<B\nbB\nB\n)\nbA\nA\n"
    )
    listing, err = function_listing(text)
    assert listing is not None, err
    queries = [
        HeredocQuery.of(h, text) for h in sorted(scan_heredocs(text), key=lambda h: h.op_start)
    ]
    assert bash_heredoc_bodies(listing, queries) == [
        "a $x\n\\b\n",
        "onetwo\n",
        "three\n",
        "in sub\n",
        "bA\n",
        "bB\n",
    ]


def test_corpus_is_real() -> None:
    names = [f.name for f in corpus_files()]
    assert len(names) > 300, names
    assert any(n.endswith("/bash_completion") for n in names)
    assert any(n.startswith("/usr/bin/") for n in names)


def structure_suspects(script: Script) -> Iterator[tuple[str, int]]:
    """Where tree-sitter's split of a simple command into words cannot be bash's.

    Between two words of one command bash needs a blank, and an unescaped newline ends
    the command.  tree-sitter-bash 0.25 splits `$A/$B/c` into `$A/$` and `B/c`
    (upstream issues #306, #315), `unset a[0]` into `a` and `[0]`, and `a\\<newline>b`
    into two words; and it sometimes runs a command on past a newline.  Each word still
    de-quotes right (the word oracle cannot see this); the command they make up is
    wrong.  Reported, not failed: this is syntax.py's to repair.
    """
    text = script.text
    for command in script.commands:
        words = sorted((*command.words, *command.assignments), key=lambda w: w.start)
        for before, after in zip(words, words[1:], strict=False):
            gap = text[before.end : after.start].replace("\\\n", "")
            if "\n" in gap:
                yield "words of one command across a newline", before.end
            elif " " not in gap and "\t" not in gap:
                yield "one bash word split in two (no blank between)", before.end


def test_corpus_parses_without_crash(
    corpus: ParsedCorpus,
    capsys: pytest.CaptureFixture[str],
    record_property: Callable[[str, object], None],
) -> None:
    crashes = [f"{p.file.name}: {p.crash}" for p in corpus.files if p.crash is not None]
    suspects: Counter[str] = Counter()
    examples: list[str] = []
    for parsed in corpus.files:
        for kind, at in structure_suspects(parsed.script) if parsed.script else ():
            suspects[kind] += 1
            examples.append(f"{parsed.file.name}:{at}")
    _report(
        capsys,
        record_property,
        "corpus",
        {
            "files": len(corpus.files),
            "with_parse_errors": sum(1 for p in corpus.files if p.script and p.script.errors),
            "parse_seconds": round(corpus.seconds, 2),
            **{f"syntax.py: {k}": v for k, v in sorted(suspects.items())},
            "e.g.": " ".join(examples[:3]),
        },
    )
    assert not crashes, "\n".join(crashes)


def test_static_words_agree_with_bash(
    corpus: ParsedCorpus,
    capsys: pytest.CaptureFixture[str],
    record_property: Callable[[str, object], None],
) -> None:
    started = time.perf_counter()
    cases, excluded = word_cases(corpus)
    chunks = [cases[k : k + WORDS_PER_BASH] for k in range(0, len(cases), WORDS_PER_BASH)]
    got = [args for chunk_result in _parallel(_evaluate, chunks) for args in chunk_result]
    mismatches = [
        case.describe(args)
        for case, args in zip(cases, got, strict=True)
        if args != [case.word.received()]
    ]
    _report(
        capsys,
        record_property,
        "words",
        {
            "files": len(corpus.files),
            "words_compared": len(cases),
            "mismatches": len(mismatches),
            "brace_flagged": sum(1 for c in cases if c.word.braces),
            "seconds": round(time.perf_counter() - started, 2),
            **{f"excluded: {k}": v for k, v in sorted(excluded.items())},
        },
    )
    assert len(cases) > 10_000
    assert not mismatches, f"{len(mismatches)} mismatches:\n" + "\n".join(mismatches[:200])


@dataclass(frozen=True)
class HeredocResult:
    compared: int
    literal: int  # quoted, or no `$`, backtick or backslash in the body
    problems: tuple[str, ...]


def _check_heredocs(parsed: Parsed) -> HeredocResult:
    script = parsed.script
    assert script is not None
    text, name = script.text, parsed.file.name
    heredocs = sorted(script.heredocs, key=lambda h: h.op_start)
    listing, err = function_listing(text)
    if listing is None:
        return HeredocResult(0, 0, (f"{name}: bash could not list the function: {err}",))
    problems = []
    queries = [HeredocQuery.of(h, text) for h in heredocs]
    bodies = bash_heredoc_bodies(listing, queries)
    literal = 0
    for heredoc, body in zip(heredocs, bodies, strict=True):
        expected = expected_body(heredoc, text)
        if heredoc.quoted or not re.search(r"[$`\\]", heredoc.literal_value(text)):
            literal += 1
        if body != expected:
            problems.append(
                f"{name}:{heredoc.op_start}: <<{heredoc.delimiter!r}: "
                f"scanner {expected[:400]!r}, bash {None if body is None else body[:400]!r}"
            )
    warned = eof_warning_lines(err)
    ours = warned_lines(heredocs, text)
    if warned != ours:
        problems.append(
            f"{name}: bash warns of EOF-delimited heredocs on lines "
            f"{sorted(warned)}, the scanner on {sorted(ours)}"
        )
    return HeredocResult(len(heredocs), literal, tuple(problems))


def test_heredoc_bodies_agree_with_bash(
    corpus: ParsedCorpus,
    capsys: pytest.CaptureFixture[str],
    record_property: Callable[[str, object], None],
) -> None:
    started = time.perf_counter()
    with_heredocs = [p for p in corpus.files if p.script is not None and p.script.heredocs]
    results = _parallel(_check_heredocs, with_heredocs)
    problems = [line for r in results for line in r.problems]
    _report(
        capsys,
        record_property,
        "heredocs",
        {
            "files": len(with_heredocs),
            "bodies_compared": sum(r.compared for r in results),
            "literal_bodies": sum(r.literal for r in results),
            "mismatches": len(problems),
            "seconds": round(time.perf_counter() - started, 2),
        },
    )
    assert sum(r.compared for r in results) > 20
    assert not problems, "\n".join(problems)
