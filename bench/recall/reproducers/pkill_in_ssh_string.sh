#!/bin/bash
# HL103: `pkill -f PAT` inside a remote command string that has more commands after it.
# The remote `bash -c '<string>'` carries PAT in its own command line, so pkill kills
# that shell first: the commands after it never run and ssh reports a signal.
marker=/tmp/recall-pkill-marker
ssh node-1 "rm -f $marker"
ssh node-1 "pkill -f demo_train_job ; touch $marker"
status=$?
if ssh node-1 "test -e $marker"; then ran=yes; else ran=no; fi
echo "OBSERVED: ssh exit=$status; command after pkill ran=$ran"
