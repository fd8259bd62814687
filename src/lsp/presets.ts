// The built-in servers. Each is used only when its command is found (PATH, or the
// project's node_modules/.bin); `lsp.servers` in config overrides or adds entries.

import type { LspServerSpec } from './types.js'

export const LSP_PRESETS: readonly LspServerSpec[] = [
  {
    id: 'typescript',
    command: 'typescript-language-server',
    args: ['--stdio'],
    extensions: ['ts', 'tsx', 'mts', 'cts', 'js', 'jsx', 'mjs', 'cjs'],
    rootMarkers: ['tsconfig.json', 'jsconfig.json', 'package.json'],
    env: {},
    install: 'npm install --save-dev typescript-language-server typescript',
  },
  {
    id: 'pyright',
    command: 'pyright-langserver',
    args: ['--stdio'],
    extensions: ['py', 'pyi'],
    rootMarkers: ['pyrightconfig.json', 'pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt'],
    env: {},
    install: 'npm install --save-dev pyright (or: pip install pyright)',
  },
  {
    id: 'gopls',
    command: 'gopls',
    args: [],
    extensions: ['go'],
    rootMarkers: ['go.work', 'go.mod'],
    env: {},
    install: 'go install golang.org/x/tools/gopls@latest',
  },
  {
    id: 'rust-analyzer',
    command: 'rust-analyzer',
    args: [],
    extensions: ['rs'],
    rootMarkers: ['Cargo.toml'],
    env: {},
    install: 'rustup component add rust-analyzer',
  },
  {
    id: 'clangd',
    command: 'clangd',
    args: [],
    extensions: ['c', 'h', 'cc', 'cpp', 'cxx', 'hpp', 'hh', 'hxx'],
    rootMarkers: ['compile_commands.json', 'compile_flags.txt', '.clangd'],
    env: {},
    install: 'apt-get install clangd (or your system package manager)',
  },
]

/** The LSP languageId for a file extension (the server needs it in didOpen). */
export function languageIdOf(extension: string): string {
  return LANGUAGE_IDS[extension] ?? extension
}

const LANGUAGE_IDS: Readonly<Record<string, string>> = {
  ts: 'typescript',
  mts: 'typescript',
  cts: 'typescript',
  tsx: 'typescriptreact',
  js: 'javascript',
  mjs: 'javascript',
  cjs: 'javascript',
  jsx: 'javascriptreact',
  py: 'python',
  pyi: 'python',
  go: 'go',
  rs: 'rust',
  c: 'c',
  h: 'c',
  cc: 'cpp',
  cpp: 'cpp',
  cxx: 'cpp',
  hpp: 'cpp',
  hh: 'cpp',
  hxx: 'cpp',
}
