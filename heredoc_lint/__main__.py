from heredoc_lint.cli import main

main()
