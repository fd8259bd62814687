// Public surface of the attachment seam: images from files, pastes and clients, checked,
// downscaled and content-addressed once, stored per session and sent to vision models.
// See docs/images.md.

export type { ImageMediaType, ImageRef, PreparedImage } from '../plugin-api/index.js'
export type { ClientImage } from './client.js'
export { prepareClientImages } from './client.js'
export { describeImage, promptWithImageRefs, visionRefusal } from './describe.js'
export { AttachmentErrorCode } from './errors.js'
export { sniffImageType, structuralDamage } from './format.js'
export {
  MAX_IMAGES_PER_PROMPT,
  MAX_IMAGES_PER_REQUEST,
  MAX_INLINE_IMAGE_BYTES,
  MAX_SIDE_PX,
  MAX_SOURCE_BYTES,
  TARGET_IMAGE_BYTES,
} from './limits.js'
export type { PromptImageOptions } from './mentions.js'
export { imageMentions, preparePromptImages } from './mentions.js'
export type { ImageFileOptions } from './prepare.js'
export { formatBytes, prepareImageData, prepareImageFile, sha256 } from './prepare.js'
export { imageLimitRefusal, nameImagesPastLimit, readyRequestImages } from './request.js'
export type { ImageStore } from './store.js'
export { countImages, hasImages, loadRequestImages, storeImages } from './store.js'
