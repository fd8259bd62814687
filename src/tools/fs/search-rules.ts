// Permission rules over what grep and glob find: the policy's filter for one call (files the
// agent's Read deny and ask rules name), applied to every result before the model sees it,
// and to rg's output before it is even kept. See docs/permissions.md, "Searches".

import type { Context } from 'cordis'
import { errorMessage } from '../../core/errors.js'
import { currentService } from '../../core/service-ref.js'
import type { ToolExecution } from '../../plugin-api/index.js'

/** What one search must leave out (the permission policy's SearchFilter, seen from here). */
export interface SearchRuleFilter {
  /** True when nothing from this absolute path may reach the model. */
  withholds(path: string): boolean
  /** A line for the result naming the rules that may withhold files here, never the files. */
  readonly note: string | undefined
}

export interface SearchRules {
  /**
   * The filter for one call (`tool` its dsh name, `searched` the absolute file or folder);
   * undefined when nothing is to be left out. Throws when the rules cannot be worked out:
   * the search is then refused, never answered unfiltered.
   */
  filterFor(
    execution: ToolExecution,
    tool: string,
    input: Readonly<Record<string, unknown>>,
    searched: string,
  ): SearchRuleFilter | undefined
}

/**
 * `rules.filterFor`, or (the rules could not be worked out) the line the tool answers
 * instead: the search is refused, never answered unfiltered.
 */
export function ruleFilter(
  rules: SearchRules,
  execution: ToolExecution,
  tool: 'grep' | 'glob',
  input: Readonly<Record<string, unknown>>,
  searched: string,
): { filter: SearchRuleFilter | undefined } | { refusal: string } {
  try {
    return { filter: rules.filterFor(execution, tool, input, searched) }
  } catch (error) {
    return {
      refusal: `${tool} refused: the results could not be checked against the permission rules (${errorMessage(error)})`,
    }
  }
}

/** No permission policy (tests of single tools): no rules, nothing to leave out. */
export const NO_SEARCH_RULES: SearchRules = { filterFor: () => undefined }

export function createSearchRules(ctx: Context): SearchRules {
  const permissions = currentService(ctx, 'permissions')
  return {
    filterFor(execution, tool, input, searched) {
      const agent = execution.agent
      // A call without an agent has no rules of its own (commands, tests).
      if (!agent) return undefined
      return permissions()?.searchFilter(agent, { tool, input }, searched)
    },
  }
}

/** The test a searcher applies to each file: the sandbox's hidden paths, then the rules. */
export function keepTest(
  visible: ((path: string) => boolean) | undefined,
  filter: SearchRuleFilter | undefined,
): ((path: string) => boolean) | undefined {
  if (!visible && !filter) return undefined
  return (path) => (visible?.(path) ?? true) && !(filter?.withholds(path) ?? false)
}

/**
 * The searcher's warnings a model may see. One about a file (`rg: /path: …`, `/path: …`)
 * shows only when that file is kept; one whose file cannot be told apart is left out, so a
 * withheld name never shows. Others (a regex error) show as they are.
 */
export function keptWarnings(
  warnings: readonly string[],
  keep: ((path: string) => boolean) | undefined,
): string[] {
  if (!keep) return [...warnings]
  return warnings.filter((warning) => {
    const text = warning.replace(/^rg: /, '')
    if (!text.startsWith('/')) return true
    // The path ends at one of the `: ` in the line; every reading of it must be kept.
    const paths: string[] = []
    for (let at = text.indexOf(': '); at !== -1; at = text.indexOf(': ', at + 1))
      paths.push(text.slice(0, at))
    return paths.length > 0 && paths.every(keep)
  })
}
