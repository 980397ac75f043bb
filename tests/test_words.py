"""The de-quoter, with bash as the oracle wherever a word is static.

Each static word is also handed to bash (`printf '%s\\0' WORD`, see test_oracle_bash.py),
which must print exactly `[word.received()]`: brace expansion is on unless the word is
flagged `braces`, pathname expansion is off.
"""

from __future__ import annotations

import random
import shlex
import subprocess
from pathlib import Path

import pytest
from cli_process import CLI
from rulekit import bash_bytes, bash_stdout
from sshd import SshServer
from test_oracle_bash import bash_argv

from heredoc_lint.engine import check_shell
from heredoc_lint.shell.syntax import parse_script
from heredoc_lint.shell.words import Quoting, Word, dequote

DEL = "\x7f"


def word(source: str) -> Word:
    return dequote(source, 0, len(source))


# (source, the value bash passes on)
STATIC = [
    ("plain", "plain"),
    ("'a'\\''b'", "a'b"),
    ('"a\\n"', "a\\n"),  # inside double quotes `\n` is two characters
    ('"\\a\\b\\\\\\$\\`\\""', '\\a\\b\\$`"'),
    ("$'\\x41\\n\\t\\''", "A\n\t'"),
    ("$'\\c?'", DEL),  # bash's TOCTRL: `?` is DEL, not 0x1f
    ("$'\\cA\\ca\\c['", "\x01\x01\x1b"),
    ("$'\\c\\\\x'", "\x1cx"),
    ("$'\\c\u00e9'", "\x03\udca9"),  # the first byte of a UTF-8 character
    ("$'\\c'", "\\c"),  # `\c` ending the string stays
    ("$'\\c'x", "\\cx"),
    ("$'a\\0b'c", "ac"),  # a NUL ends the $'...' string, not the word
    ("$'a\\c@b'c", "ac"),
    ("$'\\u00e9\\U0001F600'", "\u00e9\U0001f600"),
    ("$'\\xc3\\xa9'", "\u00e9"),  # bytes that make UTF-8 together
    ("$'\\xe9'", "\udce9"),  # a stray byte: its surrogate escape
    ("$'\\351\\777'", "\udce9\udcff"),
    ("$'\\x'", "\\x"),
    ("$'\\xZ'", "\\xZ"),
    ("$'\\u'", "\\u"),
    ("$'\\x414'", "A4"),
    ("$'\\q\\8'", "\\q\\8"),
    ("$'\\U110000'", "\udcf4\udc90\udc80\udc80"),  # beyond Unicode: bash's bytes anyway
    ("$'\\uD800'", "\udced\udca0\udc80"),
    ("$'\\UFFFFFFFF'x", "x"),
    ("$'\\e\\E\\a\\b\\f\\v\\r\\?\\\"'", '\x1b\x1b\x07\x08\x0c\x0b\r?"'),
    ("$'a\\\nb'", "a\\\nb"),
    ('$"a b"', "a b"),
    ("a\\\nb", "ab"),  # line continuation, outside quotes
    ('"a\\\nb"', "ab"),  # inside double quotes: gone for the callee too
    ("'a\\\nb'", "a\\\nb"),
    ("\\$x", "$x"),
    ('"\\$x"', "$x"),
    ("'$x'", "$x"),
    ("a$", "a$"),
    ('"a$"', "a$"),
    ("$/x", "$/x"),
    ('"$\'"', "$'"),  # no $'...' inside double quotes
    ("\"a\"'b'c\\ d", "abc d"),
    ("''", ""),
    ('""', ""),
    ("\\\\", "\\"),
    ("'\\'", "\\"),
    ("#x", "#x"),
    ("x:~", "x:~"),  # a tilde after `:` only counts in an assignment word
    ("~'x'", "~x"),  # a quoted tilde prefix is no tilde expansion
    ("~\\/x", "~/x"),
    ("~:'x'", "~:x"),
    ("a==~", "a==~"),  # only the first `=`
    ("'a'=~", "a=~"),  # not an assignment word
    ("a\\=~", "a=~"),
    ("a=\\~", "a=~"),
    ("a=b:\\~", "a=b:~"),
    ("a=b:'~'", "a=b:~"),
    ("1a=~", "1a=~"),
    ("*.c", "*.c"),
    ("@(a|b)", "@(a|b)"),
    ("'{a,b}'", "{a,b}"),
    ("a{b}", "a{b}"),
    ("{}", "{}"),
    ("a{b,c}", "a{b,c}"),  # flagged `braces`: compared with brace expansion off
    ("{1..3}", "{1..3}"),
    ("\\${a,b}", "${a,b}"),  # an escaped `$`: brace expansion after all
]

NOT_STATIC = [
    "~",
    "~/x",
    "~root",
    "a=~",
    "a=~/x:~/y",
    "a=x:~",
    "a+=~",
    "a[1]=~",
    "a=~:'x'",
    "x$y",
    '"$y"',
    "zfoo$$",  # tree-sitter misses this `$$`; the de-quoter does not
    "${x}",
    "$(echo)",
    "`echo`",
    "$((1))",
    "$[1]",
    "$1",
    "$@",
]


@pytest.mark.parametrize(("source", "value"), STATIC)
def test_static_words(source: str, value: str) -> None:
    w = word(source)
    assert w.static, w.expansions
    assert w.received() == value


def test_static_words_agree_with_bash() -> None:
    words = [word(s) for s, _ in STATIC]
    got = bash_argv([s for s, _ in STATIC], [not w.braces for w in words])
    assert got is not None
    for (source, _), w, args in zip(STATIC, words, got, strict=True):
        assert args == [w.received()], source


@pytest.mark.parametrize("source", NOT_STATIC)
def test_expansions_make_words_not_static(source: str) -> None:
    assert not word(source).static


def test_tilde_expansion_spans_the_login_name() -> None:
    w = word("a=~root/x:~")
    assert [(e.kind, e.name, w.value[e.start : e.end]) for e in w.expansions] == [
        ("tilde", "root", "~root"),
        ("tilde", "", "~"),
    ]


def test_fallback_expansions_keep_their_source() -> None:
    w = word("zfoo$$x")
    assert w.value == "zfoo$$x"
    assert [(e.kind, e.name, e.start, e.end) for e in w.expansions] == [("special", "$", 4, 6)]


def test_flags() -> None:
    assert word("*.c").globbing and not word("'*'.c").globbing
    assert word("@(a|b)").globbing and word("+(x)").globbing
    assert word("a{b,c}").braces and word("{1..3}").braces
    assert not word("{}").braces and not word("'{a,b}'").braces and not word("${a,b}").braces
    assert word("'a'b").quoting == {Quoting.SINGLE, Quoting.UNQUOTED}
    assert word("$'a'\"b\"\\c").quoting == {Quoting.ANSI, Quoting.DOUBLE, Quoting.ESCAPED}


def test_continuations_are_kept_in_the_value() -> None:
    w = word('"a\\\nb"')
    assert w.value == "a\\\nb"
    assert w.continuations == (1,)
    assert w.received() == "ab"


# -- the offset map ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "offsets"),
    [
        ("'a'\\''b'", [1, 4, 6]),
        ('x"y\\"z"', [0, 2, 4, 5]),
        ("a\\\nb", [0, 3]),
        ("$'\\x41\\n'", [2, 6]),
        ("$'\\xc3\\xa9z'", [2, 10]),  # a character made of two escapes: the first one
        ("$'a\\0b'c", [2, 7]),
        ('"\\\\$"', [2, 3]),
    ],
)
def test_offsets_point_at_the_source(source: str, offsets: list[int]) -> None:
    w = word(source)
    assert list(w.offsets) == [*offsets, len(source)]


def test_offsets_inside_a_longer_text() -> None:
    text = "echo 'a b'\"c\" $'\\td' x=~ \\\\y\n"
    script = parse_script(text)
    (command,) = script.commands
    for w in command.words:
        assert len(w.offsets) == len(w.value) + 1
        assert w.offsets[-1] == w.end
        for ch, at in zip(w.value, w.offsets, strict=False):
            assert w.start <= at < w.end
            source = text[at]
            assert source == ch or (source == "\\" and ch == "\t"), (w, ch, at)
    assert [w.value for w in command.words] == ["echo", "a bc", "\td", "x=~", "\\y"]


# -- random words ----------------------------------------------------------------------

_PLAIN = "abcz019_-.,/:=@%+~{}[]*?!#^"
_INNER = "ab '\"\\$`!\t\n*?~{},"


def _random_piece(rng: random.Random) -> str:
    kind = rng.randrange(7)
    inner = "".join(rng.choice(_INNER) for _ in range(rng.randrange(4)))
    if kind == 0:
        return "".join(rng.choice(_PLAIN) for _ in range(rng.randrange(1, 4)))
    if kind == 5:  # assignment words and tildes: `a=~`, `x[1]+=`, `:~`
        return rng.choice(
            ["a=", "x_1+=", "x[1]=", "~", ":~", "=~", "~/", "~root", "{a,b}", "{1..2}", "{,}"]
        )
    if kind == 1:
        return "'" + inner.replace("'", "") + "'"
    if kind == 2:  # double quotes: escape what would end or expand
        body = inner.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$")
        return '"' + body.replace("`", "\\`") + '"'
    if kind == 3:
        return "\\" + rng.choice(_INNER.replace("\n", "") + "ab")
    if kind == 4:
        escapes = ["\\x41", "\\n", "\\'", "\\c?", "\\u00e9", "\\351", "\\q", "\\\\", "\\0x"]
        return "$'" + "".join(rng.choice(escapes + ["a", '"']) for _ in range(3)) + "'"
    return rng.choice(["\\\n", "$/", '$"a"', "$\\\n'\\ta'", '$\\\n"a"'])


def random_word(rng: random.Random) -> str:
    """A word of random quoting pieces, balanced whatever the order."""
    pieces = [_random_piece(rng) for _ in range(rng.randrange(1, 6))]
    if rng.randrange(4) == 0:
        pieces.append("a$")  # a trailing dollar is literal; before a quote it is not
    return "".join(pieces)


def test_random_static_words_agree_with_bash() -> None:
    rng = random.Random(20240611)
    sources: list[str] = []
    while len(sources) < 2000:
        source = random_word(rng)
        if word(source).static:
            sources.append(source)
    words = [word(s) for s in sources]
    got = bash_argv(sources, [not w.braces for w in words])
    assert got is not None
    bad = [
        (s, w.received(), g)
        for s, w, g in zip(sources, words, got, strict=True)
        if g != [w.received()]
    ]
    assert not bad, bad[:20]


# -- shell/syntax.py: a `$` that starts no expansion is a plain character -------------------


@pytest.mark.parametrize(
    "command",
    [
        "args -f app$; true",
        "args a$|cat",
        "args a$ && true",
        'args "a$" b$>/dev/null c',
        "args $",
        "(args a$)",
        "args x=$; true",
        "args \\$; true",
    ],
)
def test_a_lone_dollar_is_part_of_its_word_as_bash_reads_it(command: str, tmp_path: Path) -> None:
    """`app$;`: bash passes `app$` (a `$` before `;`, `|`, `&`, `)`, `>`, a blank or the
    end starts no expansion); the words of the command are bash's, and the script has no
    parse error.  (tree-sitter-bash made an ERROR of `$;` and dropped a bare `$`.)"""
    log = tmp_path / "argv"
    define = f"args() {{ printf '%s\\0' \"$@\" >> {log}; }}\n"
    subprocess.run(["bash", "-c", define + command], cwd=tmp_path, check=True)
    script = parse_script(command)
    (args,) = [c for c in script.commands if c.name == "args"]
    assert [w.value for w in args.words[1:]] == log.read_text().split("\0")[:-1]
    assert script.errors == ()


# -- shell/words.py: `$'\U...'` beyond Unicode, in bash's UTF-8 extended to 31 bits ---------


# bash decodes `\U` escapes for the locale's encoding; the de-quoter models UTF-8.


# Each code point on either side of a limit where the UTF-8 sequence grows by a byte, up to
# bash's 31-bit extension (0x80000000 and beyond give no byte at all).
_CODES = (
    "7F", "80", "7FF", "800", "FFFF", "10000", "1FFFFF", "200000",
    "3FFFFFF", "4000000", "7FFFFFFF", "80000000",
)  # fmt: skip


_ESCAPED = "x$'" + "|".join(f"\\U{code}" for code in _CODES) + "'x"


def test_the_fix_delivers_the_bytes_bash_makes_of_a_unicode_escape(
    sshd: SshServer, tmp_path: Path
) -> None:
    """`ssh h echo x$'\\U3FFFFFF|...'x`: HL106's fix quotes the word's value for the
    remote shell, so the value must be the bytes bash makes of each `\\U` escape: its
    u32toutf8 writes 0x3FFFFFF in five bytes (fb bf bf bf bf), 0x4000000 in six, and
    nothing at all from 0x80000000.  The fixed script, run against the real sshd, prints
    what the local `printf` prints.  (Run 7: the limit of the five-byte form moved by one
    wrote 0x3FFFFFF in six.)"""
    script = tmp_path / "remote.sh"
    script.write_bytes(f"ssh {sshd.user}@gpu echo {_ESCAPED}\n".encode())
    subprocess.run(
        [*CLI, "--no-cache", "--severity", "info", "--fix", "--unsafe-fixes", str(script)],
        capture_output=True,
        check=False,
        timeout=60,
    )
    fixed = script.read_bytes()
    assert fixed.startswith(f"ssh {sshd.user}@gpu \"echo 'x".encode()), fixed
    local = bash_bytes(f"printf '%s\\n' {_ESCAPED}")
    assert b"|\xfb\xbf\xbf\xbf\xbf|" in local  # bash's own five-byte form of 0x3FFFFFF
    assert bash_bytes(script, sshd.env()) == local


# -- dequote without parser nodes: the expansions it finds are the ones bash runs ----------


def _bash_value(word_source: str) -> bytes:
    proc = subprocess.run(
        ["bash", "-c", f"a=A; set -- p1 p2 p3; printf '<%s>' {word_source}"],
        capture_output=True,
        stdin=subprocess.DEVNULL,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def _assert_reassembles(source: str, word: Word) -> None:
    assert word.expansions
    parts: list[str] = []
    k = 0
    for e in word.expansions:
        parts.append(shlex.quote(word.value[k : e.start]))
        a, b = word.offsets[e.start], word.offsets[e.end - 1] + 1
        assert source[a:b] == word.value[e.start : e.end]
        parts.append(f'"{source[a:b]}"')
        if source[a:b] in (f"${e.name}", f"${{{e.name}}}"):
            # The name is the one bash reads: `${NAME}` gives the same value.
            assert _bash_value(f'"${{{e.name}}}"') == _bash_value(f'"{source[a:b]}"')
        k = e.end
    parts.append(shlex.quote(word.value[k:]))
    assert _bash_value("".join(parts)) == _bash_value(source[word.start : word.end])


@pytest.mark.parametrize(
    "source",
    [
        "x$(echo a)y",
        "x$(echo $(echo b)c)y",
        "x$(echo \\))y",
        '"x$(echo a)"y',
        "x${a}y",
        "x${a:-(b)}y",
        "x$((1+(2*3)))y",
        "x$[1+(2)]y",
        "x`echo a`y",
        "x`echo \\`echo a\\``y",
        '"x`echo a`"y',
    ],
)
def test_fallback_expansion_spans_are_what_bash_expands(source: str) -> None:
    """Without parser nodes `dequote` finds each expansion itself.  Re-assembling the word
    from its literal characters (single-quoted) and each expansion's exact source text
    (double-quoted) must make bash print what the word itself prints."""
    _assert_reassembles(source, dequote(source, 0, len(source)))


@pytest.mark.parametrize("source", ["x$10y", "$1y", "${10}", '"$12"', "$0$1", "${a}$2$a"])
def test_parsed_expansion_spans_are_what_bash_expands(source: str) -> None:
    """The same through the parser: `$10` is `$1` and a `0` (bash takes one digit)."""
    (command,) = parse_script(f"echo {source}\n").commands
    _assert_reassembles(f"echo {source}\n", command.words[1])


@pytest.mark.parametrize("source", ['"$y $z"', '"${y} ${z}"', '"${y}  $(date)"', '"a\n\t`b`"'])
def test_an_expansion_after_a_blank_in_double_quotes_starts_at_its_dollar(source: str) -> None:
    """tree-sitter starts such a node at the blank before it: the expansion (what a
    message shows, what a fix replaces, where a Python value is looked up) is the `$...`."""
    command = parse_script(f"echo {source}\n").commands[0]
    word = command.words[1]
    assert len(word.expansions) == 2 - source.startswith('"a')
    assert all(word.value[e.start] in "$`" for e in word.expansions)
    _assert_reassembles(f"echo {source}\n", word)


@pytest.mark.parametrize("after", ["", "$", '"', "\\"])
def test_dequote_reads_nothing_past_the_end_of_its_word(after: str) -> None:
    """A word cut inside double quotes right after a backslash (an unfinished line in an
    editor): the backslash stays, and the character after the word is never read."""
    text = '"a\\' + after
    word = dequote(text, 0, 3)
    assert (word.value, word.offsets) == ("a\\", (1, 2, 3))


@pytest.mark.parametrize(
    ("source", "prefix"),
    [
        ("~root~x", "~root~x"),  # one login name `root~x`: no such user, kept
        ("~root=~x", "~root"),  # the login name ends at `=~`
        ("~root:x", "~root"),
        ("~root/x", "~root"),
        ("~nosuchuser/x", "~nosuchuser"),
    ],
)
def test_tilde_prefix_ends_where_bash_ends_the_login_name(source: str, prefix: str) -> None:
    """The tilde expansion dequote finds, expanded by bash on its own and followed by the
    rest of the word, is what bash makes of the whole word."""
    word = dequote(source, 0, len(source))
    (tilde,) = word.expansions
    assert (tilde.kind, tilde.start) == ("tilde", 0)
    found = source[: word.offsets[tilde.end - 1] + 1]
    assert found == prefix
    rest = source[len(found) :].encode()
    assert _bash_value(source) == b"<" + _bash_value(found)[1:-1] + rest + b">"


# -- $'...': an octal escape takes at most three digits -----------------------------------


def _word(source: str) -> str:
    return dequote(source, 0, len(source)).value


@pytest.mark.parametrize(
    "source", ["$'\\1234'", "$'a\\0404'", "$'\\101\\1011'", "$'\\7'", "$'\\77x'", "$'\\0777'"]
)
def test_ansi_octal_escape_reads_three_digits_like_bash(source: str) -> None:
    expected = bash_stdout(f"printf %s {source}").decode("utf-8", "surrogateescape")
    assert _word(source) == expected


def test_ansi_octal_space_splits_on_the_remote_side() -> None:
    """`$'a\\0404'` is `a 4` (octal 040 is a space): ssh joins it and the remote shell
    splits it into two arguments, which HL106 reports at `ssh`."""
    text = "ssh h touch $'a\\0404'\n"
    (f,) = [f for f in check_shell(text, "t.sh") if f.code == "HL106"]
    assert (f.start, f.end) == (0, 3)
    assert "arrives as 2 separate arguments (`a`, `4`)" in f.message


# -- pathname expansion: which words does bash glob? ----------------------------------------


@pytest.mark.parametrize(
    "source",
    ["a[b]", "'a[b]'", "a\\[b]", '"a[b]"', "a*", "'a*'", "a?b", "x[b]y", "x'['b]y", "ab"],
)
def test_globbing_flag_agrees_with_bash(source: str, tmp_path: Path) -> None:
    """In a directory where each pattern matches a file, bash expands exactly the words
    whose `[`, `*` or `?` is unquoted."""
    for name in ("ab", "axb", "xby"):
        (tmp_path / name).write_text("")
    globbed = bash_stdout(f"printf '%s\\n' {source}", cwd=tmp_path)
    literal = bash_stdout(f"set -f; printf '%s\\n' {source}", cwd=tmp_path)
    assert dequote(source, 0, len(source)).globbing is (globbed != literal)
