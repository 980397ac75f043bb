#!/bin/bash
# HL109: run as a non-root user that may sudo: the redirection is opened by the
# caller's own shell, not by sudo.
( sudo echo "vm.recall=1" > /etc/recall-sudo-test.conf ) 2>/tmp/recall-sudo.err
s1=$?
( sudo cat > /etc/recall-sudo-test2.conf <<CONF
key=value
CONF
) 2>>/tmp/recall-sudo.err
s2=$?
echo "OBSERVED: sudo echo > file exit=$s1; sudo cat > file <<EOF exit=$s2; $(head -1 /tmp/recall-sudo.err)"
