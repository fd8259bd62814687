// `dsh models`: the models the configured endpoint offers (`GET /models`), one per line,
// the configured default and the models that take images marked.

import { readApiKeyFile } from '../../config/api-key-file.js'
import { loadConfig } from '../../config/load.js'
import { modelTakesImages } from '../../llm/deepseek/models.js'
import { resolveOpenAiConfig } from '../../llm/openai/config.js'
import { listModels } from '../../llm/openai/openai-adapter.js'
import { ExitCode } from '../shared/errors.js'
import { colorsFor } from '../shared/render.js'
import { checkApiKey } from '../shared/start.js'

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
    const rows = models.map((id) => ({
      id,
      default: id === resolved.model,
      images: modelTakesImages(id) === true,
    }))
    process.stdout.write(`${JSON.stringify(rows)}\n`)
    return ExitCode.Ok
  }
  const colors = colorsFor(process.stdout)
  for (const id of models) {
    // Vision models are marked: they are the ones `--image` and `@shot.png` work with.
    const marks = [id === resolved.model ? 'default' : '', modelTakesImages(id) ? 'images' : '']
      .filter(Boolean)
      .join(', ')
    const name = id === resolved.model ? colors.bold(id) : id
    process.stdout.write(marks ? `${name}  ${colors.dim(`(${marks})`)}\n` : `${id}\n`)
  }
  if (!models.includes(resolved.model)) {
    process.stderr.write(
      `dsh: the configured model ${JSON.stringify(resolved.model)} is not among them (set model.name or use --model)\n`,
    )
  }
  return ExitCode.Ok
}
