// Images a chat line attaches (`@shot.png`), through the one attachment path. Mentions
// outside the project are refused unless the permission mode is bypassPermissions.

import { type PreparedImage, preparePromptImages } from '../../attachments/index.js'
import type { PermissionMode } from '../../permissions/modes.js'

export function chatImages(text: string, cwd: string, mode: PermissionMode): Promise<PreparedImage[]> {
  return preparePromptImages(text, { cwd, mentionsOutside: mode === 'bypassPermissions' })
}
