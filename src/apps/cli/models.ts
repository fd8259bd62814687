// `dsh models`: the models the configured endpoint offers (`GET /models`), one per line,
// the configured default marked.

import { readApiKeyFile } from '../../config/api-key-file.js'
import { loadConfig } from '../../config/load.js'
import { resolveOpenAiConfig } from '../../llm/openai/config.js'
import { listModels } from '../../llm/openai/openai-adapter.js'
import { ExitCode } from './errors.js'
import { colorsFor } from './render.js'
import { checkApiKey } from './start.js'

export interface ModelsOptions {
  config?: string
  json?: boolean
}

export async function modelsCommand(options: ModelsOptions): Promise<number> {
  const config = loadConfig(options.config !== undefined ? { file: options.config } : {})
  checkApiKey(config)
  const resolved = resolveOpenAiConfig({
    ...(config.model.apiKeyFile !== undefined ? { apiKey: readApiKeyFile(config.model.apiKeyFile) } : {}),
    apiKeyEnv: config.model.apiKeyEnv,
    noKey: config.model.apiKey === 'none',
    baseUrl: config.model.baseUrl,
    model: config.model.name,
  })
  const models = await listModels(resolved)
  if (options.json) {
    process.stdout.write(`${JSON.stringify(models.map((id) => ({ id, default: id === resolved.model })))}\n`)
    return ExitCode.Ok
  }
  const colors = colorsFor(process.stdout)
  for (const id of models) {
    process.stdout.write(
      id === resolved.model ? `${colors.bold(id)}  ${colors.dim('(default)')}\n` : `${id}\n`,
    )
  }
  if (!models.includes(resolved.model)) {
    process.stderr.write(
      `dsh: the configured model ${JSON.stringify(resolved.model)} is not among them (set model.name or use --model)\n`,
    )
  }
  return ExitCode.Ok
}
