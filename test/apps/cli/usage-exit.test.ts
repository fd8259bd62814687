// One rule for exit codes: whatever is wrong with the command line itself — an unknown
// command or option, a missing or malformed value, flags that cannot be combined, a value
// that names nothing (a folder, a session, a config file, an agents[] row) — is one line
// on stderr and exit 2, before any model request. Tested for every option that takes a value.

import { beforeAll, expect, it } from 'vitest'
import { useTempDirs } from '../../support/temp-dir.js'
import { assertBuilt, hasStack, runCli, useModelWorlds } from './cli.js'

const makeDir = useTempDirs('dsh-cli-usage-')
const startWorld = useModelWorlds(makeDir)

beforeAll(assertBuilt)

/** [what is wrong, the arguments]: each must exit 2 with one `dsh:` line. */
const CASES: Array<[string, string[]]> = [
  ['unknown command', ['frobnicate']],
  ['unknown help topic', ['help', 'frobnicate']],
  ['unknown option', ['run', '--bogus', 'hi']],
  ['missing prompt', ['run']],
  ['empty prompt', ['run', '  ']],
  ['--effort', ['run', '--effort', 'medium', 'hi']],
  ['--permission-mode', ['run', '--permission-mode', 'yolo', 'hi']],
  ['--allowed-tools', ['run', '--allowed-tools', 'Bash(', 'hi']],
  ['--disallowed-tools', ['run', '--disallowed-tools', 'Nope(x', 'hi']],
  ['--sandbox', ['run', '--sandbox', 'maybe', 'hi']],
  ['-C', ['run', '-C', '/nonexistent/dsh-folder', 'hi']],
  ['--cwd on a file', ['run', '--cwd', '/etc/hostname', 'hi']],
  ['-C empty', ['run', '-C', '', 'hi']],
  ['-m empty', ['run', '-m', '', 'hi']],
  ['-m blank', ['run', '-m', '   ', 'hi']],
  ['-r', ['run', '-r', 'nope', 'hi']],
  ['--resume', ['run', '--resume', 'nope', 'hi']],
  ['--fork', ['run', '--fork', 'nope', 'hi']],
  ['--session-id empty', ['run', '--session-id', '', 'hi']],
  ['-r with --fork', ['run', '-r', 'a', '--fork', 'b', 'hi']],
  ['--agent', ['run', '--agent', 'nobody', 'hi']],
  ['--config', ['run', '--config', '/nonexistent/dsh.yaml', 'hi']],
  ['--max-turns', ['run', '--max-turns', '0', 'hi']],
  ['--max-cost', ['run', '--max-cost', 'lots', 'hi']],
  ['chat --effort', ['chat', '--effort', 'medium']],
  ['bare -r', ['-r', 'nope']],
  ['sessions show', ['sessions', 'show', 'nope']],
  ['sessions path', ['sessions', 'path', 'nope']],
  ['sessions export --format', ['sessions', 'export', 'nope', '--format', 'pdf']],
  ['sessions list --status', ['sessions', 'list', '--status', 'sleepy']],
  ['sessions list -C', ['sessions', 'list', '-C', '/nonexistent/dsh-folder']],
  ['sessions prune --older-than', ['sessions', 'prune', '--older-than', 'soon']],
  ['sessions tail -n', ['sessions', 'tail', 'nope', '-n', 'many']],
  ['sessions rewind --to-turn', ['sessions', 'rewind', 'nope', '--to-turn', 'x']],
  ['sessions migrate --from', ['sessions', 'migrate', '--from', 'floppy', '--to', 'jsonl']],
  ['hooks list -C', ['hooks', 'list', '-C', '/nonexistent/dsh-folder']],
  ['mcp add -t', ['mcp', 'add', '-t', 'pigeon', 'x', 'y']],
  ['mcp add -s', ['mcp', 'add', '-s', 'galaxy', 'x', 'y']],
  ['mcp list -C', ['mcp', 'list', '-C', '/nonexistent/dsh-folder']],
  ['web -p', ['web', '-p', 'eighty']],
  ['stdio --permission-mode', ['stdio', '--permission-mode', 'yolo']],
  ['acp --sandbox', ['acp', '--sandbox', 'maybe']],
  ['models --config', ['models', '--config', '/nonexistent/dsh.yaml']],
]

it.each(CASES)('%s: one line, exit 2, no request', async (_what, args) => {
  const w = await startWorld([{ text: 'never' }], { strict: true })
  const result = await runCli(args, { env: w.env, cwd: w.project })
  const lines = result.stderr.trimEnd().split('\n')
  expect(lines, result.stderr).toHaveLength(1)
  expect(lines[0]).toMatch(/^dsh: /)
  expect(hasStack(result.stderr)).toBe(false)
  expect(result.code, result.stderr).toBe(2)
  expect(w.model.requests).toHaveLength(0)
})

it('help on help shows the help, exit 0 (help [command] is listed among the commands)', async () => {
  const w = await startWorld([{ text: 'never' }], { strict: true })
  const result = await runCli(['help', 'help'], { env: w.env, cwd: w.project })
  expect(result.code, result.stderr).toBe(0)
  expect(result.stdout).toContain('help [command]')
  expect(result.stderr).toBe('')
})
