#!/usr/bin/env python3
"""Rewrites `npm install` to `npm ci` with updatedInput (PreToolUse), keeping the other fields."""
import json
import re
import sys

data = json.load(sys.stdin)
tool_input = data.get("tool_input", {})
command = tool_input.get("command", "")
if re.match(r"^npm install\b", command):
    rewritten = dict(tool_input, command=re.sub(r"^npm install", "npm ci", command))
    print(json.dumps({
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "permissionDecisionReason": "npm install rewritten to npm ci",
            "updatedInput": rewritten,
        }
    }))
sys.exit(0)
