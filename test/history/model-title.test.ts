// Titles the model writes: the side call's shape against the strict DeepSeek stand-in, the
// title in every listing, its usage in the ledger, a person's title never replaced, a failed
// call leaving the first prompt, and `auto` asking the model only on DeepSeek's own API.

import { describe, expect, it } from 'vitest'
import type { AgentHandle } from '../../src/agent/index.js'
import { TITLE_SOURCES } from '../../src/config/index.js'
import { modelWritesTitles, TITLE_SYSTEM_PROMPT, titleData, titleFromReply } from '../../src/history/index.js'
import type { ScriptRequest, ScriptStep } from '../../src/llm/index.js'
import type { SessionEventMap } from '../../src/session/types.js'
import { DEFAULT_PRICE_TABLE, deriveUsage } from '../../src/usage/index.js'
import { ledgerOf } from '../../src/usage/ledger.js'
import { useTestHarnesses } from '../support/harness.js'
import { useTempDirs } from '../support/temp-dir.js'

const startTestHarness = useTestHarnesses()
const tempDir = useTempDirs('dsh-model-title-')

const isTitleCall = (request: ScriptRequest): boolean =>
  request.messages[0]?.role === 'system' && request.messages[0].content === TITLE_SYSTEM_PROMPT

/** A script step that answers the title call with `title` (after `gate`) and a turn's call with `answer`. */
function titleOrAnswer(title: string | (() => Promise<string>), answer: string): ScriptStep {
  return async (request) => {
    if (!isTitleCall(request)) return { text: answer }
    return { text: typeof title === 'string' ? title : await title() }
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>((done) => {
    resolve = done
  })
  return { promise, resolve }
}

describe('titleFromReply', () => {
  it('keeps the first line, without labels, quotes, emphasis or a final period', () => {
    expect(titleFromReply('Fix the slug bug')).toBe('Fix the slug bug')
    expect(titleFromReply('\n  "Fix the slug bug."\nbecause…')).toBe('Fix the slug bug')
    expect(titleFromReply('Title: **Add  PostgreSQL   search**')).toBe('Add PostgreSQL search')
    expect(titleFromReply('# “Réparer le routeur”')).toBe('Réparer le routeur')
    expect(titleFromReply('修复登录页面的错误。')).toBe('修复登录页面的错误')
  })

  it('gives nothing for an empty or unusable reply', () => {
    expect(titleFromReply('')).toBeUndefined()
    expect(titleFromReply(' \n\n ')).toBeUndefined()
    expect(titleFromReply('"..."')).toBeUndefined()
    expect(titleFromReply('Fix\u0007 it')).toBeUndefined()
  })

  it('cuts a long reply at a word, within the 80 characters a listing shows', () => {
    const long = `Refactor ${'the very long module name '.repeat(8)}`
    const title = titleFromReply(long)!
    expect(title.length).toBeLessThanOrEqual(80)
    expect(title.endsWith('…')).toBe(true)
    expect(title.slice(0, -1).endsWith(' ')).toBe(false)
  })
})

describe('modelWritesTitles', () => {
  it('asks the model under auto only on DeepSeek’s own API', () => {
    expect(TITLE_SOURCES).toEqual(['auto', 'model', 'prompt'])
    expect(modelWritesTitles('auto', 'https://api.deepseek.com/chat/completions')).toBe(true)
    expect(modelWritesTitles('auto', 'http://127.0.0.1:8080/v1/chat/completions')).toBe(false)
    expect(modelWritesTitles('auto', 'https://api.deepseek.com.example.org/chat/completions')).toBe(false)
    expect(modelWritesTitles('model', 'http://127.0.0.1:8080/chat/completions')).toBe(true)
    expect(modelWritesTitles('prompt', 'https://api.deepseek.com/chat/completions')).toBe(false)
  })
})

describe.each(['jsonl', 'sqlite'] as const)('model-written titles (%s)', (backend) => {
  it('titles a new session from a side call made beside the first step; listed, priced in turn 1', async () => {
    const answered = deferred()
    const test = await startTestHarness({
      backend,
      config: { titles: 'model' },
      script: [
        titleOrAnswer(async () => {
          // Answer after the turn's answer: the turn's end must wait for the title.
          await answered.promise
          return '"Fix the slug bug."'
        }, 'Fixed.'),
        titleOrAnswer('"Fix the slug bug."', 'Fixed.'),
      ],
    })
    const agent = await test.harness.agents.create({
      sessionId: `title-${backend}`,
      meta: { cwd: tempDir() },
    })
    agent.onOutput((output) => {
      if (output.type === 'text-delta') answered.resolve()
    })
    const result = await agent.prompt('the slug helper drops dashes in utils/slug.ts, please fix it')
    expect(result.reason).toBe('completed')
    const types = agent.session.events.map((event) => event.type)
    expect(types.indexOf('session/title')).toBeGreaterThan(-1)
    expect(types.indexOf('session/title')).toBeLessThan(types.indexOf('turn/end'))
    await test.harness.agents.dispose(agent.id)

    const titleRequests = test.model.requests.filter(
      (body) => body.messages[0]?.content === TITLE_SYSTEM_PROMPT,
    )
    expect(titleRequests).toHaveLength(1)
    const sent = titleRequests[0]!
    expect(sent.tools ?? []).toEqual([])
    expect(sent.thinking).toEqual({ type: 'disabled' })
    expect(sent.max_tokens).toBe(40)
    expect(JSON.stringify(sent.messages[1])).toContain('the slug helper drops dashes')

    const persistence = test.harness.ctx.get('sessionPersistence')!
    const { events } = await persistence.load(agent.id)
    const titles = events.filter((event) => event.type === 'session/title')
    expect(titles).toHaveLength(1)
    const data = titles[0]!.data as SessionEventMap['session/title']
    expect(data).toMatchObject({ title: 'Fix the slug bug', source: 'model' })
    expect(data.usage?.promptTokens).toBeGreaterThan(0)
    expect(titles[0]!.ignorable).toBe(true)

    const summary = (await persistence.list()).find((s) => s.header.id === agent.id)!
    expect(summary.title).toBe('Fix the slug bug')
    // The side call is paid for: the ledger and turn 1 count its tokens beside the answer's.
    const withoutTitle = events.filter((event) => event.type !== 'session/title')
    const turnOnly = ledgerOf(withoutTitle)
    const sum = (ledger: typeof turnOnly) =>
      ledger.steps.reduce((total, step) => total + step[2] + step[5], 0)
    const titleTokens = data.usage!.promptTokens + data.usage!.completionTokens
    expect(sum(summary.usage)).toBe(sum(turnOnly) + titleTokens)
    const turn = (list: typeof events) => deriveUsage(list, DEFAULT_PRICE_TABLE).turns.get(1)!
    expect(turn(events).inputTokens + turn(events).outputTokens).toBe(
      turn(withoutTitle).inputTokens + turn(withoutTitle).outputTokens + titleTokens,
    )
  })

  it('closing the session waits for a title still under way after a failed turn', async () => {
    const turnDone = deferred()
    const waitForTurn = async () => {
      await turnDone.promise
      return 'Port the parser'
    }
    const test = await startTestHarness({
      backend,
      config: { titles: 'model' },
      script: [
        (request) => (isTitleCall(request) ? waitForTurn().then((text) => ({ text })) : { status: 400 }),
        (request) => (isTitleCall(request) ? waitForTurn().then((text) => ({ text })) : { status: 400 }),
      ],
    })
    const agent = await test.harness.agents.create({ sessionId: `late-${backend}`, meta: { cwd: tempDir() } })
    const result = await agent.prompt('port the parser to TypeScript')
    expect(result.reason).toBe('error')
    turnDone.resolve()
    await test.harness.agents.dispose(agent.id)
    const persistence = test.harness.ctx.get('sessionPersistence')!
    expect((await persistence.list()).find((s) => s.header.id === agent.id)?.title).toBe('Port the parser')
  })

  it('never replaces a title a person gave while the call was under way', async () => {
    const renamed = deferred()
    let session: AgentHandle['session'] | undefined
    const step: ScriptStep = async (request) => {
      if (isTitleCall(request)) {
        await renamed.promise
        return { text: 'Model title' }
      }
      // While the turn runs, a person renames the session (the web UI's Rename does this).
      session!.append('session/title', titleData('Changelog for 2.0'), { ignorable: true })
      renamed.resolve()
      return { text: 'Done.' }
    }
    const test = await startTestHarness({ backend, config: { titles: 'model' }, script: [step, step] })
    const agent = await test.harness.agents.create({ sessionId: `mine-${backend}`, meta: { cwd: tempDir() } })
    session = agent.session
    await agent.prompt('write the changelog')
    await test.harness.agents.dispose(agent.id)
    expect(test.model.requests).toHaveLength(2)
    const persistence = test.harness.ctx.get('sessionPersistence')!
    const { events } = await persistence.load(agent.id)
    const titles = events.filter((event) => event.type === 'session/title').map((event) => event.data)
    expect(titles).toEqual([{ title: 'Changelog for 2.0', source: 'user' }])
    expect((await persistence.list()).find((s) => s.header.id === agent.id)?.title).toBe('Changelog for 2.0')
  })
})

describe('model-written titles: when not to ask', () => {
  it('keeps the first prompt as the title when the call fails; the turn is unaffected', async () => {
    const test = await startTestHarness({
      config: { titles: 'model' },
      script: [
        (request) =>
          isTitleCall(request) ? { status: 400, message: 'no titles today' } : { text: 'All good.' },
        (request) =>
          isTitleCall(request) ? { status: 400, message: 'no titles today' } : { text: 'All good.' },
      ],
    })
    const agent = await test.harness.agents.create({ sessionId: 'failed-title', meta: { cwd: tempDir() } })
    const result = await agent.prompt('rename the config loader')
    expect(result.reason).toBe('completed')
    await test.harness.agents.dispose(agent.id)
    const persistence = test.harness.ctx.get('sessionPersistence')!
    const { events } = await persistence.load(agent.id)
    expect(events.some((event) => event.type === 'session/title')).toBe(false)
    expect((await persistence.list())[0]?.title).toBe('rename the config loader')
  })

  it('makes no side call by default against a server that is not DeepSeek’s, nor on later turns', async () => {
    const test = await startTestHarness({ script: [{ text: 'one' }, { text: 'two' }] })
    const agent = await test.harness.agents.create({ sessionId: 'no-title-call', meta: { cwd: tempDir() } })
    await agent.prompt('first')
    await agent.prompt('second')
    expect(test.model.requests).toHaveLength(2)
    expect(test.model.requests.every((body) => body.messages[0]?.content !== TITLE_SYSTEM_PROMPT)).toBe(true)
  })

  it('asks once per session: a resumed session’s next turns make no title call', async () => {
    const home = tempDir()
    const first = await startTestHarness({
      home,
      config: { titles: 'model' },
      script: [titleOrAnswer('Port the parser', 'ok'), titleOrAnswer('Port the parser', 'ok')],
    })
    const agent = await first.harness.agents.create({ sessionId: 'resumed-title', meta: { cwd: home } })
    await agent.prompt('port the parser to TypeScript')
    await first.close()
    const second = await startTestHarness({ home, config: { titles: 'model' }, script: [{ text: 'more' }] })
    const resumed = await second.harness.agents.resume({ resumeSessionId: 'resumed-title' })
    await resumed.prompt('and add tests')
    expect(second.model.requests).toHaveLength(1)
    expect((await second.harness.ctx.get('sessionPersistence')!.list())[0]?.title).toBe('Port the parser')
  })
})
