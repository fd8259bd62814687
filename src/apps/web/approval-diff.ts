// What an approval card shows for a file edit before it runs: the lines it takes out (-)
// and puts in (+), from the call's own arguments, bounded. The real unified diff comes
// with the result once the edit ran.

/** Lines of a proposed edit shown in an approval card, at most. */
export const APPROVAL_DIFF_LINES = 200

interface Replacement {
  old_string?: unknown
  new_string?: unknown
}

function lines(text: unknown): string[] {
  return typeof text === 'string' && text !== '' ? text.replace(/\n$/, '').split('\n') : []
}

/** The proposed change of a `write`, `edit` or `multi_edit` call; undefined for other tools. */
export function proposedDiff(tool: string, input: unknown): string[] | undefined {
  if (typeof input !== 'object' || input === null) return undefined
  const args = input as { file_path?: unknown; content?: unknown; edits?: unknown } & Replacement
  const path = typeof args.file_path === 'string' ? args.file_path : '(no file_path)'
  let body: string[]
  if (tool === 'write') body = lines(args.content).map((line) => `+${line}`)
  else if (tool === 'edit') body = replacement(args)
  else if (tool === 'multi_edit' && Array.isArray(args.edits))
    body = (args.edits as Replacement[]).flatMap((edit, index) => [
      `@@ edit ${index + 1} @@`,
      ...replacement(edit),
    ])
  else return undefined
  const shown = body.slice(0, APPROVAL_DIFF_LINES)
  if (body.length > shown.length) shown.push(`@@ … ${body.length - shown.length} more lines @@`)
  return [`+++ ${path}`, ...shown]
}

function replacement(edit: Replacement): string[] {
  return [
    ...lines(edit.old_string).map((line) => `-${line}`),
    ...lines(edit.new_string).map((line) => `+${line}`),
  ]
}
