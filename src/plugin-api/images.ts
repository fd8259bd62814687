// Types of the attachment seam: an image prepared for a session (its bytes beside the
// reference the log keeps). The reference itself is the model seam's ImageRef.

import type { ImageMediaType, ImageRef } from '../llm/types.js'

export type { ImageMediaType, ImageRef }

/** An image ready to be stored and sent: its reference and the stored bytes. */
export interface PreparedImage {
  ref: ImageRef
  data: Buffer
}
