// What `sessions export --format claude-code` reads and writes besides the session itself:
// the sub-agent sessions its log names, and the file under Claude Code's projects folder.

import { mkdirSync, writeFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import type { SessionPersistence } from '../../persistence/persistence.js'
import type { SessionEventMap, SessionHeader } from '../../session/types.js'
import { claudeProjectSlug, type StoredSession, subagentIdOf } from './export-claude.js'

/** Every sub-agent session below `root` (sub-agents of sub-agents too), by id; missing ones are left out. */
export async function loadSubagents(
  persistence: SessionPersistence,
  root: StoredSession,
): Promise<Map<string, StoredSession>> {
  const found = new Map<string, StoredSession>()
  const queue: StoredSession[] = [root]
  while (queue.length > 0) {
    const session = queue.shift()!
    for (const event of session.events) {
      if (event.type !== 'tool/result') continue
      const id = subagentIdOf((event.data as SessionEventMap['tool/result']).content)
      if (id === undefined || found.has(id)) continue
      let child: StoredSession
      try {
        child = await persistence.load(id)
      } catch {
        continue // removed since: its sidechain is simply absent
      }
      // Only a session that really is this one's sub-agent (a tool's output could name any id).
      if (child.header.parentSession !== session.header.id) continue
      found.set(id, child)
      queue.push(child)
    }
  }
  return found
}

/**
 * Writes the transcript where Claude Code keeps its own: `$CLAUDE_CONFIG_DIR/projects` (the
 * first folder when it lists several) or `~/.claude/projects`, then `<slug of the session's
 * folder>/<session id>.jsonl`, in Claude Code 2.x's layout: the main chain there, each
 * sub-agent's sidechain lines (those with an `agentId`) in `<session id>/subagents/agent-<agentId>.jsonl`.
 * `text` is the single-stream transcript (`claudeCodeTranscript`). Returns the main file's path.
 */
export function writeToClaudeProjects(header: SessionHeader, text: string): string {
  const configured = (process.env.CLAUDE_CONFIG_DIR ?? '').split(',')[0]?.trim()
  const base = configured ? configured : join(homedir(), '.claude')
  const folder = join(base, 'projects', claudeProjectSlug(header.cwd ?? process.cwd()))
  // A session id may hold any character; the file name keeps only the safe ones.
  const name = header.id.replace(/[^A-Za-z0-9._-]/g, '-')
  const file = join(folder, `${name}.jsonl`)
  const { main, agents } = splitSidechains(text)
  mkdirSync(folder, { recursive: true })
  writeFileSync(file, main)
  const subagents = join(folder, name, 'subagents')
  if (agents.size > 0) mkdirSync(subagents, { recursive: true })
  for (const [agentId, lines] of agents) writeFileSync(join(subagents, `agent-${agentId}.jsonl`), lines)
  return file
}

/** The stream's main-chain lines, and each sub-agent's lines by its `agentId` (hex, safe in a file name). */
function splitSidechains(text: string): { main: string; agents: Map<string, string> } {
  let main = ''
  const agents = new Map<string, string>()
  for (const line of text.split('\n')) {
    if (line === '') continue
    const { agentId } = JSON.parse(line) as { agentId?: unknown }
    if (typeof agentId === 'string') agents.set(agentId, `${agents.get(agentId) ?? ''}${line}\n`)
    else main += `${line}\n`
  }
  return { main, agents }
}
