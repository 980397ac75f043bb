#!/bin/bash
# HL105 through a helper function: the loop calls a function that calls ssh; ssh still
# inherits (and drains) the loop's stdin.
run_remote() {
    ssh "$1" "$2"
}
count=0
printf 'node-1\nnode-2\nnode-3\n' | while read -r host; do
    run_remote "$host" "true"
    count=$((count + 1))
    echo "$count" > /tmp/recall-loop-count
done
echo "OBSERVED: hosts processed=$(cat /tmp/recall-loop-count) of 3"
