#!/usr/bin/env bash
# A PreCompact backup in the style of the published "save the transcript before it
# compacts" hooks: copies the transcript aside and logs what it was given, with the
# number of transcript lines it could read at that moment.
set -euo pipefail

HOOK_INPUT=$(cat)
TRANSCRIPT_PATH=$(echo "$HOOK_INPUT" | jq -r '.transcript_path')
BACKUPS="$CLAUDE_PROJECT_DIR/.claude/backups"
mkdir -p "$BACKUPS"

LINES=0
if [[ -f "$TRANSCRIPT_PATH" ]]; then
  LINES=$(wc -l < "$TRANSCRIPT_PATH")
  cp "$TRANSCRIPT_PATH" "$BACKUPS/pre-compact-$(echo "$HOOK_INPUT" | jq -r '.trigger')-$LINES.jsonl"
fi

echo "$HOOK_INPUT" | jq -c --argjson lines "$LINES" '. + {transcript_lines: $lines}' \
  >> "$CLAUDE_PROJECT_DIR/.claude/compact.log"
