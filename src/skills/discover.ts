// Finds skills (Agent Skills: a folder with SKILL.md whose front matter has `name` and
// `description`) and custom commands (markdown files) in the harness home and the project.
// A project item shadows a home item of the same name; project items count only when the
// folder is trusted.

import { type Dirent, readdirSync } from 'node:fs'
import { homedir } from 'node:os'
import { join, relative, sep } from 'node:path'
import { MAX_PROJECT_FILE_BYTES, readCappedText } from '../core/capped-file.js'
import { DshError } from '../core/errors.js'
import { findProjectRoot } from '../core/project-root.js'
import { parseMarkdown } from './front-matter.js'

export interface SkillSources {
  /** The harness home ($DSH_HOME). */
  readonly home: string
  readonly cwd: string
  /** Whether the project's own skills and commands count (the trust decision). */
  readonly projectTrusted: boolean
  /** Also read `~/.claude/...` and `~/.agents/...` (the config opts in). */
  readonly includeUserClaude?: boolean
  /** The user's home folder (tests). */
  readonly userHome?: string
}

export interface Skill {
  readonly name: string
  readonly description: string
  /** The SKILL.md file. */
  readonly path: string
  /** The skill's folder (its scripts and references live there). */
  readonly folder: string
  readonly scope: 'project' | 'home'
}

export interface CustomCommand {
  /** `name`, or `folder:name` for a file in a subfolder. */
  readonly name: string
  readonly description?: string
  readonly argumentHint?: string
  readonly path: string
  readonly scope: 'project' | 'home'
}

export interface DiscoveryProblem {
  readonly path: string
  readonly message: string
}

/** A skill or command file, refused past MAX_PROJECT_FILE_BYTES with an error naming it. */
function readSkillFile(path: string): string {
  return readCappedText(path, {
    maxBytes: MAX_PROJECT_FILE_BYTES,
    what: 'skill file',
    code: 'SKILL_TOO_LARGE',
  })
}

interface Place {
  readonly folder: string
  readonly scope: 'project' | 'home'
}

function places(sources: SkillSources, kind: 'skills' | 'commands'): Place[] {
  const user = sources.userHome ?? homedir()
  const root = findProjectRoot(sources.cwd)
  const project: Place[] = sources.projectTrusted
    ? ['.dsh', '.claude', ...(kind === 'skills' ? ['.agents'] : [])].map((dot) => ({
        folder: join(root, dot, kind),
        scope: 'project' as const,
      }))
    : []
  const home: Place[] = [{ folder: join(sources.home, kind), scope: 'home' }]
  if (sources.includeUserClaude) {
    home.push({ folder: join(user, '.claude', kind), scope: 'home' })
    if (kind === 'skills') home.push({ folder: join(user, '.agents', kind), scope: 'home' })
  }
  // Earlier places win: project before home.
  return [...project, ...home]
}

function entries(folder: string): Dirent[] {
  try {
    return readdirSync(folder, { withFileTypes: true })
  } catch {
    // A place that does not exist has nothing in it.
    return []
  }
}

/** Skills by name (project first, so it shadows home), sorted by name. */
export function discoverSkills(sources: SkillSources, problems: DiscoveryProblem[] = []): Skill[] {
  const found = new Map<string, Skill>()
  for (const place of places(sources, 'skills')) {
    for (const entry of entries(place.folder)) {
      if (!entry.isDirectory() && !entry.isSymbolicLink()) continue
      const folder = join(place.folder, entry.name)
      const path = join(folder, 'SKILL.md')
      let text: string
      try {
        text = readSkillFile(path)
      } catch (error) {
        if (error instanceof DshError) problems.push({ path, message: `${error.message}; skipped` })
        // A folder without SKILL.md is not a skill.
        continue
      }
      try {
        const { attributes } = parseMarkdown(text)
        const name =
          typeof attributes.name === 'string' && attributes.name.trim() ? attributes.name.trim() : entry.name
        const description = typeof attributes.description === 'string' ? attributes.description.trim() : ''
        if (!description) {
          problems.push({ path, message: 'no `description` in the front matter; skipped' })
          continue
        }
        if (!found.has(name)) found.set(name, { name, description, path, folder, scope: place.scope })
      } catch (error) {
        problems.push({ path, message: `${(error as Error).message}; skipped` })
      }
    }
  }
  return [...found.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/** Custom commands by name (project first), sorted by name. */
export function discoverCommands(sources: SkillSources, problems: DiscoveryProblem[] = []): CustomCommand[] {
  const found = new Map<string, CustomCommand>()
  for (const place of places(sources, 'commands')) {
    const walk = (folder: string) => {
      for (const entry of entries(folder)) {
        const path = join(folder, entry.name)
        if (entry.isDirectory()) walk(path)
        else if (entry.name.endsWith('.md')) {
          const name = relative(place.folder, path).slice(0, -3).split(sep).join(':')
          if (found.has(name)) continue
          try {
            const { attributes } = parseMarkdown(readSkillFile(path))
            found.set(name, {
              name,
              path,
              scope: place.scope,
              ...(typeof attributes.description === 'string' ? { description: attributes.description } : {}),
              ...(typeof attributes['argument-hint'] === 'string'
                ? { argumentHint: attributes['argument-hint'] }
                : {}),
            })
          } catch (error) {
            problems.push({ path, message: `${(error as Error).message}; skipped` })
          }
        }
      }
    }
    walk(place.folder)
  }
  return [...found.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
}

/**
 * The prompt a command stands for: its body with `$ARGUMENTS` replaced by everything after
 * the command, and `$1`, `$2`, ... by the arguments split on spaces.
 */
export function expandCommand(command: CustomCommand, args: string): string {
  const { body } = parseMarkdown(readSkillFile(command.path))
  const words = args.trim() === '' ? [] : args.trim().split(/\s+/)
  return body
    .replaceAll('$ARGUMENTS', args.trim())
    .replace(
      /\$(\d+)/g,
      (whole, index: string) => words[Number(index) - 1] ?? (Number(index) > 0 ? '' : whole),
    )
    .trim()
}

/** A skill's body (the SKILL.md without front matter). */
export function skillBody(skill: Skill): string {
  return parseMarkdown(readSkillFile(skill.path)).body.trim()
}
