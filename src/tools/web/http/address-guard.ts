// The plain-HTTP fetch's address guard: only public unicast addresses are reached unless
// the user allowed a host. The check runs on the address actually connected to (a custom
// DNS lookup), for the first request and after every redirect.

import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns'
import type { LookupFunction } from 'node:net'
import ipaddr from 'ipaddr.js'
import { WebError } from '../errors.js'

/** True for a public unicast IPv4/IPv6 address (IPv4-mapped IPv6 is judged as IPv4). */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false
  let parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
    parsed = (parsed as ipaddr.IPv6).toIPv4Address()
  return parsed.range() === 'unicast'
}

/**
 * Which private hosts the user allowed: `*` allows every address; otherwise entries are
 * `host` or `host:port` (IPv6 in brackets), matched against the URL being fetched.
 */
export class PrivateHostPolicy {
  private readonly all: boolean
  private readonly entries: ReadonlySet<string>

  constructor(allowed: readonly string[]) {
    this.all = allowed.includes('*')
    this.entries = new Set(allowed.map((entry) => entry.toLowerCase()))
  }

  allows(url: URL): boolean {
    if (this.all) return true
    const port = url.port || (url.protocol === 'https:' ? '443' : '80')
    const host = url.hostname.toLowerCase()
    return this.entries.has(host) || this.entries.has(`${host}:${port}`)
  }
}

/**
 * Refuses a URL whose literal IP host is not public, or whose host is `localhost` or below
 * it. Other hostnames are checked at lookup on a direct connection; through a proxy the
 * proxy resolves them, so this is all that is judged there.
 */
export function checkLiteralHost(url: URL, policy: PrivateHostPolicy): void {
  if (policy.allows(url)) return
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname
  if (ipaddr.isValid(host) && !isPublicAddress(host)) throw refused(url.hostname, host)
  const name = host.toLowerCase().replace(/\.$/, '')
  if (name === 'localhost' || name.endsWith('.localhost')) throw refused(url.hostname, 'a loopback name')
}

/** A DNS lookup for http.request that fails when any resolved address is not public. */
export function guardedLookup(url: URL, policy: PrivateHostPolicy): LookupFunction {
  const allowed = policy.allows(url)
  return (hostname, options, callback) => {
    dnsLookup(
      hostname,
      { ...options, all: true } as LookupAllOptions,
      (error, addresses: LookupAddress[]) => {
        // Stryker disable next-line StringLiteral: equivalent, the address beside an error is never read
        if (error) return callback(error, '', 0)
        const blocked = allowed ? undefined : addresses.find((entry) => !isPublicAddress(entry.address))
        // Stryker disable next-line StringLiteral: equivalent, the address beside an error is never read
        if (blocked) return callback(refused(hostname, blocked.address), '', 0)
        if ((options as { all?: boolean }).all)
          return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses)
        const first = addresses[0]!
        callback(null, first.address, first.family)
      },
    )
  }
}

function refused(host: string, address: string): WebError {
  return new WebError(
    'refused',
    `refused to fetch ${host}: it is a private, loopback or otherwise non-public address (${address}); allow it with web.http.allowPrivateHosts`,
  )
}
