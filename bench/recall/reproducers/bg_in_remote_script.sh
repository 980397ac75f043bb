#!/bin/bash
# HL104: a script meant to be run over ssh (cases/start_service.sh) starts a background
# job (a `( ... ) &` subshell, or `nohup cmd &`) without redirecting its output: the
# ssh call that runs the script does not return until the job ends.
here=$(cd "$(dirname "$0")" && pwd)
start=$(date +%s)
ssh node-1 "bash $here/cases/start_service.sh"
end=$(date +%s)
echo "OBSERVED: ssh returned after $((end - start)) s (the job runs 4 s)"
