#!/bin/bash
# HL108: `scp -p PORT`: -p preserves times, so PORT becomes a source file name.
f=$(mktemp)
echo data > "$f"
scp -p 2222 "$f" node-1:/tmp/recall-scp-target 2>/tmp/recall-scp.err
status=$?
rm -f "$f"
echo "OBSERVED: scp exit=$status; stderr: $(head -1 /tmp/recall-scp.err)"
