// The pure JSONL layout: id encoding (injective, path-safe, bounded) and cwd buckets.

import { createHash, randomUUID } from 'node:crypto'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isDshError } from '../../../src/core/errors.js'
import {
  bucketFor,
  decodeSessionId,
  encodeSessionId,
  LOCK_SUFFIX,
  MAX_DERIVED_SUFFIX_LENGTH,
  MAX_PLAIN_ENCODED_LENGTH,
  MAX_SESSION_ID_LENGTH,
  NO_CWD_BUCKET,
  SessionLayout,
  tempSibling,
} from '../../../src/persistence/jsonl/layout.js'
import { SessionErrorCode } from '../../../src/session/errors.js'
import { sessionIdProblem } from '../../../src/session/id.js'
import { fc } from '../../support/property.js'
import { thrownBy } from '../../support/thrown.js'

const ROOT = '/srv/dsh/sessions'
const SAFE_NAME = /^[A-Za-z0-9._~-]+$/

/** Any UTF-16 string the id rule accepts (no NUL, no lone surrogate); sometimes long. */
const anyId = fc
  .oneof(
    { weight: 4, arbitrary: fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 1, maxLength: 40 }) },
    {
      weight: 1,
      arbitrary: fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 1, maxLength: 1200 }),
    },
    {
      weight: 2,
      arbitrary: fc.array(fc.constantFrom(0x2e, 0x2f, 0x7e, 0x5c, 0x41, 0x61, 0), {
        minLength: 1,
        maxLength: 8,
      }),
    },
  )
  // NUL and surrogates are outside the id rule: moved to other units, keeping the shape.
  .map((codes) =>
    String.fromCharCode(...codes.map((c) => (c === 0 ? 0x41 : c >= 0xd800 && c <= 0xdfff ? c + 0x800 : c))),
  )
  .map((id) => (id.length % 7 === 3 ? `${id}\ud83d\udcac` : id))
  .filter((id) => sessionIdProblem(id) === undefined)

describe('encodeSessionId', () => {
  it('keeps [A-Za-z0-9._-] and escapes every other UTF-16 unit as ~XXXX', () => {
    expect(encodeSessionId('Abc-1.2_3')).toBe('Abc-1.2_3')
    expect(encodeSessionId('~')).toBe('~007E')
    expect(encodeSessionId('a/b')).toBe('a~002Fb')
    expect(encodeSessionId('../../etc/passwd')).toBe('..~002F..~002Fetc~002Fpasswd')
    expect(encodeSessionId('a\u0001')).toBe('a~0001')
    for (const bad of ['nul\u0000', '\ud800', 'a\udc00']) {
      expect(
        isDshError(
          thrownBy(() => encodeSessionId(bad)),
          SessionErrorCode.InvalidId,
        ),
        bad,
      ).toBe(true)
    }
    expect(encodeSessionId('💬')).toBe('~D83D~DCAC')
  })

  it('keeps exactly A-Z, a-z, 0-9, ".", "_" and "-", range edges included, and escapes their neighbours', () => {
    const kept = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-'
    expect(encodeSessionId(kept)).toBe(kept)
    expect(decodeSessionId(kept)).toBe(kept)
    for (const edge of ['a', 'z', 'A', 'Z', '0', '9', '_', '-'])
      expect(encodeSessionId(edge), edge).toBe(edge)
    const neighbours: Record<string, string> = {
      '`': '~0060', // before a
      '{': '~007B', // after z
      '@': '~0040', // before A
      '[': '~005B', // after Z
      '/': '~002F', // before 0
      ':': '~003A', // after 9
      ',': '~002C',
      '^': '~005E',
      '\u00e9': '~00E9',
    }
    for (const [char, escaped] of Object.entries(neighbours)) {
      expect(encodeSessionId(`x${char}y`), char).toBe(`x${escaped}y`)
      expect(decodeSessionId(`x${escaped}y`), escaped).toBe(`x${char}y`)
    }
  })

  it('decodes only stems the encoding writes: no raw unsafe character, whole upper-case escapes, not empty', () => {
    // A file name dsh did not write (or a cut one) names no session rather than a wrong one.
    for (const stem of [
      '',
      'a b',
      'a/b',
      'caf\u00e9',
      'x`',
      'x{',
      '~',
      'a~',
      'a~00',
      'a~002',
      '~002f', // lower-case hex
      '~00G1',
      '~+02F',
      '~~',
      `${'x'.repeat(100)}~~${'0'.repeat(64)}`,
      // Well-formed, but not what the encoding writes for the id they spell: a stray
      // `~0061.jsonl` beside `a.jsonl` must not be read as session `a`.
      '~0061',
      'a~002Eb',
      '.',
      '..',
      '~002E~002E~002E',
      'x'.repeat(MAX_PLAIN_ENCODED_LENGTH + 1), // an id this long is written hashed
    ]) {
      expect(decodeSessionId(stem), JSON.stringify(stem)).toBeUndefined()
    }
    expect(decodeSessionId('~002F~002Fa~007E')).toBe('//a~')
    expect(decodeSessionId('~D83D~DCAC')).toBe('\ud83d\udcac')
  })

  it('escapes the whole segments . and .. but not longer dot runs', () => {
    expect(encodeSessionId('.')).toBe('~002E')
    expect(encodeSessionId('..')).toBe('~002E~002E')
    expect(encodeSessionId('...')).toBe('...')
    expect(decodeSessionId('~002E')).toBe('.')
    expect(decodeSessionId('~002E~002E')).toBe('..')
  })

  it('keeps ids differing only in case apart', () => {
    expect(encodeSessionId('Session')).not.toBe(encodeSessionId('session'))
    expect(encodeSessionId('A'.repeat(1000))).not.toBe(encodeSessionId('a'.repeat(1000)))
  })

  it('rejects an empty id clearly', () => {
    const error = thrownBy(() => encodeSessionId(''))
    expect(isDshError(error, SessionErrorCode.InvalidId)).toBe(true)
    expect((error as { userFacing: boolean }).userFacing).toBe(true)
  })

  it('hashes long ids into a bounded name and refuses ids past the documented maximum', () => {
    const long = 'x'.repeat(1000)
    const stem = encodeSessionId(long)
    expect(stem).toMatch(/^x{100}~~[0-9a-f]{64}$/)
    expect(decodeSessionId(stem)).toBeUndefined()
    expect(encodeSessionId(`${'x'.repeat(999)}y`)).not.toBe(stem)

    const longest = '/'.repeat(MAX_SESSION_ID_LENGTH)
    expect(Buffer.byteLength(encodeSessionId(longest)) + MAX_DERIVED_SUFFIX_LENGTH).toBeLessThanOrEqual(255)
    const error = thrownBy(() => encodeSessionId('x'.repeat(MAX_SESSION_ID_LENGTH + 1)))
    expect(isDshError(error, SessionErrorCode.InvalidId)).toBe(true)
    expect((error as Error).message).toContain(String(MAX_SESSION_ID_LENGTH))
  })

  it('writes an id whose escaped form is exactly 180 characters plainly, and hashes one of 181', () => {
    expect(MAX_PLAIN_ENCODED_LENGTH).toBe(180)
    const plain180 = 'p'.repeat(180)
    expect(encodeSessionId(plain180)).toBe(plain180)
    expect(decodeSessionId(plain180)).toBe(plain180)
    const hashed181 = encodeSessionId('p'.repeat(181))
    expect(hashed181).toMatch(/^p+~~[0-9a-f]{64}$/)
    expect(decodeSessionId(hashed181)).toBeUndefined()
    // The limit counts the escaped form: 45 escapes of 4+1 characters are 225, hashed; 36 are 180, plain.
    expect(encodeSessionId('/'.repeat(36))).toBe('~002F'.repeat(36))
    expect(encodeSessionId(`${'/'.repeat(35)}abcde`)).toBe(`${'~002F'.repeat(35)}abcde`)
    expect(encodeSessionId(`${'/'.repeat(35)}abcdef`)).toContain('~~')
  })

  it('never splits an escape when cutting the readable prefix of a hashed name', () => {
    for (let pad = 0; pad < 6; pad++) {
      const stem = encodeSessionId(`${'a'.repeat(pad)}${'/'.repeat(400)}`)
      const prefix = stem.slice(0, stem.indexOf('~~'))
      expect(prefix).toMatch(/^a*(~002F)*$/)
    }
  })

  it('keeps as much of the readable prefix as fits in 100 characters, in whole escapes', () => {
    const prefixOf = (id: string) => {
      const stem = encodeSessionId(id)
      return stem.slice(0, stem.indexOf('~~'))
    }
    // pad plain characters, then slashes (escape ~002F, 5 characters each) → the prefix kept.
    const cases: [number, string][] = [
      [0, '~002F'.repeat(20)], // the 20th escape ends exactly at 100: kept
      [1, `a${'~002F'.repeat(19)}`], // a 20th would end at 101
      [4, `aaaa${'~002F'.repeat(19)}`],
      [5, `aaaaa${'~002F'.repeat(19)}`],
      [96, `${'a'.repeat(96)}`], // an escape at 96 would end at 101
      [99, `${'a'.repeat(99)}`],
      [100, `${'a'.repeat(100)}`],
      [101, `${'a'.repeat(100)}`], // the first escape starts past the cut
    ]
    for (const [pad, prefix] of cases)
      expect(prefixOf(`${'a'.repeat(pad)}${'/'.repeat(100)}`), `pad ${pad}`).toBe(prefix)
  })

  it('names a hashed stem by the SHA-256 of the id as UTF-16LE code units (stable on disk)', () => {
    // Golden values: a changed hash would lose every stored session with a long id.
    expect(encodeSessionId('x'.repeat(1000))).toBe(
      `${'x'.repeat(100)}~~6f3a9a30ac2027bc425143a508057d9f9f0ad8483c4eb7577c9e4442f12ac0cf`,
    )
    expect(encodeSessionId('\ud83d\udcac'.repeat(100))).toBe(
      `${'~D83D~DCAC'.repeat(10)}~~cf970b5dd2aafbbc75c3b15918cb3b27b25c55514681d323da7fce8c12ecedac`,
    )
  })

  it('property: path-safe, bounded, contained in its bucket, decodable when plain', () => {
    fc.assert(
      fc.property(anyId, (id) => {
        const stem = encodeSessionId(id)
        expect(stem).toMatch(SAFE_NAME)
        expect(stem).not.toBe('.')
        expect(stem).not.toBe('..')
        expect(Buffer.byteLength(stem) + MAX_DERIVED_SUFFIX_LENGTH).toBeLessThanOrEqual(255)
        const path = new SessionLayout(ROOT).sessionPath(id, '/w')
        expect(dirname(resolve(path))).toBe(join(ROOT, bucketFor('/w')))
        if (stem.length <= MAX_PLAIN_ENCODED_LENGTH && !stem.includes('~~'))
          expect(decodeSessionId(stem)).toBe(id)
        else expect(stem).toMatch(/~~[0-9a-f]{64}$/)
      }),
      { numRuns: 2000 },
    )
  })

  it('property: injective (distinct ids, distinct names)', () => {
    fc.assert(
      fc.property(anyId, anyId, (a, b) => {
        fc.pre(a !== b)
        expect(encodeSessionId(a)).not.toBe(encodeSessionId(b))
      }),
      { numRuns: 2000 },
    )
    // Near misses the generator rarely finds: one unit apart, at either end.
    fc.assert(
      fc.property(
        anyId,
        fc.integer({ min: 0, max: 0xffff }),
        fc.integer({ min: 0, max: 0xffff }),
        (base, x, y) => {
          fc.pre(x !== y)
          const a = base + String.fromCharCode(x)
          const b = base + String.fromCharCode(y)
          fc.pre(a.length <= MAX_SESSION_ID_LENGTH)
          const valid = (id: string) => sessionIdProblem(id) === undefined
          fc.pre([a, b, String.fromCharCode(x) + base, String.fromCharCode(y) + base].every(valid))
          expect(encodeSessionId(a)).not.toBe(encodeSessionId(b))
          expect(encodeSessionId(String.fromCharCode(x) + base)).not.toBe(
            encodeSessionId(String.fromCharCode(y) + base),
          )
        },
      ),
      { numRuns: 1000 },
    )
  })
})

describe('bucketFor', () => {
  it('is a readable slug plus 12 hex digits of the SHA-256 of the cwd', () => {
    const cwd = '/home/ada/my project'
    const hash = createHash('sha256').update(cwd).digest('hex').slice(0, 12)
    expect(bucketFor(cwd)).toBe(`-home-ada-my~0020project-${hash}`)
    expect(bucketFor('C:\\Users\\ada')).toMatch(/^C~003A-Users-ada-[0-9a-f]{12}$/)
  })

  it('uses _no-cwd when there is no cwd', () => {
    expect(NO_CWD_BUCKET).toBe('_no-cwd')
    expect(bucketFor(undefined)).toBe('_no-cwd')
    expect(bucketFor('')).toBe('_no-cwd')
  })

  it('cuts a long slug to 80 characters without splitting an escape', () => {
    const cwd = `/${'\u00e9'.repeat(40)}`
    const hash = createHash('sha256').update(cwd).digest('hex').slice(0, 12)
    // '-' + 15 escapes is 76; a 16th escape would end at 81.
    expect(bucketFor(cwd)).toBe(`-${'~00E9'.repeat(15)}-${hash}`)
    const fits = `/${'\u00e9'.repeat(15)}abcd` // 1 + 75 + 4 = 80: kept whole
    expect(bucketFor(fits)).toMatch(new RegExp(`^-${'~00E9'.repeat(15)}abcd-[0-9a-f]{12}$`))
  })

  it('keeps cwds with the same slug apart and bounds the length', () => {
    expect(bucketFor('/a/b')).not.toBe(bucketFor('/a-b'))
    const deep = `/${'very-long-folder-name/'.repeat(40)}`
    expect(bucketFor(deep).length).toBeLessThanOrEqual(80 + 13)
    expect(bucketFor(deep)).not.toBe(bucketFor(`${deep}x`))
  })

  it('property: a single safe path segment', () => {
    fc.assert(
      fc.property(anyId, (cwd) => {
        const bucket = bucketFor(cwd)
        expect(bucket).toMatch(SAFE_NAME)
        expect(bucket.length).toBeLessThanOrEqual(93)
        expect(relative(ROOT, resolve(ROOT, bucket)).split(sep)).toEqual([bucket])
      }),
      { numRuns: 1000 },
    )
  })
})

describe('SessionLayout', () => {
  it('puts each session at <root>/<bucket>/<stem>.jsonl, for every cwd one layout is asked about', () => {
    const layout = new SessionLayout(ROOT)
    for (const [id, cwd] of [
      ['s1', '/w/a'],
      ['s2', '/w/b'],
      ['s1', '/w/b'],
      ['a/b', undefined],
      ['c', ''],
      ['s1', '/w/a'],
    ] as const) {
      const bucket = bucketFor(cwd)
      expect(layout.bucketDir(cwd), String(cwd)).toBe(`${ROOT}${sep}${bucket}`)
      expect(layout.fileName(id)).toBe(`${encodeSessionId(id)}.jsonl`)
      expect(layout.sessionPath(id, cwd), `${id} in ${cwd}`).toBe(
        `${ROOT}${sep}${bucket}${sep}${encodeSessionId(id)}.jsonl`,
      )
    }
    expect(layout.sessionPath('a/b', undefined)).toBe(`${ROOT}${sep}_no-cwd${sep}a~002Fb.jsonl`)
  })

  it("the longest name derived from a log, its lock's temporary file, adds exactly MAX_DERIVED_SUFFIX_LENGTH", () => {
    const id = '/'.repeat(MAX_SESSION_ID_LENGTH)
    const log = new SessionLayout(ROOT).sessionPath(id, '/w')
    const nonce = randomUUID()
    const temp = basename(tempSibling(log + LOCK_SUFFIX, nonce))
    const stem = encodeSessionId(id)
    expect(temp).toBe(`${stem}.jsonl.lock.${nonce}.tmp`)
    expect(temp.length).toBe(stem.length + MAX_DERIVED_SUFFIX_LENGTH)
    expect(Buffer.byteLength(temp)).toBeLessThanOrEqual(255)
  })

  it('remembers what it computed, up to 4096 entries per memo, so a long-lived harness stays bounded', () => {
    const layout = new SessionLayout(ROOT)
    // The memos are private; their size is the promise checked here (memory of a long run).
    const memo = layout as unknown as { buckets: Map<string, string>; stems: Map<string, string> }
    layout.sessionPath('one', '/w/1')
    layout.sessionPath('two', '/w/2')
    expect([memo.buckets.size, memo.stems.size]).toEqual([2, 2])
    let largest = 0
    for (let i = 3; i <= 5000; i++) {
      const path = layout.sessionPath(`s${i}`, `/w/${i}`)
      largest = Math.max(largest, memo.buckets.size, memo.stems.size)
      if (i % 1000 === 0) expect(path).toBe(join(ROOT, bucketFor(`/w/${i}`), `s${i}.jsonl`))
    }
    expect(largest).toBe(4096)
    expect(memo.stems.size).toBe(5000 - 4096)
    expect(layout.sessionPath('one', '/w/1')).toBe(join(ROOT, bucketFor('/w/1'), 'one.jsonl'))
  })
})
