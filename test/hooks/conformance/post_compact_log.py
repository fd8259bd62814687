#!/usr/bin/env python3
"""A PostCompact logger: records the trigger and the summary the compaction wrote."""
import json
import os
import sys

payload = json.load(sys.stdin)
with open(os.path.join(os.environ["CLAUDE_PROJECT_DIR"], ".claude", "post-compact.log"), "a") as log:
    log.write(json.dumps(payload) + "\n")
