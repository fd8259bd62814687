// Parameter schemas of the bash tools: named fields only. Anything else the model sends
// (env, stdin, extra keys) is stripped by zod and never reaches the executor.

import * as z from 'zod'
import { type SchemaOf, toolParameters } from '../../core/tool-parameters.js'

export const bashParameters = toolParameters('bash', () =>
  z.object({
    command: z.string().min(1).describe('The command to run with bash -c.'),
    description: z.string().optional().describe('What the command does, in 5-10 words.'),
    timeout_ms: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Timeout in milliseconds (default 120000, max 600000).'),
    workdir: z
      .string()
      .min(1)
      .optional()
      .describe("Working directory; default: the session's working directory."),
    run_in_background: z
      .boolean()
      .optional()
      .describe('Start the command as a background job and return its id at once.'),
  }),
)

export type BashArguments = z.infer<SchemaOf<typeof bashParameters>>

export const jobParameters = toolParameters('bash-job', () =>
  z.object({
    job_id: z.string().min(1).describe('The id `bash` answered when it started the background job.'),
  }),
)

export type JobArguments = z.infer<SchemaOf<typeof jobParameters>>
