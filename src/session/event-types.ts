// The closed set of event types a stored log may contain. Anything else must be
// marked `ignorable` or the log is refused on load.

import type { CoreEventType } from './types.js'

const CORE_EVENT_TYPES: Record<CoreEventType, true> = {
  'turn/start': true,
  'turn/end': true,
  'step/start': true,
  'step/end': true,
  'user/message': true,
  'assistant/message': true,
  'tool/call': true,
  'tool/result': true,
  'hook/invoked': true,
  'hook/result': true,
  'context/added': true,
  'request/config': true,
  'file/read': true,
  'file/change': true,
  'todo/update': true,
  'instructions/loaded': true,
  'session/title': true,
  'session/settings': true,
  'session/forked': true,
  'usage/charge': true,
  'context/compacted': true,
}

export function isKnownEventType(type: string): type is CoreEventType {
  return Object.hasOwn(CORE_EVENT_TYPES, type)
}
