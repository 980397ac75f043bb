#!/bin/bash
# HL106: ssh joins its command words with spaces and the remote shell splits them
# again: a value with spaces becomes several words (here the default of a variable).
out=$(ssh node-1 env "DEPLOY_REASON=${DEPLOY_REASON:-routine worker rollout}" printenv DEPLOY_REASON 2>&1)
echo "OBSERVED: remote saw: $(echo "$out" | head -1)"
