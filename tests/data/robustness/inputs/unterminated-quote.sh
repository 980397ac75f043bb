ssh h 'pkill -f x; echo
