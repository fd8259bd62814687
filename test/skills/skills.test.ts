// Skill and command discovery from every place, project shadowing home, trust, the system
// prompt listing and the `skill` tool through a real harness.

import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { discoverCommands, discoverSkills, expandCommand } from '../../src/skills/index.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const tempDir = useTempDirs('dsh-skills-')
const start = useTestHarnesses()

function skill(folder: string, name: string, description: string, body = `Body of ${name}.`): void {
  mkdirSync(folder, { recursive: true })
  writeFileSync(join(folder, 'SKILL.md'), `---\nname: ${name}\ndescription: ${description}\n---\n${body}\n`)
}

function layout() {
  const home = tempDir()
  const user = tempDir()
  const project = tempDir()
  mkdirSync(join(project, '.git'))
  const cwd = join(project, 'sub')
  mkdirSync(cwd)
  skill(join(home, 'skills', 'deploy'), 'deploy', 'home deploy')
  skill(join(home, 'skills', 'notes'), 'notes', 'home notes')
  skill(join(project, '.dsh', 'skills', 'deploy'), 'deploy', 'project deploy (shadows home)')
  skill(join(project, '.claude', 'skills', 'review'), 'review', 'from .claude')
  skill(join(project, '.agents', 'skills', 'lint'), 'lint', 'from .agents')
  skill(join(user, '.claude', 'skills', 'mine'), 'mine', 'user claude skill')
  skill(join(user, '.agents', 'skills', 'theirs'), 'theirs', 'user agents skill')
  mkdirSync(join(project, '.claude', 'skills', 'broken'))
  writeFileSync(
    join(project, '.claude', 'skills', 'broken', 'SKILL.md'),
    '---\nname: broken\n---\nno description\n',
  )
  return { home, user, project, cwd }
}

describe('discovery', () => {
  it('finds skills in every place, project shadowing home, sorted by name', () => {
    const { home, user, cwd } = layout()
    const problems: { path: string; message: string }[] = []
    const found = discoverSkills({ home, cwd, projectTrusted: true, userHome: user }, problems)
    expect(found.map((s) => [s.name, s.description, s.scope])).toEqual([
      ['deploy', 'project deploy (shadows home)', 'project'],
      ['lint', 'from .agents', 'project'],
      ['notes', 'home notes', 'home'],
      ['review', 'from .claude', 'project'],
    ])
    expect(problems).toHaveLength(1)
    expect(problems[0]!.message).toContain('no `description`')
    const withUser = discoverSkills({
      home,
      cwd,
      projectTrusted: true,
      userHome: user,
      includeUserClaude: true,
    })
    expect(withUser.map((s) => s.name)).toEqual(['deploy', 'lint', 'mine', 'notes', 'review', 'theirs'])
  })

  it('leaves out project skills and commands of an untrusted folder', () => {
    const { home, user, cwd, project } = layout()
    mkdirSync(join(project, '.claude', 'commands'), { recursive: true })
    writeFileSync(join(project, '.claude', 'commands', 'fix.md'), 'Fix $ARGUMENTS')
    const sources = { home, cwd, projectTrusted: false, userHome: user }
    expect(discoverSkills(sources).map((s) => s.name)).toEqual(['deploy', 'notes'])
    expect(discoverCommands(sources)).toEqual([])
  })

  it('turns markdown files into commands with $ARGUMENTS and positional arguments', () => {
    const { home, cwd, project } = layout()
    mkdirSync(join(project, '.dsh', 'commands', 'git'), { recursive: true })
    mkdirSync(join(project, '.claude', 'commands'), { recursive: true })
    mkdirSync(join(home, 'commands'), { recursive: true })
    writeFileSync(
      join(project, '.dsh', 'commands', 'review.md'),
      '---\ndescription: Review a file\nargument-hint: <file>\n---\nReview $ARGUMENTS carefully; start with $1.\n',
    )
    writeFileSync(join(project, '.claude', 'commands', 'review.md'), 'shadowed by .dsh')
    writeFileSync(join(project, '.dsh', 'commands', 'git', 'sync.md'), 'Sync the branch.')
    writeFileSync(join(home, 'commands', 'hello.md'), 'Say hello.')
    const commands = discoverCommands({ home, cwd, projectTrusted: true })
    expect(commands.map((c) => [c.name, c.scope, c.description])).toEqual([
      ['git:sync', 'project', undefined],
      ['hello', 'home', undefined],
      ['review', 'project', 'Review a file'],
    ])
    expect(expandCommand(commands[2]!, 'src/a.ts src/b.ts')).toBe(
      'Review src/a.ts src/b.ts carefully; start with src/a.ts.',
    )
  })
})

it('lists skills in the system prompt and loads one with the skill tool', async () => {
  const { home, cwd } = layout()
  const { harness, model } = await start({
    home,
    trust: { frontEnd: 'headless', granted: true },
    script: [{ toolCalls: [{ name: 'skill', arguments: { skill: 'deploy' } }] }, { text: 'ok' }],
  })
  const agent = await harness.agents.create({ sessionId: 'sk', meta: { cwd } })
  await agent.prompt('deploy it')
  const system = String(model.requests[0]!.messages[0]!.content)
  expect(system).toContain(
    'Skills (load one with the `skill` tool when the task matches its description):\n- deploy: project deploy (shadows home)\n- lint: from .agents\n- notes: home notes\n- review: from .claude',
  )
  const result = agent.session.events.find((e) => e.type === 'tool/result')!.data as { content: string }
  expect(result.content).toContain('Body of deploy.')
  expect(result.content).toContain(join('.dsh', 'skills', 'deploy'))
})
