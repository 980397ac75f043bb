"""Pinned behaviours of the Python frontend found by the mutation run of issue 20 (run 7,
seed 41, bench/mutation_runs/run7.md).

Each test kills a mutant that `bench/mutation.py` left alive: it was planted in a scratch
copy of the tree, the test failed there, and it passes without.
"""

from __future__ import annotations

import pytest

from heredoc_lint.frontends import fragments

# -- the offset map of a fragment runs forward ----------------------------------------------

_SPAWNED = [
    # pexpect.spawn returns at once: the frontend appends ` &` after the last value
    'import pexpect\ndef f(cmd):\n    pexpect.spawn("ssh h echo " + cmd)\n',
    'import pexpect\ndef f(cmd):\n    pexpect.spawn(f"ssh h echo {cmd}")\n',
    'import pexpect\ndef f(a, b):\n    pexpect.spawn("ssh " + a + " echo " + b)\n',
]


@pytest.mark.parametrize("text", _SPAWNED)
def test_the_offsets_of_a_spawned_command_run_forward_to_its_last_value(text: str) -> None:
    """A fragment's offset map takes each character of its text to the file: the ` &` the
    frontend appends for `pexpect.spawn` (which returns at once) is placed after the last
    run-time value, where the call's string ends, never back inside it.  (Run 7: the end
    of a `+` operand's unit was its start, and the ` &` pointed at the start of `cmd`.)"""
    (fragment,) = fragments("python", text)
    assert fragment.text.endswith(" &")
    offsets = list(fragment.offsets)
    assert offsets == sorted(offsets)
    last_value_end = text.index(")\n") - (1 if "{" in text else 0)
    assert offsets[-1] == last_value_end
