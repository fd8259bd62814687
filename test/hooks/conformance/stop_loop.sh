#!/usr/bin/env bash
# A Stop-hook loop in the style of the published "keep going until DONE" plugins: it reads
# the last assistant message from the transcript with jq and blocks the stop until the
# answer says DONE, at most MAX_ITERATIONS times, keeping its state in a file.
set -euo pipefail

HOOK_INPUT=$(cat)
TRANSCRIPT_PATH=$(echo "$HOOK_INPUT" | jq -r '.transcript_path')
STATE_FILE="$CLAUDE_PROJECT_DIR/.claude/loop.local.md"
MAX_ITERATIONS=5

if [[ ! -f "$TRANSCRIPT_PATH" ]]; then
  echo "Transcript not found: $TRANSCRIPT_PATH" >&2
  rm -f "$STATE_FILE"
  exit 0
fi

if ! grep -q '"role":"assistant"' "$TRANSCRIPT_PATH"; then
  echo "No assistant messages found in transcript" >&2
  rm -f "$STATE_FILE"
  exit 0
fi

LAST_LINE=$(grep '"role":"assistant"' "$TRANSCRIPT_PATH" | tail -1)
LAST_OUTPUT=$(echo "$LAST_LINE" | jq -r '.message.content | map(select(.type == "text")) | map(.text) | join("\n")')

ITERATION=$(cat "$STATE_FILE" 2>/dev/null || echo 0)
echo "$LAST_OUTPUT" >> "${STATE_FILE}.seen"

if [[ "$LAST_OUTPUT" == *"DONE"* ]] || (( ITERATION >= MAX_ITERATIONS )); then
  rm -f "$STATE_FILE"
  exit 0
fi

echo $((ITERATION + 1)) > "$STATE_FILE"
jq -n --arg reason "Iteration $((ITERATION + 1)): not done yet. Continue, and say DONE when finished." \
  '{"decision": "block", "reason": $reason}'
