// shellQuote through a real bash: the word comes back exactly, nothing expanded.

import { execFileSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { shellQuote } from '../../src/core/shell-quote.js'

describe('shellQuote', () => {
  it('gives bash back the exact word: quotes, spaces, $, backslashes, newlines, an empty word', () => {
    for (const word of [
      "it's",
      "''",
      ' a  b ',
      '$HOME $(id) `id`',
      'back\\slash',
      'two\nlines',
      '',
      '*?[x]',
    ]) {
      const printed = execFileSync('bash', ['-c', `printf '%s' ${shellQuote(word)}`], { encoding: 'utf8' })
      expect(printed).toBe(word)
    }
  })
})
