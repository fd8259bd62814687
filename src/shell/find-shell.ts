// Locates the shell binary once, so `DSH_SHELL` and the executor name the same absolute path.

import { accessSync, constants, statSync } from 'node:fs'
import { delimiter, isAbsolute, join } from 'node:path'

/** The absolute path of an executable found on `PATH`, or undefined. */
export function findExecutable(
  name: string,
  pathVariable: string | undefined = process.env.PATH,
): string | undefined {
  for (const folder of (pathVariable ?? '').split(delimiter)) {
    if (!isAbsolute(folder)) continue
    const candidate = join(folder, name)
    try {
      accessSync(candidate, constants.X_OK)
      if (statSync(candidate).isFile()) return candidate
    } catch {
      // Not here (or not executable); keep looking along PATH.
    }
  }
  return undefined
}

let bashPath: string | undefined

/** The absolute path of `bash` on `PATH` (looked up once), else `/bin/bash`. */
export function defaultBashPath(): string {
  bashPath ??= findExecutable('bash') ?? '/bin/bash'
  return bashPath
}
