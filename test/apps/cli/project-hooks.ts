// A project folder with Claude Code hooks in `.claude/settings.json` and scripts in `.claude/hooks/`.

import { chmodSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export function projectHooks(
  project: string,
  hooks: Record<string, unknown>,
  scripts: Record<string, string> = {},
): void {
  mkdirSync(join(project, '.git'), { recursive: true })
  mkdirSync(join(project, '.claude', 'hooks'), { recursive: true })
  writeFileSync(join(project, '.claude', 'settings.json'), JSON.stringify({ hooks }))
  for (const [name, text] of Object.entries(scripts)) {
    const file = join(project, '.claude', 'hooks', name)
    writeFileSync(file, text)
    chmodSync(file, 0o755)
  }
}
