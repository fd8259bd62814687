// Reading and writing text files the way an editor must: the file's encoding (UTF-8, UTF-8
// with BOM, UTF-16 LE with BOM, else Latin-1), line endings and final newline are kept;
// binary files are recognised; writes are atomic (temp file + rename) and keep the mode.

import { randomBytes } from 'node:crypto'
import { chmod, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'

export type TextEncodingName = 'utf8' | 'utf8-bom' | 'utf16le' | 'latin1'

export interface DecodedText {
  text: string
  encoding: TextEncodingName
  /** `\r\n` when every line break is CRLF, else `\n` (mixed files are matched as they are). */
  eol: '\n' | '\r\n'
}

const BINARY_SAMPLE_BYTES = 8000
const utf8Strict = new TextDecoder('utf-8', { fatal: true })

/** True when the bytes look binary: a NUL byte in the first 8000 bytes (outside UTF-16 text). */
export function looksBinary(bytes: Uint8Array): boolean {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return false
  const end = Math.min(bytes.length, BINARY_SAMPLE_BYTES)
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true
  return false
}

export function decodeText(bytes: Buffer): DecodedText {
  let text: string
  let encoding: TextEncodingName
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    encoding = 'utf8-bom'
    text = bytes.subarray(3).toString('utf8')
  } else if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    encoding = 'utf16le'
    text = bytes.subarray(2).toString('utf16le')
  } else {
    try {
      text = utf8Strict.decode(bytes)
      encoding = 'utf8'
    } catch {
      // Not valid UTF-8: Latin-1 maps every byte to one character, so it round-trips exactly.
      text = bytes.toString('latin1')
      encoding = 'latin1'
    }
  }
  return { text, encoding, eol: lineEnding(text) }
}

export function encodeText(text: string, encoding: TextEncodingName): Buffer {
  switch (encoding) {
    case 'utf8':
      return Buffer.from(text, 'utf8')
    case 'utf8-bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')])
    case 'utf16le':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')])
    case 'latin1':
      return Buffer.from(text, 'latin1')
  }
}

function lineEnding(text: string): '\n' | '\r\n' {
  const crlf = text.split('\r\n').length - 1
  if (crlf === 0) return '\n'
  const lf = text.split('\n').length - 1
  return crlf === lf ? '\r\n' : '\n'
}

/** Text with CRLF turned into LF when the file uses CRLF throughout (what the model sees and edits). */
export function toModelText(decoded: DecodedText): string {
  return decoded.eol === '\r\n' ? decoded.text.replaceAll('\r\n', '\n') : decoded.text
}

/** The model's LF text back in the file's own line endings. */
export function fromModelText(text: string, eol: '\n' | '\r\n'): string {
  return eol === '\r\n' ? text.replace(/\r?\n/g, '\r\n') : text
}

export async function readTextFile(path: string): Promise<{ bytes: Buffer; decoded: DecodedText }> {
  const bytes = await readFile(path)
  return { bytes, decoded: decodeText(bytes) }
}

/**
 * Replaces `path` atomically: the bytes go to a temporary file beside it, which takes the
 * old file's mode and is renamed over it. A reader sees the old or the new file, never half.
 */
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  let mode: number | undefined
  try {
    mode = (await stat(path)).mode & 0o7777
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  const temp = join(dirname(path), `.${basename(path)}.dsh-${randomBytes(4).toString('hex')}.tmp`)
  try {
    await writeFile(temp, bytes, { flag: 'wx', ...(mode !== undefined ? { mode } : {}) })
    if (mode !== undefined) await chmod(temp, mode) // the umask may have narrowed it
    await rename(temp, path)
  } catch (error) {
    await rm(temp, { force: true })
    throw error
  }
}
