// The one way dsh reaches the yaml library. Parsing a config or front matter is
// synchronous, but yaml is large: a command that can wait calls `preloadYaml()` first and
// gets the bundled copy (run only when first needed); anything else loads it on first use with
// require (~70 CommonJS files), so commands that read no YAML never load it at all.

import { createRequire } from 'node:module'

export type YamlLibrary = typeof import('yaml')

let loaded: YamlLibrary | undefined

/** Loads yaml ahead of a synchronous parse; resolves when `yamlLibrary()` is free. */
export async function preloadYaml(): Promise<void> {
  // yaml is CommonJS under Node: bundled, its exports may sit on the namespace's default only.
  const module = (await import('yaml')) as YamlLibrary & { default?: YamlLibrary }
  loaded ??= module.default ?? module
}

/** The yaml library, loading it now (synchronously) when nothing preloaded it. */
export function yamlLibrary(): YamlLibrary {
  loaded ??= createRequire(import.meta.url)('yaml') as YamlLibrary
  return loaded
}
