#!/bin/bash
# HL112: a heredoc whose terminator is indented (spaces, or tabs without <<-) never
# ends: the body runs to the end of the file, bash stops with "unexpected end of
# file", and nothing after the heredoc runs. The EXIT trap reports what happened.
rm -f /tmp/recall-heredoc-out.txt /tmp/recall-heredoc-after
trap 'echo "OBSERVED: out.txt written=$([ -e /tmp/recall-heredoc-out.txt ] && echo yes || echo no); command after the heredoc ran=$([ -e /tmp/recall-heredoc-after ] && echo yes || echo no)"' EXIT
if true; then
  cat <<EOF > /tmp/recall-heredoc-out.txt
  line one
  EOF
fi
touch /tmp/recall-heredoc-after
