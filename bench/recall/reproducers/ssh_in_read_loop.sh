#!/bin/bash
# HL105: ssh without -n inside a `while read` loop reads the loop's remaining input.
count=0
while read -r host; do
    ssh "$host" "true"
    count=$((count + 1))
done < <(printf 'node-1\nnode-2\nnode-3\n')
echo "OBSERVED: hosts processed=$count of 3"
