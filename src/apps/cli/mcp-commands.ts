// `dsh mcp list|add|remove`, kept out of main.ts; each loads its module only when it runs,
// so start-up stays fast.

import type { Command } from 'commander'

type Act = <A extends unknown[]>(run: (...args: A) => Promise<number>) => (...args: A) => Promise<void>

/** Collects a repeatable option's values. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value]
}

export function addMcpCommands(program: Command, act: Act): void {
  const mcp = program.command('mcp').description('MCP servers: list, add, remove').helpCommand(false)
  mcp
    .command('list')
    .description('the MCP servers this folder sees: state, tool count, where each came from')
    .option('-C, --cwd <dir>', 'list for this folder instead')
    .option('--json', 'print a JSON array')
    .option('--config <file>', 'config file')
    .action(act(async (options) => (await import('./mcp.js')).mcpListCommand(options)))
  mcp
    .command('add')
    .description(
      'add an MCP server: `dsh mcp add db -- npx db-server --ro`, `dsh mcp add -t http docs https://…`',
    )
    .argument('<name>', 'server name (letters, digits, _ and -)')
    .argument('<commandOrUrl>', 'the command (stdio) or the URL (http, sse)')
    .argument('[args...]', 'arguments of the command')
    .option('-t, --transport <kind>', 'stdio, http or sse', 'stdio')
    // Repeatable, one value each: a variadic option would swallow the server name after it.
    .option('-e, --env <NAME=VALUE>', 'environment of a stdio server (repeatable)', collect, [])
    .option('-H, --header <Name: value>', 'HTTP header of an http or sse server (repeatable)', collect, [])
    .option(
      '-s, --scope <scope>',
      'user (the config file) or project (.mcp.json at the project root)',
      'user',
    )
    .option('--config <file>', 'config file')
    .action(
      act(async (name: string, target: string, args: string[], options) =>
        (await import('./mcp.js')).mcpAddCommand(name, target, args, options),
      ),
    )
  mcp
    .command('remove')
    .description('remove an MCP server')
    .argument('<name>', 'server name')
    .option('-s, --scope <scope>', 'user (the config file) or project (.mcp.json)', 'user')
    .option('--config <file>', 'config file')
    .action(act(async (name: string, options) => (await import('./mcp.js')).mcpRemoveCommand(name, options)))
}
