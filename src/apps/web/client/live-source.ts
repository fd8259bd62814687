// A session's live stream (server-sent events) that notices when the server is gone.
// EventSource retries on its own; a stream the server refused (closed for good), or one not
// open again LOST_AFTER_MS after an error, is given up and reported once.

/** What a page says once its stream is lost. */
export const LOST_NOTICE =
  'connection to dsh web lost: the server stopped or cannot be reached. When it runs again, open the URL it prints.'

/** How long a broken stream may take to come back, in ms: more than one of EventSource's ~3 s retries. */
export const LOST_AFTER_MS = 5_000

export interface LiveSourceHandle {
  close(): void
}

/** Opens `url`; `onMessage` gets each message's data, `onLost` is called at most once, after which nothing more arrives. */
export function openLiveSource(
  url: string,
  onMessage: (data: string) => void,
  onLost: () => void,
): LiveSourceHandle {
  const source = new EventSource(url)
  let timer: ReturnType<typeof setTimeout> | undefined
  const stop = () => {
    clearTimeout(timer)
    timer = undefined
    source.close()
  }
  source.onmessage = (message) => onMessage(message.data as string)
  source.onopen = () => {
    clearTimeout(timer)
    timer = undefined
  }
  source.onerror = () => {
    if (source.readyState === EventSource.CLOSED) {
      stop()
      onLost()
      return
    }
    timer ??= setTimeout(() => {
      timer = undefined
      if (source.readyState === EventSource.OPEN) return
      stop()
      onLost()
    }, LOST_AFTER_MS)
  }
  return { close: stop }
}
