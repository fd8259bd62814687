// edit and multi_edit against real files: exact-once matching, failures that explain
// themselves, line endings, encodings, final newline, mode and atomicity kept.

import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { useFsRigs } from './support.js'

const rig = useFsRigs()

async function readyFile(name: string, content: string | Buffer) {
  const fs = await rig()
  writeFileSync(join(fs.cwd, name), content)
  await fs.run('read', { file_path: name })
  return { ...fs, file: join(fs.cwd, name) }
}

describe('edit', () => {
  it('replaces a unique match and answers with a unified diff', async () => {
    const { run, file } = await readyFile('a.ts', 'const a = 1\nconst b = 2\nconst c = 3\n')
    const result = await run('edit', {
      file_path: 'a.ts',
      old_string: 'const b = 2',
      new_string: 'const b = 20',
    })
    expect(result.content).toBe(
      'Edited a.ts (1 replacement)\n--- a.ts\n+++ a.ts\n@@ -1,3 +1,3 @@\n const a = 1\n-const b = 2\n+const b = 20\n const c = 3',
    )
    expect(readFileSync(file, 'utf8')).toBe('const a = 1\nconst b = 20\nconst c = 3\n')
  })

  it('refuses a non-unique match, naming the lines, unless replace_all', async () => {
    const { run, file } = await readyFile('d.txt', 'x = 1\ny = 2\nx = 1\n')
    const refused = await run('edit', { file_path: 'd.txt', old_string: 'x = 1', new_string: 'x = 9' })
    expect(refused).toEqual({
      content:
        'old_string matches 2 times in d.txt (at lines 1, 3); add surrounding lines to make it unique, or set replace_all to change every occurrence',
      isError: true,
    })
    expect(readFileSync(file, 'utf8')).toBe('x = 1\ny = 2\nx = 1\n')
    const all = await run('edit', {
      file_path: 'd.txt',
      old_string: 'x = 1',
      new_string: 'x = 9',
      replace_all: true,
    })
    expect(all.content).toContain('(2 replacements)')
    expect(readFileSync(file, 'utf8')).toBe('x = 9\ny = 2\nx = 9\n')
  })

  it('explains a failed match and shows the nearest lines', async () => {
    const { run } = await readyFile('f.py', 'def f():\n    return compute(1)\n\nprint(f())\n')
    const wrongIndent = await run('edit', {
      file_path: 'f.py',
      old_string: 'def f():\n  return compute(1)',
      new_string: 'def f():\n  return 2',
    })
    expect(wrongIndent.isError).toBe(true)
    expect(wrongIndent.content).toContain('old_string was not found in f.py')
    expect(wrongIndent.content).toContain('it matches when whitespace is ignored')
    expect(wrongIndent.content).toContain('     2\t    return compute(1)')
    const typo = await run('edit', { file_path: 'f.py', old_string: 'print(g())', new_string: 'x' })
    expect(typo.content).toContain('Nearest lines')
    expect(typo.content).toContain('     4\tprint(f())')
  })

  it('keeps CRLF, no final newline, a UTF-8 BOM, Latin-1 bytes and the mode', async () => {
    const crlf = await readyFile('w.txt', 'one\r\ntwo\r\nthree')
    await crlf.run('edit', { file_path: 'w.txt', old_string: 'one\ntwo', new_string: 'one\nTWO\nmore' })
    expect(readFileSync(crlf.file, 'utf8')).toBe('one\r\nTWO\r\nmore\r\nthree')

    const bom = await readyFile(
      'b.txt',
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Grüße\n')]),
    )
    chmodSync(bom.file, 0o600)
    await bom.run('edit', { file_path: 'b.txt', old_string: 'Grüße', new_string: 'Grüße, Welt' })
    expect(readFileSync(bom.file)).toEqual(
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('Grüße, Welt\n')]),
    )
    expect(statSync(bom.file).mode & 0o777).toBe(0o600)

    const latin = await readyFile('l.txt', Buffer.from('caf\xe9 ok\n', 'latin1'))
    await latin.run('edit', { file_path: 'l.txt', old_string: 'ok', new_string: 'bien' })
    expect(readFileSync(latin.file)).toEqual(Buffer.from('caf\xe9 bien\n', 'latin1'))
  })

  it('treats $ patterns in new_string literally and leaves no temp files behind', async () => {
    const { run, file, cwd } = await readyFile('s.js', 'a\n')
    await run('edit', { file_path: 's.js', old_string: 'a', new_string: "x.replace(/b/, '$&$1')" })
    expect(readFileSync(file, 'utf8')).toBe("x.replace(/b/, '$&$1')\n")
    expect(readdirSync(cwd)).toEqual(['s.js'])
  })

  it('refuses files not read, changed since, binary or missing; creates with an empty old_string', async () => {
    const { cwd, run } = await rig()
    writeFileSync(join(cwd, 'u.txt'), 'x\n')
    expect((await run('edit', { file_path: 'u.txt', old_string: 'x', new_string: 'y' })).content).toContain(
      'has not been read',
    )
    await run('read', { file_path: 'u.txt' })
    writeFileSync(join(cwd, 'u.txt'), 'x changed\n')
    expect((await run('edit', { file_path: 'u.txt', old_string: 'x', new_string: 'y' })).content).toContain(
      'changed on disk',
    )
    expect((await run('edit', { file_path: 'none.txt', old_string: 'x', new_string: 'y' })).content).toBe(
      'none.txt does not exist',
    )
    const created = await run('edit', { file_path: 'made.txt', old_string: '', new_string: 'hi\n' })
    expect(created.content).toContain('Created made.txt')
    expect(readFileSync(join(cwd, 'made.txt'), 'utf8')).toBe('hi\n')
    writeFileSync(join(cwd, 'bin'), Buffer.from([0, 1, 2]))
    await run('read', { file_path: 'bin' })
    expect((await run('edit', { file_path: 'bin', old_string: 'a', new_string: 'b' })).content).toContain(
      'binary file',
    )
  })

  it('logs each change with the hashes whose content the file history keeps', async () => {
    const { run, agent, home } = await readyFile('h.txt', 'before\n')
    await run('edit', { file_path: 'h.txt', old_string: 'before', new_string: 'after' })
    const change = agent.session.events.find((e) => e.type === 'file/change')?.data as {
      before: string
      after: string
      tool: string
    }
    expect(change.tool).toBe('edit')
    const folder = readdirSync(join(home, 'file-history'))
    expect(folder).toHaveLength(1)
    expect(readFileSync(join(home, 'file-history', folder[0]!, change.before), 'utf8')).toBe('before\n')
    expect(readFileSync(join(home, 'file-history', folder[0]!, change.after), 'utf8')).toBe('after\n')
  })
})

describe('multi_edit', () => {
  it('applies edits in order, each seeing the previous result', async () => {
    const { run, file } = await readyFile('m.txt', 'alpha\nbeta\n')
    const result = await run('multi_edit', {
      file_path: 'm.txt',
      edits: [
        { old_string: 'alpha', new_string: 'gamma' },
        { old_string: 'gamma\nbeta', new_string: 'gamma\ndelta' },
      ],
    })
    expect(result.content).toContain('(2 replacements)')
    expect(readFileSync(file, 'utf8')).toBe('gamma\ndelta\n')
  })

  it('is all or nothing: a failing edit leaves the file unchanged and is named', async () => {
    const { run, file } = await readyFile('m.txt', 'alpha\nbeta\n')
    const result = await run('multi_edit', {
      file_path: 'm.txt',
      edits: [
        { old_string: 'alpha', new_string: 'gamma' },
        { old_string: 'missing', new_string: 'x' },
      ],
    })
    expect(result.isError).toBe(true)
    expect(result.content).toMatch(/^edit 2 of 2: old_string was not found in m.txt/)
    expect(readFileSync(file, 'utf8')).toBe('alpha\nbeta\n')
  })
})
