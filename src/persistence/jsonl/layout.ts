// Pure path layout of the JSONL backend: `<root>/<bucket>/<encoded-id>.jsonl`.
// Nothing here touches the disk; `locate` is built from these functions alone.

import { createHash } from 'node:crypto'
import { sep } from 'node:path'
import { MAX_SESSION_ID_LENGTH } from '../../session/id.js'
import { validateSessionId } from '../../session/session.js'
import type { SessionId } from '../../session/types.js'

export const LOG_SUFFIX = '.jsonl'
export const LOCK_SUFFIX = '.lock'
export const NO_CWD_BUCKET = '_no-cwd'

/** The one id rule (src/session/id.ts): longer ids are refused with SESSION_INVALID_ID, like any invalid id. */
export { MAX_SESSION_ID_LENGTH }

/**
 * Longest file-name stem (encoded id) written verbatim. The longest name derived
 * from a stem is a temporary lock name, `<stem>.jsonl.lock.<uuid>.tmp` (stem + 52
 * bytes), so every name stays at or under 232 bytes, below the 255-byte limit of
 * common file systems.
 */
export const MAX_PLAIN_ENCODED_LENGTH = 180

/** Longest suffix a derived file name adds to a stem: see `tempSibling`. */
export const MAX_DERIVED_SUFFIX_LENGTH = LOG_SUFFIX.length + LOCK_SUFFIX.length + 1 + 36 + 4

/** Readable prefix kept in front of the hash of an id whose encoding is too long (stem: 166 characters). */
const HASHED_PREFIX_LENGTH = 100
/** Marks a hashed stem. A plain encoding never holds `~~`: every `~` it writes starts a 4-digit escape. */
const HASH_MARKER = '~~'
const MAX_SLUG_LENGTH = 80
const CWD_HASH_DIGITS = 12

const HEX = '0123456789ABCDEF'

function isKept(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x30 && code <= 0x39) || // 0-9
    code === 0x2e || // .
    code === 0x5f || // _
    code === 0x2d // -
  )
}

function escapeUnit(code: number): string {
  return `~${HEX[(code >> 12) & 15]}${HEX[(code >> 8) & 15]}${HEX[(code >> 4) & 15]}${HEX[code & 15]}`
}

/** Keeps `[A-Za-z0-9._-]` and writes every other UTF-16 code unit as `~XXXX`. */
function escapeUnits(text: string): string {
  let out = ''
  let runStart = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (isKept(code)) continue
    out += text.slice(runStart, i) + escapeUnit(code)
    runStart = i + 1
  }
  return out + text.slice(runStart)
}

/**
 * Cuts an escaped string to at most `max` (at least 5) characters without splitting a
 * `~XXXX` escape: when the last `~` before the cut starts an escape that runs past it, the
 * cut moves before that `~`. A string that fits ends in whole escapes and is kept whole.
 */
function cutEscaped(escaped: string, max: number): string {
  const tilde = escaped.lastIndexOf('~', max - 1) // none: -1 + 5 stays below max
  return escaped.slice(0, tilde + 5 > max ? tilde : max)
}

/**
 * The injective, path-safe file-name stem of a session id.
 *
 * Ids whose escaped form fits in MAX_PLAIN_ENCODED_LENGTH are written verbatim
 * (escaped; the whole segments `.` and `..` become `~002E` and `~002E~002E`), so
 * `decodeSessionId` recovers them. Longer ids (up to MAX_SESSION_ID_LENGTH, e.g.
 * a 1,000-character id) become `<escaped prefix>~~<sha256 of the UTF-16 code
 * units>`; the full id lives in the header line. The two forms cannot meet (only
 * the hashed form holds `~~`), so the mapping stays injective.
 *
 * @throws DshError SESSION_INVALID_ID for an id the one id rule refuses (empty, too long, NUL, ...),
 * with the same code and message as every other backend.
 */
export function encodeSessionId(id: SessionId): string {
  validateSessionId(id)
  if (id === '.') return '~002E'
  if (id === '..') return '~002E~002E'
  const escaped = escapeUnits(id)
  if (escaped.length <= MAX_PLAIN_ENCODED_LENGTH) return escaped
  const digest = createHash('sha256').update(Buffer.from(id, 'utf16le')).digest('hex')
  return `${cutEscaped(escaped, HASHED_PREFIX_LENGTH)}${HASH_MARKER}${digest}`
}

/**
 * The id a plain stem encodes, or undefined for a hashed stem (read the header instead) or a
 * malformed one. A hashed stem is refused by the escape test: the `~` that starts its `~~`
 * is not followed by four hex digits. A stem the encoding would not write for its id (`~0061`
 * for `a`, a raw `.`, a plain stem past the length limit) is refused too: a stray file
 * beside the real one must not be read as that session.
 */
export function decodeSessionId(stem: string): SessionId | undefined {
  const id = decodeEscapes(stem)
  if (id === undefined) return undefined
  try {
    return encodeSessionId(id) === stem ? id : undefined
  } catch {
    return undefined // an id the id rule refuses (e.g. too long) is no session's
  }
}

function decodeEscapes(stem: string): string | undefined {
  let out = ''
  for (let i = 0; i < stem.length; i++) {
    const char = stem[i]!
    if (char !== '~') {
      if (!isKept(char.charCodeAt(0))) return undefined
      out += char
      continue
    }
    const hex = stem.slice(i + 1, i + 5)
    if (!/[0-9A-F]{4}/.test(hex)) return undefined // `hex` is at most 4 long: a match is all of it
    out += String.fromCharCode(Number.parseInt(hex, 16))
    i += 4
  }
  return out.length > 0 ? out : undefined
}

/**
 * The bucket folder of a working directory: a readable slug (separators become
 * `-`, other unsafe characters are escaped, cut to 80 characters) followed by `-`
 * and the first 12 hex digits of the SHA-256 of the cwd. No cwd → `_no-cwd`.
 */
export function bucketFor(cwd: string | undefined): string {
  if (cwd === undefined || cwd === '') return NO_CWD_BUCKET
  const slug = cutEscaped(escapeUnits(cwd.replace(/[/\\]/g, '-')), MAX_SLUG_LENGTH)
  const hash = createHash('sha256').update(cwd).digest('hex').slice(0, CWD_HASH_DIGITS)
  return `${slug}-${hash}`
}

/**
 * Computes session file paths under one absolute root. Memoizes buckets and
 * stems (bounded) because `locate` runs on every tool call and hook payload.
 */
export class SessionLayout {
  private readonly buckets = new Map<string, string>()
  private readonly stems = new Map<string, string>()

  /** @param root an absolute folder; the caller resolves it. */
  constructor(readonly root: string) {}

  bucketDir(cwd: string | undefined): string {
    return this.root + sep + this.bucket(cwd)
  }

  /** Absolute path of the session's log. Pure; throws only for an invalid id. */
  sessionPath(id: SessionId, cwd: string | undefined): string {
    return `${this.root}${sep}${this.bucket(cwd)}${sep}${this.stem(id)}${LOG_SUFFIX}`
  }

  fileName(id: SessionId): string {
    return this.stem(id) + LOG_SUFFIX
  }

  private bucket(cwd: string | undefined): string {
    // Stryker disable next-line StringLiteral: no cwd and '' share the bucket _no-cwd; another key for no cwd gives the same buckets unless a cwd is spelt exactly like that key
    const key = cwd ?? ''
    return this.buckets.get(key) ?? remember(this.buckets, key, bucketFor(cwd))
  }

  private stem(id: SessionId): string {
    return this.stems.get(id) ?? remember(this.stems, id, encodeSessionId(id))
  }
}

/** A temporary name next to `path` (same folder, never ending in `.jsonl`); `nonce` is a UUID. */
export function tempSibling(path: string, nonce: string): string {
  return `${path}.${nonce}.tmp`
}

const MEMO_LIMIT = 4096

/** Stores `value` and returns it; a full memo starts over, so it never holds more than MEMO_LIMIT entries. */
function remember(map: Map<string, string>, key: string, value: string): string {
  if (map.size >= MEMO_LIMIT) map.clear()
  map.set(key, value)
  return value
}
