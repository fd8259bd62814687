#!/usr/bin/env python3
"""A Codex compaction hook (hooks.json): logs its input next to the project's
.codex/hooks.json and answers as .codex/compact-mode says: `stop` returns
`continue: false`, `exit2` exits 2 (which Codex does not treat as a block)."""
import json
import os
import subprocess
import sys

payload = json.load(sys.stdin)
root = subprocess.run(["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True).stdout.strip() or os.getcwd()
codex = os.path.join(root, ".codex")
with open(os.path.join(codex, "compact.log"), "a") as log:
    log.write(json.dumps(payload) + "\n")
mode_file = os.path.join(codex, "compact-mode")
mode = open(mode_file).read().strip() if os.path.exists(mode_file) else ""
if payload["hook_event_name"] == "PreCompact" and mode == "stop":
    print(json.dumps({"continue": False, "stopReason": "compaction paused by policy"}))
elif payload["hook_event_name"] == "PreCompact" and mode == "exit2":
    print("exit 2 is not a block in Codex", file=sys.stderr)
    sys.exit(2)
elif payload["hook_event_name"] == "SessionStart":
    print("After compaction (codex): the open task list is in TODO.md.")
