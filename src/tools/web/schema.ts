// Parameter schemas of the web tools. `web_fetch` names its target `url`, so permission
// rules such as `WebFetch(domain:example.com)` can match it.

import * as z from 'zod'
import { type SchemaOf, toolParameters } from '../../core/tool-parameters.js'

// Shared fields, built with the schemas that use them.
const date = () =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
    .optional()

const domain = () =>
  z
    .string()
    .min(1)
    .regex(/^[A-Za-z0-9.-]+$/, 'must be a bare host name such as example.com')

export const webSearchParameters = toolParameters('web_search', () =>
  z.object({
    query: z.string().trim().min(1).describe('What to search for.'),
    count: z.number().int().min(1).max(50).optional().describe('How many results (default 10, at most 50).'),
    domains: z.array(domain()).max(10).optional().describe('Only results from these sites (host names).'),
    exclude_domains: z.array(domain()).max(10).optional().describe('No results from these sites.'),
    language: z
      .string()
      .regex(/^[A-Za-z]{2,3}(,[A-Za-z]{2,3})*$/, 'must be language codes such as en or zh,en')
      .optional()
      .describe('Result language codes, comma-separated (e.g. en or zh,en).'),
    after: date().describe('Only pages published on or after this date (YYYY-MM-DD).'),
    before: date().describe('Only pages published before this date (YYYY-MM-DD).'),
  }),
)

export type WebSearchArguments = z.infer<SchemaOf<typeof webSearchParameters>>

export const webFetchParameters = toolParameters('web_fetch', () =>
  z.object({
    url: z.string().min(1).max(8192).describe('The http or https URL to fetch.'),
    offset: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        'Character offset of the window to show (default 0); the previous result names the next one.',
      ),
  }),
)

export type WebFetchArguments = z.infer<SchemaOf<typeof webFetchParameters>>
