/**
 * Who is counted: the client (its IP, an IPv6 client per /64 since one host usually holds a whole /64)
 * and the account or address (a keyed hash, so neither the port nor the logs hold identifiers).
 */
import { isIP } from "node:net"
import { normalizeAccount } from "./account-key.js"
import { type HmacKey, hmac, hmacKey } from "../crypto/digest.js"

/** The 8 groups of an IPv6 address, or null when it does not parse. */
function ipv6Groups(address: string): number[] | null {
  let text = address
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (tail?.[1]) {
    const bytes = tail[1].split(".").map(Number)
    const [a = 0, b = 0, c = 0, d = 0] = bytes
    text = `${text.slice(0, -tail[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const halves = text.split("::")
  if (halves.length > 2) return null
  const head = halves[0] ? halves[0].split(":") : []
  const rest = halves.length === 2 && halves[1] ? halves[1].split(":") : []
  const missing = 8 - head.length - rest.length
  if (missing < 0 || (halves.length === 1 && missing !== 0)) return null
  return [...head, ...Array<string>(missing).fill("0"), ...rest].map((g) => Number.parseInt(g, 16))
}

const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/

/**
 * The counted form of a client IP: IPv4 as is (also when IPv4-mapped), IPv6 as its /64 prefix
 * (`2001:db8:1:2::/64`); anything else (a hook's own key) unchanged.
 *
 * @example
 * ```ts
 * clientKey("2001:db8:1:2:aaaa::1") // "2001:db8:1:2::/64"
 * clientKey("::ffff:203.0.113.9")   // "203.0.113.9"
 * ```
 */
export function clientKey(ip: string): string {
  // the usual case, a plain IPv4 address, is counted as it is
  if (IPV4.test(ip)) return ip
  const address = ip
    .trim()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "")
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped?.[1]) return mapped[1]
  if (isIP(address) !== 6) return address
  const groups = ipv6Groups(address)
  if (!groups) return address
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(":")}::/64`
}

/**
 * A keyed hash of an account identifier (HMAC-SHA-256 under the first secret, 128 bits, base64url):
 * stable across instances that share the secret, and not reversible by trying common e-mail addresses.
 */
export function accountHash(identifier: string, secret: string | undefined): string {
  return hmac(accountKey(secret ?? "authchart rate limit"), [Buffer.from(normalizeAccount(identifier), "utf8")])
    .toString("base64url")
    .slice(0, 22)
}

/** The last secret's prepared key (one config's first secret; rotating it makes a new one). */
let lastAccountKey: { secret: string; key: HmacKey } | undefined

function accountKey(secret: string): HmacKey {
  if (lastAccountKey?.secret !== secret) lastAccountKey = { secret, key: hmacKey("sha256", secret) }
  return lastAccountKey.key
}
