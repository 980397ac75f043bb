#!/bin/bash
# HL108 through an options array shared by ssh and scp: the array holds `-p PORT`.
port=2222
opts=(-o BatchMode=yes -p "$port")
f=$(mktemp)
echo data > "$f"
scp "${opts[@]}" "$f" node-1:/tmp/recall-scp-target 2>/tmp/recall-scp.err
status=$?
rm -f "$f"
echo "OBSERVED: scp exit=$status; stderr: $(head -1 /tmp/recall-scp.err)"
