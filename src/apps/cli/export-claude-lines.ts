// Lines of a Claude Code export that are neither a model response nor a tool's: compaction
// boundaries and the error line of a turn that failed, in the shapes real Claude Code
// transcripts show (docs/protocols.md).

import { formatCompactionLine } from '../../context/index.js'
import { summaryMessage } from '../../session/index.js'
import type { SessionEvent, SessionEventMap } from '../../session/types.js'
import { uuidFor } from './export-ids.js'

export type Line = Record<string, unknown>

/**
 * A compaction as Claude Code writes one in its transcripts (not in its docs; seen in real
 * transcripts, 2026-12-04): a summary is a `system` line with subtype `compact_boundary`,
 * `compactMetadata` {trigger, preTokens}, `parentUuid: null` and `logicalParentUuid`, then
 * the summary as a user line marked `isCompactSummary`; pruning alone is a
 * `microcompact_boundary` with `microcompactMetadata`. `content` is dsh's boundary line.
 */
export function compactionLines(
  event: SessionEvent,
  parent: string | null,
  common: Record<string, unknown> & { uuid: string },
  /** The session that first wrote the event (its ids derive from it). */
  owner: string,
): Line[] {
  const boundary = event.data as SessionEventMap['context/compacted']
  const content = formatCompactionLine(boundary)
  if (boundary.summary === undefined) {
    return [
      {
        ...common,
        parentUuid: parent,
        type: 'system',
        subtype: 'microcompact_boundary',
        content,
        isMeta: false,
        level: 'info',
        microcompactMetadata: {
          trigger: boundary.trigger,
          preTokens: boundary.tokensBefore,
          tokensSaved: Math.max(0, boundary.tokensBefore - boundary.tokensAfter),
          compactedToolIds: boundary.pruned ?? [],
          clearedAttachmentUUIDs: [],
        },
      },
    ]
  }
  return [
    {
      ...common,
      parentUuid: null,
      logicalParentUuid: parent,
      type: 'system',
      subtype: 'compact_boundary',
      content,
      isMeta: false,
      level: 'info',
      compactMetadata: { trigger: boundary.trigger, preTokens: boundary.tokensBefore },
    },
    {
      ...common,
      parentUuid: common.uuid,
      uuid: uuidFor(owner, event.seq, 'summary'),
      type: 'user',
      isCompactSummary: true,
      isVisibleInTranscriptOnly: true,
      message: { role: 'user', content: summaryMessage(boundary.summary) },
    },
  ]
}

/**
 * A failed turn (`turn/end` reason `error`) as Claude Code writes a request that failed: an
 * assistant line marked `isApiErrorMessage`, `message.model` `<synthetic>`, a uuid as
 * `message.id` and no `requestId`, all-zero usage, `stop_reason` `stop_sequence`, the error
 * text as its only text block, and `error` the failure's class in the Agent SDK's words
 * (dsh's log keeps only the text, so `unknown`). Readers count no usage for it.
 */
export function apiErrorLine(common: Line, owner: string, seq: number, error: string): Line {
  return {
    ...common,
    type: 'assistant',
    message: {
      id: uuidFor(owner, seq, 'error'),
      type: 'message',
      role: 'assistant',
      model: '<synthetic>',
      content: [{ type: 'text', text: error }],
      stop_reason: 'stop_sequence',
      stop_sequence: '',
      usage: {
        input_tokens: 0,
        cache_creation_input_tokens: 0,
        cache_read_input_tokens: 0,
        output_tokens: 0,
      },
    },
    error: 'unknown',
    isApiErrorMessage: true,
  }
}
