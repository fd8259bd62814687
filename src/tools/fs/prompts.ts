// Model-facing text of the file tools.

export const READ_DESCRIPTION = `Reads a file and returns its lines numbered like \`cat -n\` (number, tab, line).

- \`file_path\`: absolute, or relative to the working directory.
- By default up to 2000 lines from the start; for long files pass \`offset\` (the 1-based line to start at) and \`limit\` (how many lines). The result says how to read on when it stops early.
- Lines longer than 2000 characters are cut, with a note.
- Images (PNG, JPEG, GIF, WebP) are shown to you as images when the model takes them, else described by type, dimensions and size. Other binary files are not shown.
- Read a file before you \`write\` over it or \`edit\` it; those tools refuse files you have not read, or that changed since you read them.`

export const WRITE_DESCRIPTION = `Writes a whole file, creating missing folders.

- \`file_path\`: absolute, or relative to the working directory; \`content\`: the complete new content.
- An existing file must have been read in this session first and must not have changed since; otherwise the write is refused and says why.
- Prefer \`edit\` for changing part of an existing file.`

export const EDIT_DESCRIPTION = `Replaces exact text in a file.

- \`old_string\` must appear exactly once in the file (including whitespace and indentation, without the line-number prefix of \`read\` output), unless \`replace_all\` is true, which replaces every occurrence.
- When it matches nowhere or more than once, nothing changes and the error shows why and the nearest lines; add surrounding lines to make it unique.
- The file must have been read in this session and not changed since. Line endings, encoding and the final newline are kept. The result is a unified diff.
- An empty \`old_string\` on a file that does not exist creates it with \`new_string\`.`

export const MULTI_EDIT_DESCRIPTION = `Makes several exact-text replacements in one file, in order, all or nothing.

- \`edits\`: a list of \`{old_string, new_string, replace_all?}\`, applied one after another (each sees the result of the previous ones), with the same rules as \`edit\`.
- If any edit fails, the file is not changed and the error says which edit failed and why.`

export const GLOB_DESCRIPTION = `Finds files by glob pattern (\`**/*.ts\`, \`src/**/test_*.py\`), newest first.

- \`pattern\` is relative to \`path\` (default: the working directory). Files ignored by .gitignore (at any level) and the .git folder are skipped.
- At most 100 paths are listed; the result says how many more matched.`

export const GREP_DESCRIPTION = `Searches file contents with a regular expression (ripgrep syntax), honouring .gitignore.

- \`pattern\`: the regex. \`path\`: a file or folder (default: the working directory). \`glob\` (e.g. \`*.ts\`, \`**/*.{js,ts}\`) and \`type\` (e.g. \`ts\`, \`py\`, \`rust\`) filter files.
- \`output_mode\`: \`files_with_matches\` (default: paths, newest first), \`content\` (matching lines as \`path:line:text\`; \`-A\`/\`-B\`/\`-C\` add context lines), or \`count\` (\`path:count\`).
- \`-i\` ignores case; \`multiline\` lets \`.\` and patterns span lines. \`head_limit\` caps the entries shown.
- Use this instead of running grep or rg through bash.`

export const LS_DESCRIPTION = `Lists a folder: one entry per line, folders first with a trailing \`/\`.

- \`path\`: absolute, or relative to the working directory (default: the working directory).
- \`ignore\`: glob patterns of names to leave out. Entries ignored by .gitignore are left out too.`

export const TODO_WRITE_DESCRIPTION = `Keeps the task list for the current work: send the whole list each time (it replaces the previous one).

- Each item: \`content\` (what to do, imperative), \`status\` (\`pending\`, \`in_progress\`, \`completed\`), and optionally \`activeForm\` (the same in present continuous, shown while it runs).
- Use it for work of three or more steps; keep exactly one item \`in_progress\` while working, and mark items \`completed\` as soon as they are done.`
