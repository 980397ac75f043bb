"""The de-quoter, with bash as the oracle wherever a word is static.

Each static word is also handed to bash (`printf '%s\\0' WORD`, see test_oracle_bash.py),
which must print exactly `[word.received()]`: brace expansion is on unless the word is
flagged `braces`, pathname expansion is off.
"""

from __future__ import annotations

import random

import pytest
from test_oracle_bash import bash_argv

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
