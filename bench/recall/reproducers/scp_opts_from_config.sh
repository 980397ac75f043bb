#!/bin/bash
# HL108 where the option string comes from configuration: ssh options holding
# `-p PORT` are reused for scp.
cfg=$(mktemp)
echo "-o BatchMode=yes -p 2222" > "$cfg"
ssh_opts=$(cat "$cfg")
f=$(mktemp)
echo data > "$f"
scp $ssh_opts "$f" node-1:/tmp/recall-scp-target 2>/tmp/recall-scp.err
status=$?
rm -f "$f" "$cfg"
echo "OBSERVED: scp exit=$status; stderr: $(head -1 /tmp/recall-scp.err)"
