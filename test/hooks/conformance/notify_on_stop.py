#!/usr/bin/env python3
"""A notify-on-stop script: shows the last assistant answer from the transcript as a
desktop notification, or appends it to .claude/notifications.log when there is no notifier."""
import json
import os
import sys

data = json.load(sys.stdin)
message = "Claude has finished"
path = data.get("transcript_path")
if path and os.path.exists(path):
    with open(path) as f:
        for line in f:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            msg = entry.get("message") or {}
            if msg.get("role") != "assistant":
                continue
            texts = [c.get("text", "") for c in msg.get("content", []) if c.get("type") == "text"]
            if texts:
                message = "".join(texts)
log = os.path.join(os.environ.get("CLAUDE_PROJECT_DIR", "."), ".claude", "notifications.log")
with open(log, "a") as out:
    out.write(json.dumps({"title": "dsh", "body": message[:200], "session": data.get("session_id")}) + "\n")
