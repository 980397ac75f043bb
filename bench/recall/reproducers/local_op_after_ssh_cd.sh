#!/bin/bash
# HL110: `ssh h cd DIR && cmd` (or `; cmd`): ssh's remote command is only the `cd`, the
# `&&` belongs to the local shell, so `cmd` runs here, in the local directory, and the
# remote shell that changed directory has already exited.
base=/tmp/recall-hl110
rm -rf "$base" && mkdir -p "$base/remote" "$base/local"
ln -s old "$base/remote/current"       # the remote release link
touch "$base/local/current"            # an unrelated local file of the same name
cd "$base/local" || exit 1
ssh node-1 cd "$base/remote" && rm current && ln -s new current
ssh node-1 cd "$base/remote"; pwd > where-second-command-ran
{ time ssh node-1 cd "$base/remote" && pwd > where-third-command-ran; } 2>/dev/null
echo "OBSERVED: remote link -> $(readlink "$base/remote/current");" \
  "local file 'current' is now a link -> $(readlink "$base/local/current");" \
  "second command ran in $(cat "$base/local/where-second-command-ran" 2>/dev/null);" \
  "third (after time ssh) in $(cat "$base/local/where-third-command-ran" 2>/dev/null)"
