// The loop's image steps: a prompt's images are checked against the model and the
// conversation's count, and stored, before the turn is logged. A request's images are
// readied by src/attachments/request.ts (the turn and the compaction's summary call alike).

import { visionRefusal } from '../attachments/describe.js'
import { AttachmentErrorCode, attachmentError } from '../attachments/errors.js'
import { imageLimitRefusal } from '../attachments/request.js'
import { countImages, storeImages } from '../attachments/store.js'
import type { PreparedImage, TurnSettings } from '../plugin-api/index.js'
import { deriveHistory } from '../session/history.js'
import type { Session } from '../session/session.js'
import type { LoopServices } from './services.js'

/** Throws when the turn's model does not take images (one line naming the model that does). */
export function refuseImagesWithoutVision(
  services: LoopServices,
  settings: TurnSettings,
  count: number,
): void {
  if (count === 0) return
  const model = settings.model.model ?? services.llm()?.defaultModel
  const refusal = model === undefined ? undefined : visionRefusal(model, count)
  if (refusal) throw refusal
}

/**
 * Admits a prompt's images before anything is logged: refuses them for a model that does
 * not take them (naming the one that does), and refuses a prompt whose images would take
 * the conversation past MAX_IMAGES_PER_REQUEST (checked for every prompt, so a session
 * already past it says how out before its turn is logged); then stores them.
 */
export async function storePromptImages(
  session: Session,
  services: LoopServices,
  settings: TurnSettings,
  images: readonly PreparedImage[],
): Promise<void> {
  refuseImagesWithoutVision(services, settings, images.length)
  const carried = countImages(deriveHistory(session.events))
  const overLimit = imageLimitRefusal(session.id, carried, images.length)
  if (overLimit) throw overLimit
  if (images.length === 0) return
  const sessions = services.sessions()
  if (!sessions)
    throw attachmentError('images need a session store; none is loaded', AttachmentErrorCode.Missing)
  await storeImages(sessions, session.id, images)
}
