"""The command line: the `heredoc-lint` entry point, its options and the typer app."""
