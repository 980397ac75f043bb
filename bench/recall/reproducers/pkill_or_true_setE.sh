#!/bin/bash
# HL103: `ssh h "pkill -f PAT || true"` under `set -e`: the `|| true` never runs because
# the remote shell itself is killed; ssh exits non-zero and set -e stops the deploy.
set -e
trap 'echo "OBSERVED: set -e stopped the deploy at the pkill step (status $?)"' ERR
ssh node-1 "pkill -f demo_server_bin || true"
echo "OBSERVED: deploy continued past the pkill"
