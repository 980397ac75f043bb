# heredoc-lint: disable-file=HL103
ssh h 'pkill -f x; echo'  # heredoc-lint: disable=HL101
