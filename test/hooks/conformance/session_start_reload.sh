#!/usr/bin/env bash
# A SessionStart hook that re-injects project context after a compaction (matcher
# "compact"), logging the input it was given.
set -euo pipefail

HOOK_INPUT=$(cat)
echo "$HOOK_INPUT" | jq -c . >> "$CLAUDE_PROJECT_DIR/.claude/session-start.log"
jq -n '{hookSpecificOutput: {hookEventName: "SessionStart", additionalContext: "After compaction: the open task list is in TODO.md."}}'
