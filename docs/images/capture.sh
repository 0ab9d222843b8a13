#!/usr/bin/env bash
# Records the README's picture of the demo: runs it in a detached tmux window of 100 x 30, answers the shell prompt
# by editing the command, captures the screen with its colours while the deploy's approval counts down, ends the
# demo with Esc, and turns the capture into docs/images/demo.svg (docs/images/AnsiToSvg.java, JDK only).
# Needs tmux, a JDK 17+ and Maven. Run from the repository root: bash docs/images/capture.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
session=toolcall-demo-capture
out=docs/images

wait_for() { # PATTERN SECONDS
  for _ in $(seq 1 $(($2 * 10))); do
    if tmux capture-pane -t "$session" -p | grep -q -- "$1"; then return 0; fi
    sleep 0.1
  done
  echo "the demo did not show '$1' within $2 s" >&2
  tmux capture-pane -t "$session" -p >&2
  tmux kill-session -t "$session"
  exit 1
}

tmux kill-session -t "$session" 2>/dev/null || true
tmux new-session -d -s "$session" -x 100 -y 30 "mvn -q -P demo compile exec:java; sleep 5"
wait_for "Allow shell" 120
sleep 1
tmux send-keys -t "$session" e
sleep 0.5
tmux send-keys -t "$session" -l "mvn -q test -Dtest=OrderServiceTest"
sleep 0.5
tmux send-keys -t "$session" Enter
wait_for "auto-deny in 5s" 60
tmux capture-pane -t "$session" -p -e > "$out/demo.ansi"
tmux send-keys -t "$session" Escape
wait_for "Timeline" 30
tmux kill-session -t "$session"
java "$out/AnsiToSvg.java" "$out/demo.ansi" "$out/demo.svg" "mvn -q -P demo compile exec:java"
echo "wrote $out/demo.ansi and $out/demo.svg"
