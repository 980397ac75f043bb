#!/bin/bash
# HL102: a remote command kept in a variable holds a command substitution meant for
# the remote machine; the double quotes make the local shell run it when the variable
# is assigned, so the remote command carries the local answer.
export RECALL_SIDE=local
REMOTE_CMD="echo ran-on=\$(hostname -s) side=$(printenv RECALL_SIDE || echo remote)"
out=$(ssh node-1 "$REMOTE_CMD")
echo "OBSERVED: remote printed: $out (the substitution should have said side=remote)"
