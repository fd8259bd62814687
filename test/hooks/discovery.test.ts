// Hook discovery through the composition root: the project's own files (found from the
// session's cwd), project trust (headless loads what --trust-project or an unchanged
// trusted folder allows, interactive asks once and remembers, --no-project-config refuses),
// and files that appear after start being reported.

import { existsSync, mkdirSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { HarnessOptions } from '../../src/harness/index.js'
import { fingerprintProjectConfig, ProjectTrustStore } from '../../src/trust/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'
import { readRecords, writeRecorder } from './rig.js'

const tempDir = useTempDirs('dsh-hooks-discovery-')
const start = useTestHarnesses()

/** A git project with a nested working folder, and a recorder hook in each named settings file. */
function project(files: Record<string, string>) {
  const dir = tempDir()
  const root = join(dir, 'repo')
  const cwd = join(root, 'packages', 'app')
  mkdirSync(join(root, '.git'), { recursive: true })
  mkdirSync(cwd, { recursive: true })
  const out = join(dir, 'runs.jsonl')
  for (const [file, event] of Object.entries(files)) {
    mkdirSync(join(root, file, '..'), { recursive: true })
    const recorder = writeRecorder(dir, `${file.replace(/\W/g, '_')}.sh`, out)
    writeFileSync(
      join(root, file),
      JSON.stringify({ hooks: { [event]: [{ hooks: [{ command: recorder }] }] } }),
    )
  }
  return { dir, root, cwd, out }
}

async function harnessWith(home: string, trust: HarnessOptions['trust']) {
  const test = await start({ home, script: [{ text: 'one' }, { text: 'two' }], trust })
  const warnings: string[] = []
  test.harness.ctx.logger.exporter({
    export(message) {
      if (message.type === 'warn') warnings.push(message.args.map(String).join(' '))
    },
  })
  return { ...test, warnings }
}

describe('project hook files', () => {
  it('headless with --trust-project: .claude/settings.json and settings.local.json of the project root run, CLAUDE_PROJECT_DIR is the root', async () => {
    const p = project({ '.claude/settings.json': 'UserPromptSubmit', '.claude/settings.local.json': 'Stop' })
    const t = await harnessWith(tempDir(), { frontEnd: 'headless', granted: true })
    const agent = await t.harness.agents.create({ sessionId: 'proj', meta: { cwd: p.cwd } })
    await agent.prompt('hi')
    const runs = readRecords(p.out)
    expect(runs.map((run) => run.payload.hook_event_name)).toEqual(['UserPromptSubmit', 'Stop'])
    expect(runs.every((run) => run.projectDir === p.root)).toBe(true)
  })

  it('headless without trust runs none of them and says so in one line; a trusted, unchanged folder runs them', async () => {
    const p = project({ '.claude/settings.json': 'UserPromptSubmit' })
    const home = tempDir()
    const t = await harnessWith(home, { frontEnd: 'headless' })
    const agent = await t.harness.agents.create({ sessionId: 'never', meta: { cwd: p.cwd } })
    await agent.prompt('hi')
    expect(existsSync(p.out)).toBe(false)
    expect(t.warnings).toEqual([
      expect.stringContaining(
        `project ${p.root}: not trusted; not loaded: 1 Claude Code hook (.claude/settings.json) (trust it in dsh chat, or pass --trust-project)`,
      ),
    ])
    // Trusted with today's content (a yes in chat): the next headless run loads the hooks.
    new ProjectTrustStore(home).trust(p.root, Date.now(), fingerprintProjectConfig(p.root))
    const again = await harnessWith(home, { frontEnd: 'headless' })
    await (await again.harness.agents.create({ sessionId: 'trusted', meta: { cwd: p.cwd } })).prompt('hi')
    expect(readRecords(p.out)).toHaveLength(1)
    expect(again.warnings).toEqual([])
  })

  it('headless: .codex/hooks.json runs through the Codex bridge', async () => {
    const p = project({ '.codex/hooks.json': 'UserPromptSubmit' })
    const t = await harnessWith(tempDir(), { frontEnd: 'headless', granted: true })
    const agent = await t.harness.agents.create({ sessionId: 'codex-proj', meta: { cwd: p.cwd } })
    await agent.prompt('hi')
    expect(
      readRecords(p.out).map((run) => run.payload.transcript_path === null || typeof run.payload.turn_id),
    ).toEqual(['string'])
  })

  it('interactive: asks once, runs the hooks after a yes and remembers it in the harness home', async () => {
    const p = project({ '.claude/settings.json': 'UserPromptSubmit' })
    const home = tempDir()
    const asked: string[] = []
    const ask = async (folder: string, brings: readonly string[]) => {
      asked.push(`${folder}: ${brings.join(', ')}`)
      return true
    }
    const t = await harnessWith(home, { frontEnd: 'interactive', ask })
    const first = await t.harness.agents.create({ sessionId: 'a1', meta: { cwd: p.cwd } })
    const second = await t.harness.agents.create({ sessionId: 'a2', meta: { cwd: p.root } })
    await first.prompt('hi')
    await second.prompt('hi')
    // One question per folder, shared by everything a project brings (the first asker describes it).
    expect(asked).toHaveLength(1)
    expect(asked[0]!.startsWith(`${p.root}: `)).toBe(true)
    expect(readRecords(p.out)).toHaveLength(2)
    expect(new ProjectTrustStore(home).isTrusted(p.root)).toBe(true)
  })

  it('interactive: a no (or nobody to ask) runs nothing and says so', async () => {
    const p = project({ '.claude/settings.json': 'UserPromptSubmit' })
    const t = await harnessWith(tempDir(), { frontEnd: 'interactive', ask: async () => false })
    const agent = await t.harness.agents.create({ sessionId: 'no', meta: { cwd: p.cwd } })
    await agent.prompt('hi')
    expect(existsSync(p.out)).toBe(false)
    expect(t.warnings.some((warning) => warning.includes('not trusted (you said no)'))).toBe(true)
  })

  it('--no-project-config: nothing from the project, nobody asked', async () => {
    const p = project({ '.claude/settings.json': 'UserPromptSubmit' })
    let asked = false
    const t = await harnessWith(tempDir(), {
      frontEnd: 'interactive',
      disabled: true,
      ask: async () => {
        asked = true
        return true
      },
    })
    const agent = await t.harness.agents.create({ sessionId: 'off', meta: { cwd: p.cwd } })
    await agent.prompt('hi')
    expect(asked).toBe(false)
    expect(existsSync(p.out)).toBe(false)
  })

  it('a project hook file that appears after start is not loaded, and the next turn says so', async () => {
    const p = project({})
    const t = await harnessWith(tempDir(), { frontEnd: 'headless', granted: true })
    const agent = await t.harness.agents.create({ sessionId: 'late', meta: { cwd: p.cwd } })
    await agent.prompt('hi')
    mkdirSync(join(p.root, '.claude'))
    const recorder = writeRecorder(p.dir, 'late.sh', p.out)
    writeFileSync(
      join(p.root, '.claude', 'settings.json'),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ command: recorder }] }] } }),
    )
    await agent.prompt('again')
    expect(existsSync(p.out)).toBe(false)
    const notices = t.warnings.filter((warning) => warning.includes('changed after this session loaded'))
    expect(notices).toHaveLength(1)
    expect(notices[0]).toContain(join(p.root, '.claude', 'settings.json'))
  })

  it("a change that leaves a hook file's hooks as they were (dsh's own allow rule) is not reported", async () => {
    const p = project({ '.claude/settings.json': 'UserPromptSubmit' })
    const local = join(p.root, '.claude', 'settings.local.json')
    writeFileSync(local, JSON.stringify({ permissions: { allow: [] } }))
    const t = await harnessWith(tempDir(), { frontEnd: 'headless', granted: true })
    const agent = await t.harness.agents.create({ sessionId: 'rules', meta: { cwd: p.cwd } })
    await agent.prompt('hi')
    // What "don't ask again" writes: a rule, with a later time stamp.
    writeFileSync(local, JSON.stringify({ permissions: { allow: ['Bash(ls *)'] } }))
    utimesSync(local, new Date(), new Date(Date.now() + 10_000))
    await agent.prompt('again')
    const notices = () =>
      t.warnings.filter((warning) => warning.includes('changed after this session loaded'))
    expect(notices()).toEqual([])
    // A hook added to the same file is reported.
    writeFileSync(local, JSON.stringify({ hooks: { Stop: [{ hooks: [{ command: 'true' }] }] } }))
    utimesSync(local, new Date(), new Date(Date.now() + 20_000))
    await agent.prompt('third')
    expect(notices()).toHaveLength(1)
    expect(notices()[0]).toContain(local)
  })

  it('hook files named in the config resolve against the config file folder', async () => {
    const dir = tempDir()
    const out = join(dir, 'runs.jsonl')
    const recorder = writeRecorder(dir, 'cfg.sh', out)
    mkdirSync(join(dir, 'conf'))
    writeFileSync(
      join(dir, 'conf', 'hooks.json'),
      JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [{ command: recorder }] }] } }),
    )
    const { loadConfig } = await import('../../src/config/index.js')
    const configFile = join(dir, 'conf', 'config.yaml')
    writeFileSync(
      configFile,
      `dshHome: ${JSON.stringify(join(dir, 'home'))}\nhooks:\n  claudeCode: [hooks.json]\n`,
    )
    expect(loadConfig({ file: configFile, env: {} }).hooks.claudeCode).toEqual([
      join(dir, 'conf', 'hooks.json'),
    ])
  })
})
