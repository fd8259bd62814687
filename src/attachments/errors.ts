// Error codes of the attachment seam. Every refusal is user-facing: one line naming the file.

import { DshError } from '../core/errors.js'

export const AttachmentErrorCode = {
  /** The file is missing, unreadable, a folder, or too large to read. */
  Unreadable: 'ATTACHMENT_UNREADABLE',
  /** Not a PNG, JPEG, GIF or WebP, or one that does not decode. */
  NotAnImage: 'ATTACHMENT_NOT_AN_IMAGE',
  /** A URL: dsh does not fetch images. */
  Url: 'ATTACHMENT_URL',
  /** Outside the project where the permission mode forbids it. */
  Outside: 'ATTACHMENT_OUTSIDE',
  /** More images than a request may carry. */
  TooMany: 'ATTACHMENT_TOO_MANY',
  /** The model does not take images. */
  NoVision: 'ATTACHMENT_NO_VISION',
  /** An image a log event names is not in the session's image store. */
  Missing: 'ATTACHMENT_MISSING',
} as const

export function attachmentError(message: string, code: string, cause?: unknown): DshError {
  return new DshError(message, code, { userFacing: true, ...(cause !== undefined ? { cause } : {}) })
}
