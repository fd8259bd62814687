// How long ago something happened, in one short word: the session lists of the command
// line and the chat's pickers show it.

/** `42s`, `5m`, `3h`, `12d`: how long ago `time` was. */
export function formatAge(time: number, now = Date.now()): string {
  const seconds = Math.max(0, Math.round((now - time) / 1000))
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m`
  const hours = Math.floor(minutes / 60)
  if (hours < 48) return `${hours}h`
  return `${Math.floor(hours / 24)}d`
}
