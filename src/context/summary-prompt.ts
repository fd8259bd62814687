// The model-facing request for a summary: the last user message of the summary call.

/** Asks for the structured summary that will stand for the conversation so far. */
export function summaryRequestText(instructions?: string): string {
  const lines = [
    'The conversation above is about to be replaced by a summary, because the context window is filling up.',
    'Do not call any tools. Write the summary now, as plain text, so that you can continue the work from it alone.',
    'Use these sections:',
    "1. Task: what the user asked for, with the user's own instructions and requirements quoted verbatim.",
    '2. Decisions: what was decided and why.',
    '3. Files: every file read, created or changed, with what changed.',
    '4. Commands: the commands run that matter and their outcomes (passed, failed, the error).',
    '5. Open problems: errors not yet solved, questions not yet answered.',
    '6. Next steps: exactly what to do next, in order.',
    'Be specific: names, paths, numbers and error messages, not generalities.',
  ]
  if (instructions?.trim()) lines.push('', `The user asks that the summary: ${instructions.trim()}`)
  return lines.join('\n')
}
