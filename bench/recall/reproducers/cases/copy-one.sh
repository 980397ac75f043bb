#!/bin/bash
# Called once per item by ssh_in_read_loop_child_script.sh.
ssh "$1" "true"
