// Plan mode's classifier: which bash command lines only read. Anything not proved
// read-only is refused (fail closed), with the reason.

import { describe, expect, it } from 'vitest'
import { decideToolPermission } from '../../src/permissions/policy.js'
import { isReadOnlyCommand, notReadOnly } from '../../src/permissions/read-only-command.js'
import { EMPTY_RULE_SET } from '../../src/permissions/rule-set.js'

describe('isReadOnlyCommand', () => {
  it.each([
    'ls -la',
    'git status',
    'git log --oneline -5',
    'git -C sub diff HEAD~1',
    'git branch -a',
    'rg -n TODO src | head -20',
    'cat a.txt && wc -l b.txt',
    'find . -name "*.ts" -type f',
    'grep -r foo . 2>/dev/null',
    'ls missing 2>&1 | sort',
    'LC_ALL=C sort names.txt',
    'timeout 5 cat x',
    'echo hi',
    'pwd; ls',
  ])('reads: %s', (command) => {
    expect(notReadOnly(command)).toBeUndefined()
  })

  it.each([
    ['rm -rf build', /rm: not a known read-only command/],
    ['ls > listing.txt', /redirection > listing.txt writes/],
    ['echo x >> notes', /redirection >> notes/],
    ['cat $(echo secret)', /\$\(/],
    ['echo `rm x`', /backquotes/],
    ['find . -name x -delete', /-delete writes/],
    ['find . -exec rm {} ;', /-exec/],
    ['sort -o out.txt in.txt', /-o writes/],
    ['rg --pre ./evil x', /--pre/],
    ['git commit -m x', /git commit may change/],
    ['git branch new-feature', /git branch may change/],
    ['git diff --output=patch', /--output/],
    ['ls && npm install', /npm: not a known/],
    ['env rm x', /rm: /],
    ['sed -i s/a/b/ f', /sed: not a known/],
    ['', /empty/],
  ])('does not: %s', (command, why) => {
    expect(notReadOnly(command)).toMatch(why)
    expect(isReadOnlyCommand(command)).toBe(false)
  })
})

describe('plan mode and bash', () => {
  const decide = (command: string) =>
    decideToolPermission({
      mode: 'plan',
      rules: EMPTY_RULE_SET,
      subject: { tool: 'Bash', input: { command }, cwd: '/work/proj' },
      projectRoot: '/work/proj',
    })

  it('runs a read-only command without asking', () => {
    expect(decide('git log -3').behavior).toBe('allow')
  })

  it('refuses any other with the reason', () => {
    const decision = decide('touch x')
    expect(decision.behavior).toBe('deny')
    expect(decision.behavior === 'deny' && decision.reason).toMatch(
      /plan mode is on: only read-only commands run, and this one is not \(touch: not a known read-only command\)/,
    )
  })
})
