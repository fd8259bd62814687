#!/usr/bin/env bash
# Registered with "if": "Bash(git push *)": it only ever sees git push, and refuses it.
cat > /dev/null
echo "git push is blocked: open a pull request instead" >&2
exit 2
