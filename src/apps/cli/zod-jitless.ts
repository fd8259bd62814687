// `dsh run` parses each zod schema only a few times: zod's JIT (a parser generated with
// `new Function` per object schema) costs more than it saves before the first model request.
// zod decides it when a schema is built, so this module is run.ts's first import: it runs
// before any module of the run builds one (set in runCommand, the config's own schema,
// built at load, still compiled a parser for its first parse).

import * as z from 'zod'

z.config({ jitless: true })
