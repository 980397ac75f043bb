from heredoc_lint.cli.entry import main

main()
