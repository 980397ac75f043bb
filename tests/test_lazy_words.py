"""Command.lazy_words: the command's words, each de-quoted when first read."""

from __future__ import annotations

from heredoc_lint.shell.syntax import LazyWords, parse_script


def test_lazy_words_are_the_words_read_one_by_one() -> None:
    text = "command sed -e 's/a/b/' \"$f\" x\\ y\n"
    (command,) = parse_script(text).commands
    lazy = command.lazy_words()
    assert isinstance(lazy, LazyWords)
    assert len(lazy) == 6
    assert lazy[1].value == "sed"
    assert lazy[-1].value == "x y"
    assert lazy[2:4] == command.words[2:4]
    assert tuple(lazy) == command.words


def test_lazy_words_of_words_already_read_are_those() -> None:
    (command,) = parse_script("ssh h 'ls -l'\n").commands
    words = command.words
    assert command.lazy_words() is words


def test_kept_lazy_words_are_the_commands_words() -> None:
    text = "A=1 B='2' ssh -p 22 h 'ls -l'\n"
    (command,) = parse_script(text).commands
    lazy = command.lazy_words()
    first = lazy[0]
    command.keep_words(lazy)
    assert command.words[0] is first
    (fresh,) = parse_script(text).commands
    assert command.words == fresh.words
    assert command.assignments == fresh.assignments
    assert [w.value for w in command.assignments] == ["A=1", "B=2"]
