// One word for a POSIX shell's command line, exactly as given.

/** `word` in single quotes, each `'` in it closed, escaped and reopened: the shell expands nothing. */
export function shellQuote(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`
}
