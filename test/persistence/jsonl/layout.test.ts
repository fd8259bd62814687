// The pure JSONL layout: id encoding (injective, path-safe, bounded) and cwd buckets.

import { createHash } from 'node:crypto'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { describe, expect, it } from 'vitest'
import { isDshError } from '../../../src/core/errors.js'
import {
  bucketFor,
  decodeSessionId,
  encodeSessionId,
  MAX_DERIVED_SUFFIX_LENGTH,
  MAX_PLAIN_ENCODED_LENGTH,
  MAX_SESSION_ID_LENGTH,
  NO_CWD_BUCKET,
  SessionLayout,
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
    expect(bucketFor(undefined)).toBe(NO_CWD_BUCKET)
    expect(bucketFor('')).toBe(NO_CWD_BUCKET)
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
