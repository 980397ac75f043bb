#!/bin/bash
# HL105 through another script: the loop runs a separate executable
# (cases/copy-one.sh) that calls ssh; the child inherits the loop's stdin and ssh
# drains it.
here=$(cd "$(dirname "$0")" && pwd)
count=0
while read -r item; do
    bash "$here/cases/copy-one.sh" node-1
    count=$((count + 1))
done < <(printf 'a\nb\nc\n')
echo "OBSERVED: items processed=$count of 3"
