#!/bin/bash
# HL104: a heredoc fed to ssh's stdin that backgrounds a job whose stderr still goes to
# the session: ssh waits until the job exits.
start=$(date +%s)
ssh node-1 <<REMOTE
cd /tmp
nohup sleep 4 > /tmp/recall-bg.log &
exit
REMOTE
end=$(date +%s)
echo "OBSERVED: ssh returned after $((end - start)) s (the job runs 4 s)"
