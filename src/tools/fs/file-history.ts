// The file history of a session: every `write`/`edit`/`multi_edit` keeps the file's previous
// content under the harness home (never in the project), content-addressed by SHA-256, so
// a turn's file changes can be rewound. Bash side effects are not recorded.

import { createHash } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

export const FILE_HISTORY_FOLDER = 'file-history'

/** The content store of one harness home. */
export class FileHistoryStore {
  readonly root: string

  constructor(home: string) {
    this.root = join(home, FILE_HISTORY_FOLDER)
  }

  /** The folder of one session (a hash of its id: any id is path-safe). */
  folderOf(sessionId: string): string {
    return join(this.root, createHash('sha256').update(sessionId).digest('hex').slice(0, 32))
  }

  /** Keeps `bytes` (whose hash is `sha256`) for the session; an existing copy is reused. */
  async keep(sessionId: string, sha256: string, bytes: Uint8Array): Promise<void> {
    const folder = this.folderOf(sessionId)
    await mkdir(folder, { recursive: true, mode: 0o700 })
    try {
      await writeFile(join(folder, sha256), bytes, { flag: 'wx', mode: 0o600 })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }

  /** The kept content with this hash; throws when it is missing. */
  read(sessionId: string, sha256: string): Promise<Buffer> {
    return readFile(join(this.folderOf(sessionId), sha256))
  }
}
