// Images on the composer: added by paste, drop or the file button, shown as removable
// thumbnails until the prompt goes out, then sent as base64 with it. The server checks
// them as every surface does (src/attachments); the page only turns away what is plainly
// not an image, or one too many, in one line.

import { html } from 'htm/preact'
import type { VNode } from 'preact'
import { useEffect, useRef, useState } from 'preact/hooks'
import { MAX_IMAGES_PER_PROMPT } from '../../../attachments/limits.js'

export const ACCEPTED_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp']

export interface Attachment {
  key: number
  file: File
}

export interface Attachments {
  list: Attachment[]
  add(files: Iterable<File>): void
  remove(key: number): void
  clear(): void
  /** The images as the prompt API takes them. */
  encode(list: Attachment[]): Promise<{ data: string; name: string }[]>
}

let nextKey = 1

export function useAttachments(onError: (message: string) => void): Attachments {
  const [list, setState] = useState<Attachment[]>([])
  // The latest list, for adds that land before the next render (a paste, then a drop).
  const latest = useRef<Attachment[]>([])
  const setList = (next: Attachment[]) => {
    latest.current = next
    setState(next)
  }
  return {
    list,
    add(files) {
      const list = latest.current
      const added: Attachment[] = []
      for (const file of files) {
        if (!ACCEPTED_TYPES.includes(file.type)) {
          onError(`image ${file.name}: not an image dsh can send (PNG, JPEG, GIF or WebP expected)`)
          return
        }
        added.push({ key: nextKey++, file })
      }
      if (list.length + added.length > MAX_IMAGES_PER_PROMPT) {
        onError(
          `${list.length + added.length} images attached; a request carries at most ${MAX_IMAGES_PER_PROMPT}`,
        )
        return
      }
      if (added.length > 0) setList([...list, ...added])
    },
    remove: (key) => setList(latest.current.filter((attachment) => attachment.key !== key)),
    clear: () => setList([]),
    encode: (attachments) =>
      Promise.all(
        attachments.map(async ({ file }) => ({ data: await base64(file), name: file.name || 'pasted.png' })),
      ),
  }
}

function base64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const reader = new FileReader()
    reader.onload = () => {
      const url = String(reader.result)
      resolve(url.slice(url.indexOf(',') + 1))
    }
    reader.onerror = () => reject(reader.error ?? new Error('the file could not be read'))
    reader.readAsDataURL(file)
  })
}

/** The images a drop or a paste carries (files only; text is left to the textarea). */
export function filesOf(transfer: DataTransfer | null): File[] {
  return transfer ? [...transfer.files] : []
}

/** The attached images as removable thumbnails. */
export function Thumbnails(props: { attachments: Attachments }): VNode | null {
  const { list, remove } = props.attachments
  if (list.length === 0) return null
  return html`<div class="attachments">
    ${list.map(
      (attachment) => html`<div class="attachment" key=${attachment.key} title=${attachment.file.name}>
        <${Thumbnail} file=${attachment.file} />
        <button class="remove-attachment" title="Remove" aria-label=${`Remove ${attachment.file.name}`} onClick=${() => remove(attachment.key)}>×</button>
      </div>`,
    )}
  </div>`
}

const THUMB_PX = 72

/**
 * Drawn on a canvas from the file's decoded bitmap: no `blob:` or `data:` URL, so the page's
 * content security policy (`img-src 'self'`) stays as it is.
 */
function Thumbnail(props: { file: File }): VNode {
  const canvas = useRef<HTMLCanvasElement>(null)
  const [failed, setFailed] = useState(false)
  useEffect(() => {
    let closed = false
    createImageBitmap(props.file).then(
      (bitmap) => {
        const target = canvas.current
        if (closed || !target) return
        const scale = Math.min(THUMB_PX / bitmap.width, THUMB_PX / bitmap.height, 1)
        target.width = Math.max(1, Math.round(bitmap.width * scale))
        target.height = Math.max(1, Math.round(bitmap.height * scale))
        target.getContext('2d')?.drawImage(bitmap, 0, 0, target.width, target.height)
        target.dataset.drawn = 'true'
        bitmap.close()
      },
      () => setFailed(true),
    )
    return () => {
      closed = true
    }
  }, [props.file])
  return failed
    ? html`<span class="thumb broken">${props.file.name}</span>`
    : html`<canvas class="thumb" ref=${canvas} width=${THUMB_PX} height=${THUMB_PX}></canvas>`
}
