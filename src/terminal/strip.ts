// Terminal output as plain text for the transcript and for `wait_for` patterns: control
// sequences (CSI, OSC, charset and keypad selections) removed, carriage returns dropped.

// CSI … final byte; OSC … BEL or ST; other two-byte escapes; C0 controls except \t and \n.
const CONTROL =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
  /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[PX^_][^\x1b]*\x1b\\|\x1b[()*+][0-9A-Za-z]|\x1b[ -~]|[\x00-\x08\x0b-\x1f\x7f]/g
/** Any control character but \t, \n and \r (ESC among them). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const OTHER_CONTROL = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/

/** True when `text` holds no control character but tab, line feed and carriage return. */
export function isPlain(text: string): boolean {
  return !OTHER_CONTROL.test(text)
}

export function stripControls(text: string): string {
  // Most output is text and line ends: dropping the CRs is several times cheaper than the
  // full pattern (whose result is also built from pieces that must be joined later).
  if (!OTHER_CONTROL.test(text)) return text.includes('\r') ? text.replaceAll('\r', '') : text
  return text.replace(CONTROL, '')
}
