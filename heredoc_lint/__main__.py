from heredoc_lint.entry import main

main()
