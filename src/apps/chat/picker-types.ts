// What the resume picker lists and asks, apart from the picker itself, so the chat's face
// (chat-host.ts) can name it without importing the picker.

export interface PickerRow {
  id: string
  title: string
  /** The session's folder, as stored. */
  folder: string
  lastActivity: number
  turns: number
  /** Formatted, e.g. `$0.0123`. */
  cost: string
}

/** The rows, the search service, a session's last exchange. */
export interface PickerSource {
  rows: readonly PickerRow[]
  /** Ids of sessions whose text matches `query`, best first. */
  search(query: string): Promise<readonly string[]>
  /** The last prompt and the first line of its answer. */
  preview(id: string): Promise<readonly string[]>
}
