// A second OS process for the cross-process tests: loads the built JSONL backend
// from dist/ and runs one JSON command per stdin line, answering one JSON line each.
// Usage: node writer-child.mjs <dist persistence index.js> <root or database file> [jsonl|sqlite]

import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'
import { Context } from 'cordis'

const [distIndex, root, kind = 'jsonl'] = process.argv.slice(2)
const { JsonlSessionBackend, SqliteSessionBackend } = await import(pathToFileURL(distIndex).href)

const ctx = new Context()
const fiber =
  kind === 'sqlite'
    ? ctx.plugin(SqliteSessionBackend, { file: root })
    : ctx.plugin(JsonlSessionBackend, { root })
await fiber.await()
const backend = () => ctx.get('sessionPersistence')

const operations = {
  create: ({ header }) => backend().create(header),
  append: ({ id, events }) => backend().append(id, events),
  load: ({ id }) => backend().load(id),
  open: ({ id }) => backend().open(id),
  release: ({ id }) => backend().release(id),
  unlock: ({ id, force }) => backend().unlock(id, { force }),
  locate: ({ header }) => backend().locate(header),
  list: () => backend().list(),
  exists: ({ id }) => backend().exists(id),
  idsWithPrefix: ({ prefix, limit }) => backend().idsWithPrefix(prefix, limit),
  exit: async () => {
    await fiber.dispose()
    setImmediate(() => process.exit(0))
  },
}

const reply = (message) => process.stdout.write(`${JSON.stringify(message)}\n`)
reply({ ready: true, pid: process.pid })
for await (const line of createInterface({ input: process.stdin })) {
  const command = JSON.parse(line)
  try {
    reply({ ok: true, result: (await operations[command.op](command)) ?? null })
  } catch (error) {
    reply({ ok: false, code: error.code, message: error.message })
  }
}
