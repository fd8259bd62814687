#!/usr/bin/env python3
"""A Bash command validator in the style of Claude Code's documented example:
reads the hook input on stdin, prints the problems to stderr and exits 2 to block."""
import json
import re
import sys

VALIDATION_RULES = [
    (r"\bgrep\b(?!.*\|)", "Use 'rg' (ripgrep) instead of 'grep' for better performance and features"),
    (r"\bfind\s+\S+\s+-name\b", "Use 'rg --files | rg pattern' or 'rg --files -g pattern' instead of 'find -name'"),
    (r"\brm\s+-rf\b", "Refusing 'rm -rf': delete files one by one"),
]


def validate_command(command: str) -> list[str]:
    return [message for pattern, message in VALIDATION_RULES if re.search(pattern, command)]


try:
    input_data = json.load(sys.stdin)
except json.JSONDecodeError as e:
    print(f"Error: Invalid JSON input: {e}", file=sys.stderr)
    sys.exit(1)

tool_name = input_data.get("tool_name", "")
tool_input = input_data.get("tool_input", {})
command = tool_input.get("command", "")

if tool_name != "Bash" or not command:
    sys.exit(0)

issues = validate_command(command)
if issues:
    for message in issues:
        print(f"• {message}", file=sys.stderr)
    sys.exit(2)
