"""HL106 ssh-argument-rejoin: ssh joins its command words and the remote shell re-splits.

Anchors are computed from the text. The fix (unsafe; display-only when a word holds a
local expansion) passes the remote command as one string with each argument quoted for
the remote shell; it is re-checked and applied twice. Against the real sshd, the remote
`ls` receives two arguments for `"my dir"`, and one after the fix.
"""

from __future__ import annotations

import stat
import subprocess
from pathlib import Path

import pytest
import rulekit as kit
from sshd import SshServer, run_local

from heredoc_lint.engine import Settings, check_shell
from heredoc_lint.layers.layer import file_layer, string_layer
from heredoc_lint.layers.wrappers import resolve
from heredoc_lint.model import Applicability, Finding, Severity
from heredoc_lint.rules.hl106_ssh_argument_rejoin import INVALID, fates
from heredoc_lint.shell.syntax import parse_script
from heredoc_lint.shell.words import dequote

CODE = "HL106"


def hl106(text: str) -> list[Finding]:
    return kit.findings(text, CODE)


# Positives, negatives and fixes: INVALID and VALID in the rule's module.
def test_every_example_says_that_ssh_rejoins_the_words() -> None:
    for example in INVALID:
        (f,) = hl106(example.text)
        assert "ssh joins the" in f.message and "splits the string again" in f.message


# nested: the inner ssh's words, inside the outer ssh string (not the text's first `ssh`)
NESTED = "ssh gw \"ssh inner ls 'my dir'\"\n"


def test_positive_anchor_of_a_nested_ssh() -> None:
    f = kit.assert_single(hl106(NESTED), kit.span_of(NESTED, "ssh inner"), Severity.INFO)
    assert "ssh joins the" in f.message and "splits the string again" in f.message
    assert "`my dir`" in f.message


def test_a_split_assignment_word_is_a_warning() -> None:
    """Its INVALID examples (`assigns only`) are warnings of their own evidence."""
    split = [e for e in INVALID if "assigns only" in e.says]
    assert len(split) == 4
    for example in split:
        f = kit.assert_single(hl106(example.text), (0, 3), Severity.WARNING)
        assert f.evidence == "split-assignment"


def test_a_split_assignment_is_fixed_in_its_value_alone() -> None:
    """Quoted whole, `'REASON=a b'` would be a command's name: the name stays bare."""
    kit.assert_display_only(
        'ssh h "A=${A:-x}" "REASON=${REASON:-routine worker rollout}" ./deploy\n',
        CODE,
        "\"A=${A:-x} REASON='${REASON:-routine worker rollout}' ./deploy\"",
    )


def test_a_default_with_a_blank_is_split_when_the_variable_is_unset() -> None:
    text = 'ssh h ls "${DIR:-/srv/my dir}"\n'
    f = kit.assert_single(hl106(text), kit.span_of(text, "ssh h"), Severity.INFO)
    assert "with `DIR` unset, `/srv/my dir` arrives as 2 separate arguments" in f.message


def test_runtime_a_split_assignment_runs_its_second_word(sshd: SshServer) -> None:
    script = '#!/bin/bash\nssh web-1 "A=x" "REASON=routine worker rollout" printenv REASON\n'
    before = run_local(script, sshd)
    assert before.returncode == 127 and "worker: command not found" in before.stderr
    fixed = kit.fix_text(script, CODE, unsafe=True)
    assert kit.run_ok(fixed, sshd).stdout == "routine worker rollout\n"


def test_cli_json_line_and_column(tmp_path: Path) -> None:
    text = '#!/bin/bash\nset -e\nfor d in a b; do\n  ssh web-1 ls -l "/srv/my dir"\ndone\n'
    path = tmp_path / "list.sh"
    path.write_text(text)
    (item,) = kit.cli_json(path, "--select", CODE, "--severity", "info", returncode=1)
    kit.assert_json_position(item, text, kit.span_of(text, "ssh web-1"), (4, 3))
    assert item["fix"]["applicability"] == "unsafe"


@pytest.mark.parametrize("case", ["fanout.sh", "clean_ok.sh"])
def test_negative_case(case: str) -> None:
    assert hl106(kit.case_text(case)) == []


def _fates(line: str) -> list[list[tuple[str, str]]]:
    """What the remote shell makes of each word of `ssh h WORDS` (kind, text)."""
    command = parse_script(line).commands[0]
    invocation = resolve(command.words)
    assert invocation is not None
    layer = string_layer(file_layer(line), command, invocation)
    text = layer.script.text
    return [
        [(k, dequote(text, a, b).value if k == "word" else t) for a, b, k, t in f.items]
        for f in fates(layer.script, invocation.words)
    ]


def test_fates_of_words() -> None:
    w = "word"
    assert _fates('ssh h ls "my dir"') == [[(w, "ls")], [(w, "my"), (w, "dir")]]
    assert _fates("ssh h ls \"'a b'\" c\\ d") == [[(w, "ls")], [(w, "a b")], [(w, "c"), (w, "d")]]
    assert _fates("ssh h x 'a;b'") == [[(w, "x")], [(w, "a"), ("control", ";"), (w, "b")]]
    assert _fates("ssh h x '#y' z") == [[(w, "x")], [], []]  # a comment takes the rest
    assert _fates("ssh h x 'a#b'") == [[(w, "x")], [(w, "a#b")]]
    assert _fates("ssh h x '$(echo a b)x'") == [[(w, "x")], [(w, "$(echo a b)x")]]
    assert _fates("ssh h x '2>&1'") == [[(w, "x")], [("redirect", "2>&")]]
    assert _fates("ssh h x 'a>b'") == [[(w, "x")], [(w, "a"), ("redirect", ">")]]
    # across words: the remote word that starts in one local word is that word's
    assert _fates("ssh h cat \\'my file\\'") == [[(w, "cat")], [(w, "my file")], []]


# -- fixes: the others are INVALID examples in the rule's module ------------------------
def test_every_example_fix_is_unsafe() -> None:
    """Each fixed INVALID example is fixed by `--unsafe-fixes` only: `--fix` leaves it."""
    for example in INVALID:
        if example.fixed is not None:
            kit.single_fix(hl106(example.text), Applicability.UNSAFE)
            assert kit.fix_text(example.text, CODE) == example.text


def test_fix_of_a_nested_ssh_is_unsafe_clean_and_idempotent() -> None:
    kit.single_fix(hl106(NESTED), Applicability.UNSAFE)
    outcome = kit.assert_fixed_clean_and_idempotent(NESTED, CODE, unsafe=True)
    assert outcome == 'ssh gw "ssh inner \\"ls \'my dir\'\\""\n'


def test_fix_with_a_local_expansion_is_display_only() -> None:
    kit.assert_display_only('ssh h grep "$pat x" file\n', CODE, "\"grep '$pat x' file\"")


def test_fixed_words_reach_bash_as_written() -> None:
    """What the fixed command string makes of its words, in a real bash."""
    text = "ssh h printf '<%s>' \"my dir\" \"it's\" 'a;b' '$HOME' '|' cat\n"
    fixed = kit.fix_text(text, CODE, unsafe=True)
    assert fixed != text
    # The remote shell runs `bash -c STRING`; the local shell gives ssh the STRING.
    argv = subprocess.run(
        ["bash", "-c", "printf '%s\\0' " + fixed.removeprefix("ssh h ").strip()],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split("\0")[:-1]
    assert len(argv) == 1
    remote = subprocess.run(["bash", "-c", argv[0]], capture_output=True, text=True, check=True)
    # `<%s>` and `a;b` are quoted now; `$HOME` and `|` stay remote shell syntax.
    assert remote.stdout == f"<my dir><it's><a;b><{Path.home()}>"


# -- the remote shell, as bash: quotes across words -----------------------------------------
ACROSS = [
    # (the ssh words after the host, as the local shell gives them; the remote argv)
    (["cat", "'my", "file'"], ["cat", "my file"]),
    (["grep", "-r", '"a', 'b"', "/etc"], ["grep", "-r", "a b", "/etc"]),
]


@pytest.mark.parametrize(("words", "argv"), ACROSS)
def test_quotes_across_words_are_one_remote_word(words: list[str], argv: list[str]) -> None:
    """What bash makes of the joined string (ssh's remote side): the words the rule leaves
    alone really arrive as the author quoted them."""
    joined = " ".join(words)
    out = subprocess.run(
        ["bash", "-c", "printf '%s\\0' " + joined], capture_output=True, text=True, check=True
    ).stdout.split("\0")[:-1]
    assert out == argv
    line = "ssh h " + " ".join(w.replace("'", "\\'").replace('"', '\\"') for w in words)
    assert hl106(line + "\n") == []


def test_runtime_quotes_across_words(sshd: SshServer, tmp_path: Path) -> None:
    """`ssh h cat \\'my file\\'`: the remote shell sees `cat 'my file'` and reads the file."""
    (tmp_path / "my file").write_text("hello\n")
    script = f"#!/bin/bash\ncd {tmp_path}\nssh web-1 cd {tmp_path} \\&\\& cat \\'my file\\'\n"
    assert hl106(script) == []
    assert kit.run_ok(script, sshd).stdout == "hello\n"


def test_runtime_unclosed_quote_across_words(sshd: SshServer) -> None:
    script = "#!/bin/bash\nssh web-1 echo \\'a b\n"
    (found,) = hl106(script)
    assert "`'a` opens a quote that never closes" in found.message
    result = run_local(script, sshd)
    assert result.returncode != 0
    assert "unexpected EOF while looking for matching" in result.stderr


# -- runtime: the real ssh against the real sshd -------------------------------------------
def test_runtime_remote_ls_receives_two_arguments(sshd: SshServer, tmp_path: Path) -> None:
    target = tmp_path / "my dir"
    target.mkdir()
    script = f'#!/bin/bash\nssh web-1 ls -d "{target}"\n'
    assert len(hl106(script)) == 1
    before = run_local(script, sshd)
    assert before.returncode != 0
    assert f"cannot access '{tmp_path}/my'" in before.stderr
    assert "cannot access 'dir'" in before.stderr

    fixed = kit.fix_text(script, CODE, unsafe=True)
    assert fixed == f"#!/bin/bash\nssh web-1 \"ls -d '{target}'\"\n"
    after = kit.run_ok(fixed, sshd)
    assert after.stdout == f"{target}\n"


def test_echo_of_a_phrase_is_not_reported_and_bash_agrees() -> None:
    """`ssh h echo "a b c"`: the remote echo gets three words and joins them with single
    spaces again, so the output is the same (harmless split); two spaces are not."""
    phrase = 'ssh -p 2222 u@h -v echo "ssh connection to container succeeded"\n'
    assert kit.findings(phrase, "HL106") == []
    (doubled,) = kit.findings('ssh h echo "a  b"\n', "HL106")
    assert doubled.severity is Severity.INFO
    split = subprocess.run(
        ["bash", "-c", "echo ssh connection to container succeeded; echo a  b"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert split.stdout == "ssh connection to container succeeded\na b\n"


def test_runtime_an_operator_after_a_command_line_piece_is_what_was_meant(
    sshd: SshServer,
) -> None:
    """`ssh h "eval "echo $J" && echo done"`: quotes closed by mistake give the words
    `eval echo` and `$J && echo done`, whose first is a piece of a command line; the
    rejoined text runs as the nested quotes meant (through sshd), so nothing is reported.
    A word with blanks after a plain command name still is."""
    text = 'J="a  b"\nssh web-1 "eval "echo $J" && echo done"\n'
    assert hl106(text) == []
    assert kit.run_ok(text.replace("web-1", f"{sshd.user}@web-1"), sshd).stdout == "a b\ndone\n"
    assert len(hl106('ssh web-1 "ls -l" "/srv/my dir"\n')) == 1


# -- spans and messages --------------------------------------------------------------------


@pytest.mark.parametrize("blank", [" ", "\t"])
def test_hl106_a_quote_after_a_blank_never_closes(blank: str) -> None:
    """`"a<blank>'b"` as one ssh word: the remote shell reads an opening quote with no
    end (bash: unexpected EOF), whatever the blank before it is."""
    word = f"a{blank}'b"
    remote = f"echo {word} done"
    done = subprocess.run(["bash", "-c", remote], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "unexpected EOF" in done.stderr, done
    text = f'ssh h echo "{word}" done\n'
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL106"]
    assert (found.start, found.end) == (0, 3)
    assert "`a 'b` opens a quote that never closes on the remote side" in found.message


def test_hl106_counts_the_echo_words_that_change_past_the_reparse_limit() -> None:
    """Past three wrong words each word is read alone (hl106's `_alone`): still only the
    words whose echo output changes count.  bash says which: `echo WORD` in the remote
    shell prints the word back exactly for the single-spaced ones."""
    values = ["a  b", "c  d", "e  f", "g  h", "i j", "k  l", "m n"]
    changed = []
    for value in values:
        done = subprocess.run(["bash", "-c", f"echo {value}"], capture_output=True, text=True)
        changed.append(done.stdout != value + "\n")
    assert changed.count(True) == 5
    text = "ssh h echo " + " ".join(f'"{v}"' for v in values) + "\n"
    (found,) = [f for f in check_shell(text, "t.sh") if f.code == "HL106"]
    assert "`a b` arrives as 2 separate arguments (`a`, `b`) (and 4 more such word(s))" in (
        found.message
    )


# -- HL106: past three words found wrong, the others are read alone, expansions and all --------


def test_hl106_words_after_the_third_wrong_one_are_still_judged(tmp_path: Path) -> None:
    """Five words with a `;` and a local `"$x"` among them: bash, as the remote shell, runs
    the joined string as separate commands, and the fix's string (x=k) as one echo.  Past
    three wrong words each word is read alone, a word with an expansion too, and the fifth
    `;` is still counted (hl106 `_alone`: its `expansions = ...` removed)."""
    words = "echo 'a;b' 'c;d' 'e;f' 'g;h' \"$x\" 'i;j'"
    text = f"ssh h {words}\n"
    joined = kit.bash_as_sshd(f'x=k; set -- {words}; bash -c "$*"', None, tmp_path)
    assert joined.stdout == "a\n"
    (found,) = kit.findings_selected(text, "HL106")
    assert (found.start, found.end) == (0, 3)
    assert found.message.startswith("ssh joins the 7 words of the remote command with spaces")
    assert "the `;` in `a;b` becomes an operator" in found.message
    assert "(and 4 more such word(s))" in found.message
    assert found.fix is not None
    (edit,) = found.fix.edits
    assert (edit.start, edit.end) == (6, len(text) - 1)
    assert edit.content == "\"echo 'a;b' 'c;d' 'e;f' 'g;h' $x 'i;j'\""
    fixed = kit.bash_as_sshd(f"x=k; bash -c {edit.content}", None, tmp_path)
    assert fixed.stdout == "a;b c;d e;f g;h k i;j\n"


# -- HL106: "(and N more)" only when there are more --------------------------------------------


def test_hl106_counts_the_other_split_words_only_when_there_are_some(
    sshd: SshServer, tmp_path: Path
) -> None:
    """`ssh h grep "a b" FILE`: the remote shell splits `a b` again (checked through the
    real sshd with `printf %s.`: two arguments arrive).  One such word: the message names
    it and says nothing of others; two: it adds `(and 1 more such word(s))`.  (Run 7:
    `len(problems) > 1` made `>= 1` added `(and 0 more such word(s))` to every finding.)"""
    ran = kit.run_ok('#!/bin/bash\nssh h printf %s. "a b"\n', sshd, cwd=tmp_path)
    assert ran.stdout == "a.b."
    one = 'ssh h grep "a b" /var/log/x\n'
    two = 'ssh h grep "a b" "/var/log/my file"\n'
    found = [
        kit.findings(one, "HL106", every_rule=True),
        kit.findings(two, "HL106", every_rule=True),
    ]
    assert [
        [(t[f.start : f.end], f.severity.value) for f in fs]
        for t, fs in zip((one, two), found, strict=True)
    ] == [
        [("ssh", "info")],
        [("ssh", "info")],
    ]
    said = "`a b` arrives as 2 separate arguments (`a`, `b`)"
    assert found[0][0].message == (
        "ssh joins the 3 words of the remote command with spaces and the remote shell splits "
        f"the string again: {said}; pass the remote command as one quoted string with each "
        "argument quoted for the remote shell"
    )
    assert f"{said} (and 1 more such word(s)); pass" in found[1][0].message


# -- HL105's fix is safe when the remote command reads a file named after long options ----


def test_hl106_a_quoted_redirection_pair_is_passed_on_purpose(
    sshd: SshServer, tmp_path: Path
) -> None:
    """`ssh h CMD '> /dev/null 2>&1'`: a word holding only redirections, with a blank in
    it, is written for the remote shell (through the real sshd: the remote `echo`'s
    output goes to /dev/null there, nothing comes back): no HL106.  (Read ahead, run 7's
    sample: hl106:190, `" \\t"` cut to `"\\t"`, reported these.)"""
    ran = kit.run_ok("#!/bin/bash\nssh h echo hi '> /dev/null 2>&1'\nssh h echo hi\n", sshd)
    assert ran.stdout == "hi\n"
    for word in ("'> /dev/null 2>&1'", "'2>&1 >/dev/null'", "'>/dev/null 2>&1'"):
        assert kit.findings(f"ssh h ./backup.sh {word}\n", "HL106", every_rule=True) == []


# -- HL106: the one-string fix -------------------------------------------------------------


def test_hl106_fix_escapes_backslashes_in_double_quotes(sshd: SshServer, tmp_path: Path) -> None:
    """The fix's string holds `'` so it is double-quoted for the local shell: every `\\`
    must be escaped there, or the remote side receives fewer backslashes."""
    show = tmp_path / "showargs"
    show.write_text('#!/bin/bash\nfor a; do printf "<%s>\\n" "$a"; done\n')
    show.chmod(show.stat().st_mode | stat.S_IXUSR)
    text = f"ssh h {show} \"a b\" 'x\\\\y' q\n"
    fixed = kit.fixed_without_error(text, Settings(select=frozenset({"HL106"})), unsafe=True)
    assert fixed == f"ssh h \"{show} 'a b' 'x\\\\\\\\y' q\"\n"
    proc = run_local(fixed, sshd)
    assert proc.returncode == 0, proc.stderr
    # The arguments the local words meant: `a b`, `x\\y`, `q`.
    assert proc.stdout == "<a b>\n<x\\\\y>\n<q>\n"


@pytest.mark.parametrize(
    ("text", "reported"),
    [
        ("ssh h cat log '|' grep \"a b\"\n", False),  # `'|'`: the words are remote shell text
        ("ssh h cat log '| grep' \"a b\"\n", False),
        ('ssh h cat log "a b"\n', True),
    ],
)
def test_hl106_remote_operator_turns_off_later_words(text: str, reported: bool) -> None:
    found = [f for f in check_shell(text, "t.sh") if f.code == "HL106"]
    assert [(f.start, f.end) for f in found] == ([(0, 3)] if reported else [])


# -- HL106: the operator the message names --------------------------------------------------


@pytest.mark.parametrize(
    ("word", "operator"),
    [("a || b", "||"), ("a && b", "&&"), ("a | b", "|"), ("a; b", ";"), ("a & b", "&")],
)
def test_hl106_names_the_remote_operator(word: str, operator: str) -> None:
    text = f'ssh h echo "{word}"\n'
    (f,) = kit.findings(text, "HL106", every_rule=True)
    assert (f.start, f.end) == (0, 3)
    assert f"the `{operator}` in `{word}` becomes an operator of the remote shell" in f.message


# -- spans and messages --------------------------------------------------------------------


def test_hl106_names_a_redirection_with_its_descriptor() -> None:
    text = 'ssh h cat "x 0<&3"\n'
    (f,) = kit.findings(text, "HL106", every_rule=True)
    assert "the `0<&` in `x 0<&3` becomes a redirection of the remote shell" in f.message


def test_hl106_long_word_is_shown_cut_to_30_characters() -> None:
    word = "a " + "b" * 40
    text = f'ssh h touch "{word}"\n'
    (f,) = kit.findings(text, "HL106", every_rule=True)
    shown = word[:27] + "..."
    assert len(shown) == 30
    assert f"`{shown}` arrives as 2 separate arguments (`a`, `{'b' * 17}...`)" in f.message
