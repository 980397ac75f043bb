#!/bin/bash
# Started over ssh by bg_in_remote_script.sh: the background subshell keeps the
# session's stdout and stderr.
(
    sleep 4
    echo "post-processing done"
) &
echo "started in background"
