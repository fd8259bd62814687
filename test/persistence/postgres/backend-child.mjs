// A second OS process using the built PostgreSQL backend from dist/: one JSON command
// per stdin line, one JSON reply line each.
// Usage: node backend-child.mjs <dist postgres index.js> <backend config JSON>

import { createInterface } from 'node:readline'
import { pathToFileURL } from 'node:url'
import { Context } from 'cordis'

const [distIndex, configJson] = process.argv.slice(2)
const { PostgresSessionBackend } = await import(pathToFileURL(distIndex).href)

const ctx = new Context()
const fiber = ctx.plugin(PostgresSessionBackend, JSON.parse(configJson))
await fiber.await()
const backend = () => ctx.get('sessionPersistence')
await backend().ready()

const operations = {
  create: ({ header }) => backend().create(header),
  append: ({ id, events }) => backend().append(id, events),
  load: ({ id }) => backend().load(id),
  open: ({ id }) => (backend().open ?? backend().load).call(backend(), id),
  release: ({ id }) => backend().release(id),
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
await fiber.dispose()
process.exit(0)
