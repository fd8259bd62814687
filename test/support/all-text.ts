// Every file's text under a folder, for "this secret is stored nowhere" checks.

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Every file's text under `dir`, read as latin1 so binary files cannot throw. */
export function allText(dir: string): string {
  let text = ''
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    text += statSync(path).isDirectory() ? allText(path) : readFileSync(path, 'latin1')
  }
  return text
}
