// A plugin with one `echo` tool (`echo: <text>`) for tests that drive the loop from a front end.

import type { Context } from 'cordis'
import { z } from 'zod'

export const echoToolPlugin = {
  name: 'test-echo-tool',
  apply(ctx: Context) {
    ctx.get('tools')!.register({
      name: 'echo',
      description: 'Echo text',
      parameters: z.object({ text: z.string() }),
      execute: async (args) => ({ content: `echo: ${args.text}` }),
    })
  },
}
