// The image limits dsh applies, from DeepSeek's Vision and Files API guides (read
// 2026-12-05; see docs/images.md for what each page says and what dsh chose below it).

/** Largest file dsh reads as an image at all (the Files API's per-image maximum, 64 MiB). */
export const MAX_SOURCE_BYTES = 64 * 1024 * 1024

/** Largest image sent inline as base64 (the Vision guide's per-image inline limit). */
export const MAX_INLINE_IMAGE_BYTES = 32 * 1024 * 1024

/**
 * The longest side dsh sends, in pixels. The API allows more (8192, or 4096 from 15 images a
 * request on), but bills each image at a capped number of input tokens and scales it down
 * itself, so larger images only cost bandwidth and request body (48 MiB a request). 2048 px
 * keeps a screenshot's text readable and a 12-megapixel photo to a few hundred KB.
 */
export const MAX_SIDE_PX = 2048

/** Largest stored image after downscaling; above it a photo is re-encoded at lower quality. */
export const TARGET_IMAGE_BYTES = 8 * 1024 * 1024

/** Images one request may carry (the Vision guide's limit). */
export const MAX_IMAGES_PER_REQUEST = 600

/** Images one prompt may attach: the request limit, since a prompt is at least one request. */
export const MAX_IMAGES_PER_PROMPT = MAX_IMAGES_PER_REQUEST
