// Examples stay true: every `dsh …` line in a code block of README.md and docs/*.md runs
// against a loopback model (strict DeepSeek mode) in a fresh home, and must not be refused
// as a usage error; one the doc shows failing (`dsh: …` on the next line) must fail with
// those words. Blocks marked `<!-- examples: parse only: reason -->` (they need something
// the test cannot give, such as a PostgreSQL server) and every `dsh …` code span in prose
// are checked against the real command line's help: an unknown command, flag, model,
// effort, sandbox or permission mode fails. YAML blocks must pass the config schema, and
// every field of the configuration table must exist in it.

import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { parse as parseYaml } from 'yaml'
import * as z from 'zod'
import { configSchema } from '../../src/config/index.js'
import { EFFORTS } from '../../src/llm/deepseek/effort.js'
import { DEEPSEEK_MODELS } from '../../src/llm/deepseek/models.js'
import { PERMISSION_MODES } from '../../src/permissions/modes.js'
import { SANDBOX_MODES } from '../../src/shell/sandbox/bwrap.js'
import { assertBuilt, CLI, cliEnv, makeWorld, spawnCli, useModelWorlds } from '../apps/cli/cli.js'
import { useTempDirs } from '../support/temp-dir.js'
import { until } from '../support/until.js'
import { configTableFields, docFiles, readDocs } from './doc-examples.js'

const ROOT = resolve('.')
const docs = readDocs(ROOT)
const runnable = docs.examples.filter((example) => example.parseOnly === undefined)

/** Commands of the built CLI: path ("" for the program) → its options and subcommands. */
interface CommandInfo {
  options: Set<string>
  commands: Set<string>
}
const commands = new Map<string, CommandInfo>()

function helpOf(path: string[]): CommandInfo {
  const result = spawnSync(process.execPath, [CLI, ...path, '--help'], { encoding: 'utf8', env: cliEnv() })
  if (result.status !== 0) throw new Error(`dsh ${path.join(' ')} --help exited ${result.status}`)
  const info: CommandInfo = { options: new Set(['-h', '--help']), commands: new Set() }
  let section = ''
  for (const line of result.stdout.split('\n')) {
    if (/^\S.*:$/.test(line)) section = line
    const option = /^ {2}(?:(-\w), )?(--[\w-]+)/.exec(line)
    if (section === 'Options:' && option) {
      if (option[1]) info.options.add(option[1])
      info.options.add(option[2]!)
    }
    const command = /^ {2}(\w[\w-]*)/.exec(line)
    if (section === 'Commands:' && command) info.commands.add(command[1]!)
  }
  return info
}

function learn(path: string[]): void {
  const info = helpOf(path)
  commands.set(path.join(' '), info)
  for (const name of info.commands) if (name !== 'help') learn([...path, name])
}

const VALUES: Record<string, readonly string[]> = {
  '-m': DEEPSEEK_MODELS,
  '--model': DEEPSEEK_MODELS,
  '--effort': EFFORTS,
  '--sandbox': SANDBOX_MODES,
  '--permission-mode': PERMISSION_MODES,
}

/** What is wrong with an argv by the command line's own help, or undefined. */
function problemWith(argv: string[]): string | undefined {
  let path: string[] = []
  let rest = argv
  // Bare `dsh -m X` is the chat with options.
  if (rest[0]?.startsWith('-') && rest[0] !== '-' && !['-h', '--help', '-V', '--version'].includes(rest[0])) {
    path = ['chat']
  }
  while (rest.length > 0 && commands.get(path.join(' '))?.commands.has(rest[0]!)) {
    path = [...path, rest[0]!]
    rest = rest.slice(1)
  }
  if (path.length === 0 && rest.length > 0 && !rest[0]!.startsWith('-') && rest[0] !== 'help') {
    return `unknown command "${rest[0]}"`
  }
  const info = commands.get(path.join(' '))!
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!
    if (word === '--') break
    if (!word.startsWith('-') || word === '-') continue
    const flag = word.split('=')[0]!
    if (!info.options.has(flag) && !(path.length === 0 && ['-V', '--version'].includes(flag))) {
      return `dsh ${path.join(' ')} has no option ${flag}`
    }
    const allowed = VALUES[flag]
    const value = word.includes('=') ? word.slice(flag.length + 1) : rest[i + 1]
    if (allowed && value !== undefined && !allowed.includes(value))
      return `${flag} ${value} is not one of ${allowed.join(', ')}`
  }
  return undefined
}

const where = (item: { file: string; line: number }) => `${item.file}:${item.line}`

describe('examples stay true', () => {
  beforeAll(() => {
    assertBuilt()
    learn([])
  }, 120_000)

  it('finds the examples, mentions and config blocks', () => {
    expect(runnable.length).toBeGreaterThan(20)
    expect(docs.mentions.length).toBeGreaterThan(100)
    expect(docs.yamlBlocks.length).toBeGreaterThan(5)
  })

  it('every dsh mention and example names real commands, flags, models and modes', () => {
    const problems: string[] = []
    for (const item of [...docs.mentions, ...docs.examples.filter((example) => !example.shownError)]) {
      const problem = problemWith(item.argv)
      if (problem) problems.push(`${where(item)}: dsh ${item.argv.join(' ')}: ${problem}`)
    }
    expect(problems).toEqual([])
  })

  it('finds an unknown flag, model or command (the check itself)', () => {
    expect(problemWith(['run', '--bogus', 'x'])).toMatch(/no option --bogus/)
    expect(problemWith(['-m', 'deepseek-pro'])).toMatch(/deepseek-pro is not one of/)
    expect(problemWith(['sessions', 'lsit'])).toBeUndefined() // an operand of `sessions`: caught when run
    expect(problemWith(['frobnicate'])).toMatch(/unknown command/)
    expect(problemWith(['sessions', 'prune', '--older-than', '30d', '--dry-run'])).toBeUndefined()
  })

  it('every YAML block is a valid config (or a valid part of one)', () => {
    const problems: string[] = []
    for (const block of docs.yamlBlocks) {
      const result = configSchema.safeParse(parseYaml(block.text) ?? {})
      if (!result.success)
        problems.push(
          `${where(block)}: ${result.error.issues[0]!.path.join('.')}: ${result.error.issues[0]!.message}`,
        )
    }
    expect(problems).toEqual([])
  })

  it('every relative link of README and docs names a file that exists', () => {
    const broken: string[] = []
    for (const file of docFiles(ROOT)) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      for (const match of text.matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
        const target = match[1]!
        if (/^[a-z]+:/.test(target)) continue
        if (!existsSync(join(ROOT, dirname(file), target))) broken.push(`${file}: ${target}`)
      }
    }
    expect(broken).toEqual([])
  })

  it('every field of the configuration table exists in the schema', () => {
    const fields = configTableFields(ROOT)
    expect(fields.length).toBeGreaterThan(40)
    const missing = fields.filter((field) => !schemaHas(configSchema, field.replace(/\[\]$/, '').split('.')))
    expect(missing).toEqual([])
    expect(schemaHas(configSchema, ['model', 'nosuchfield'])).toBe(false)
  })
})

describe('examples run against a loopback model', () => {
  const makeDir = useTempDirs('dsh-examples-')
  const startWorld = useModelWorlds(makeDir)
  beforeAll(() => assertBuilt())

  it.each(runnable.map((example) => [`${where(example)}: ${example.source.trim()}`, example] as const))(
    '%s',
    async (_, example) => {
      const replies = Array.from({ length: 20 }, () => ({ text: 'Done.' }))
      // A loopback model needs no key, so the missing-key example points at a host that is not
      // loopback (and never resolves: the key check must come first).
      const keyless = example.shownError?.includes('API key') === true
      const world = keyless
        ? makeWorld(makeDir(), 'http://model.invalid/v1')
        : await startWorld(replies, { strict: true })
      const env = keyless ? { ...world.env, DEEPSEEK_API_KEY: undefined } : world.env
      const argv = [...example.argv]
      // A server example listens on a free port and counts once it is up.
      const server = argv[0] === 'web'
      if (server && !argv.includes('--port')) argv.push('--port', '0')
      const child = spawnCli(argv, { env, cwd: world.project, input: example.stdin ?? '', timeoutMs: 60_000 })
      if (server) {
        await until(() => /open http/.test(child.stdout() + child.stderr()), 30_000, "the web server's URL")
        child.child.kill('SIGINT')
      }
      const result = await child.done
      const said = `${result.stdout}\n${result.stderr}`
      if (example.shownError) {
        expect(result.stderr).toMatch(shownPattern(example.shownError))
        return
      }
      expect(said).not.toMatch(/unknown option|unknown command|too many arguments|missing required/)
      // 2 is a command line that is wrong; an example's placeholder session id is the one value
      // allowed to name nothing (it exits 2 too, as `dsh: unknown session "…"`).
      if (!/^dsh: unknown session "[^"]+"\n$/.test(result.stderr)) expect(result.code, said).not.toBe(2)
      expect(said).not.toMatch(/^\s+at .+:\d+:\d+\)?$/m)
    },
    90_000,
  )
})

/** The shown error line as a pattern: `…` stands for anything. */
function shownPattern(line: string): RegExp {
  return new RegExp(
    line
      .split('…')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*'),
  )
}

/** Whether a config path exists in the schema (through optional, default, array and record). */
function schemaHas(schema: z.ZodType, path: string[]): boolean {
  let node: z.ZodType = schema
  for (const key of path) {
    node = unwrap(node)
    if (node instanceof z.ZodObject) {
      const next = (node.shape as Record<string, z.ZodType>)[key]
      if (next === undefined) return false
      node = next
    } else if (node instanceof z.ZodRecord) {
      node = node.valueType as z.ZodType
    } else {
      return false
    }
  }
  return true
}

function unwrap(schema: z.ZodType): z.ZodType {
  let node = schema
  for (;;) {
    if (node instanceof z.ZodOptional || node instanceof z.ZodDefault || node instanceof z.ZodNullable) {
      node = node.unwrap() as z.ZodType
    } else if (node instanceof z.ZodLazy) {
      // config/schema.ts builds each section on first use
      node = node.unwrap() as z.ZodType
    } else if (node instanceof z.ZodArray) {
      node = node.element as z.ZodType
    } else if (node instanceof z.ZodPipe) {
      node = node.in as z.ZodType
    } else {
      return node
    }
  }
}
