"""The setup snippets of docs/editors.md parse and start this server.

Neovim 0.7 and Emacs 28 (eglot) were run with their snippets (docs/editors.md, "Which of
these were tried"); Helix and VS Code cannot be installed here, so their snippets are held
to their formats and to the server command here.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

DOC = (Path(__file__).resolve().parents[1] / "docs" / "editors.md").read_text(encoding="utf-8")
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```$", re.M | re.S)


def blocks(language: str) -> list[str]:
    return [body for lang, body in BLOCK.findall(DOC) if lang == language]


def test_helix_snippet_defines_the_server_and_adds_it_to_every_kind() -> None:
    (snippet,) = blocks("toml")
    config = tomllib.loads(snippet)
    assert config["language-server"]["heredoc-lint"] == {"command": "heredoc-lint", "args": ["lsp"]}
    languages = {lang["name"]: lang["language-servers"] for lang in config["language"]}
    assert set(languages) == {"bash", "python", "markdown", "yaml"}
    for servers in languages.values():
        # Ours is added to the language's own servers, not put in their place.
        assert servers[-1] == "heredoc-lint" and len(servers) > 1


def test_vscode_snippet_starts_the_server_for_every_kind() -> None:
    (snippet,) = blocks("json")
    settings = json.loads(snippet)
    assert settings["glspc.server.command"] == "heredoc-lint"
    assert settings["glspc.server.commandArguments"] == ["lsp"]
    assert set(settings["glspc.server.languageId"]) == {"shellscript", "python", "markdown", "yaml"}
    assert isinstance(settings["glspc.server.initializationOptions"], dict)


def test_neovim_and_emacs_snippets_run_heredoc_lint_lsp() -> None:
    lua = [b for b in blocks("lua") if "vim.lsp" in b]
    assert len(lua) == 3  # 0.11+, 0.8-0.10, 0.7
    assert all('"heredoc-lint", "lsp"' in b for b in lua)
    (emacs,) = [b for b in blocks("elisp") if "eglot-server-programs" in b]
    assert '("heredoc-lint" "lsp")' in emacs
