"""Run 6 of issue 20 (h20k): edits.py, fixes/, writer.py, suppress.py, cache.py.

Each test kills a survivor of the seed-40 mutation run (bench/mutation_runs/run6-h20k.md)
through the public entries: the findings and fixes of `check_shell`/`fix_shell`, the CLI
on real files, bash and the loopback sshd as the oracle.
"""

from __future__ import annotations

import re
import time

from heredoc_lint.engine import check_shell

# -- edits.py: lifting many edits through one long word stays linear ------------------------


def test_many_heredocs_in_one_ssh_string_are_fixed_in_linear_time() -> None:
    """1,000 `ssh b <<EOF` in one double-quoted ssh string: each HL107 fix (quote the
    delimiter) is lifted through the same long word.  The lexer states of that word are
    computed once (about 3 s here for the whole check); computed again for each edit, the
    work is quadratic (about 60 s unloaded).  The bound leaves 10x room for a loaded
    machine."""
    n = 1000
    text = 'ssh a "' + "".join(f"ssh b <<EOF\necho \\$USER{i}\nEOF\n" for i in range(n)) + '"\n'
    began = time.monotonic()
    findings = [f for f in check_shell(text, "t.sh") if f.code == "HL107"]
    seconds = time.monotonic() - began
    assert len(findings) == n
    operators = [m.start() for m in re.finditer("<<EOF", text)]
    for finding, at in zip(findings, operators, strict=True):
        assert finding.fix is not None
        (edit,) = finding.fix.edits
        # The delimiter quoted in place: `'EOF'` reads the same inside the double quotes.
        assert (edit.start, edit.end, edit.content) == (at + 2, at + 5, "'EOF'")
    assert seconds < 30, f"{seconds:.1f}s"
