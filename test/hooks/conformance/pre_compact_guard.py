#!/usr/bin/env python3
"""A PreCompact guard: refuses /compact while .claude/compact-guard says so, the way
published guards do it, either with exit code 2 (reason on stderr) or with a JSON
`decision: block`. Without the file it lets every compaction through."""
import json
import os
import sys

payload = json.load(sys.stdin)
mode_file = os.path.join(os.environ["CLAUDE_PROJECT_DIR"], ".claude", "compact-guard")
mode = open(mode_file).read().strip() if os.path.exists(mode_file) else ""
reason = f"Not now: finish the current task before compacting ({payload['trigger']})."

if mode == "exit2":
    print(reason, file=sys.stderr)
    sys.exit(2)
if mode == "json":
    print(json.dumps({"decision": "block", "reason": reason}))
sys.exit(0)
