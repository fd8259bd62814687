// The loop's image steps: a prompt's images are checked against the model and stored
// before the turn is logged; a request's images are checked and loaded before it is sent.

import { visionRefusal } from '../attachments/describe.js'
import { AttachmentErrorCode, attachmentError } from '../attachments/errors.js'
import { MAX_IMAGES_PER_REQUEST } from '../attachments/limits.js'
import { countImages, loadRequestImages, storeImages } from '../attachments/store.js'
import type { ModelRequest } from '../llm/adapter.js'
import type { PreparedImage, TurnSettings } from '../plugin-api/index.js'
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
 * Refuses images for a model that does not take them (naming the one that does), then
 * stores them in the session's image store. Rejects before anything is logged.
 */
export async function storePromptImages(
  session: Session,
  services: LoopServices,
  settings: TurnSettings,
  images: readonly PreparedImage[],
): Promise<void> {
  refuseImagesWithoutVision(services, settings, images.length)
  const sessions = services.sessions()
  if (!sessions)
    throw attachmentError('images need a session store; none is loaded', AttachmentErrorCode.Missing)
  await storeImages(sessions, session.id, images)
}

/**
 * Before a request goes out: its model must take the images the history carries (a resumed
 * session with another model is one line, not a 400), there may be no more than the API
 * allows, and each is loaded (and encoded once) from the session's store.
 */
export async function loadImages(
  session: Session,
  services: LoopServices,
  request: ModelRequest,
  defaultModel: string,
): Promise<void> {
  const count = countImages(request.messages)
  if (count === 0) return
  const refusal = visionRefusal(request.model ?? defaultModel, count)
  if (refusal) throw refusal
  if (count > MAX_IMAGES_PER_REQUEST) {
    throw attachmentError(
      `the conversation carries ${count} images; a request carries at most ${MAX_IMAGES_PER_REQUEST} (compact or fork before the images)`,
      AttachmentErrorCode.TooMany,
    )
  }
  await loadRequestImages(services.sessions(), session.id, request.messages)
}
