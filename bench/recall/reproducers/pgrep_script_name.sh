#!/bin/bash
# HL103 (layer 0): this script's own file name contains the pattern of its
# `pgrep -f` guard, so the guard always finds the script itself: with no other
# process running, it still reports "already running" and never starts anything.
if pgrep -f "script_name" > /dev/null; then
    echo "OBSERVED: guard says already running (no other process matches)"
    exit 0
fi
echo "OBSERVED: guard passed, starting"
