/**
 * A strict reader of the little CBOR (RFC 8949) a "none" attestation is made of: the attestation object
 * (a map of three text keys) and the credential's COSE key (a map of integer keys to integers and byte
 * strings). It reads only definite lengths in their shortest form, integers that fit in four bytes,
 * maps without repeated keys, and nothing else: that is the form `@simplewebauthn/server`'s encoder
 * writes (RFC 8949 §4.2.1 preferred serialisation, the map's order kept), so a COSE key read here is
 * stored as the very bytes the library would re-encode it to. Whatever falls outside answers
 * `undefined`, and the caller leaves the response to the library.
 */

const MAJOR_UINT = 0
const MAJOR_NINT = 1
const MAJOR_BYTES = 2
const MAJOR_TEXT = 3
const MAJOR_MAP = 5

/** One data item's head: its major type, its argument, and where its content starts. */
interface Head {
  major: number
  value: number
  next: number
}

/** The head at `at` in its shortest form, or undefined (a longer form, an indefinite length, past the end). */
function readHead(bytes: Uint8Array, at: number): Head | undefined {
  const first = bytes[at]
  if (first === undefined) return undefined
  const major = first >> 5
  const info = first & 0x1f
  if (info < 24) return { major, value: info, next: at + 1 }
  if (info === 24) {
    const value = bytes[at + 1]
    return value !== undefined && value >= 24 ? { major, value, next: at + 2 } : undefined
  }
  if (info === 25 && at + 3 <= bytes.length) {
    const value = ((bytes[at + 1] ?? 0) << 8) | (bytes[at + 2] ?? 0)
    return value > 0xff ? { major, value, next: at + 3 } : undefined
  }
  if (info === 26 && at + 5 <= bytes.length) {
    const value = (bytes[at + 1] ?? 0) * 0x1000000 + (bytes[at + 2] ?? 0) * 0x10000 + (bytes[at + 3] ?? 0) * 0x100 + (bytes[at + 4] ?? 0)
    return value > 0xffff ? { major, value, next: at + 5 } : undefined
  }
  return undefined
}

/** A byte or text string's content at `head`, or undefined when it runs past the end. */
function content(bytes: Uint8Array, head: Head): Uint8Array | undefined {
  const end = head.next + head.value
  return end <= bytes.length ? bytes.subarray(head.next, end) : undefined
}

/** An integer item's value (major 0 or 1), or undefined. */
function integer(head: Head): number | undefined {
  if (head.major === MAJOR_UINT) return head.value
  if (head.major === MAJOR_NINT) return -1 - head.value
  return undefined
}

/** A COSE key as read: integer labels to integers or byte strings (RFC 9052 §7). */
export type CoseKey = Map<number, number | Uint8Array>

/** The COSE key at `at` and where it ends, or undefined when it is not in the form described above. */
export function readCoseKey(bytes: Uint8Array, at: number): { key: CoseKey; end: number } | undefined {
  const map = readHead(bytes, at)
  if (!map || map.major !== MAJOR_MAP || map.value === 0) return undefined
  const key: CoseKey = new Map()
  let next = map.next
  for (let i = 0; i < map.value; i++) {
    const labelHead = readHead(bytes, next)
    const label = labelHead && integer(labelHead)
    if (labelHead === undefined || label === undefined || key.has(label)) return undefined
    const valueHead = readHead(bytes, labelHead.next)
    if (!valueHead) return undefined
    const number = integer(valueHead)
    if (number !== undefined) {
      key.set(label, number)
      next = valueHead.next
      continue
    }
    const data = valueHead.major === MAJOR_BYTES ? content(bytes, valueHead) : undefined
    if (!data) return undefined
    key.set(label, data)
    next = valueHead.next + data.length
  }
  return { key, end: next }
}

/** Bytes as Latin-1 text (no spread of the bytes as arguments: a long string would overflow the stack). */
const ascii = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1")

/**
 * An attestation object (WebAuthn §6.5.4) whose statement format is "none" with an empty statement:
 * its authenticator data. Undefined for any other format, a statement, another key or a longer form,
 * or bytes after the object.
 */
export function readNoneAttestation(bytes: Uint8Array): Uint8Array | undefined {
  const map = readHead(bytes, 0)
  if (!map || map.major !== MAJOR_MAP || map.value !== 3) return undefined
  let next = map.next
  let fmt: string | undefined
  let emptyStatement = false
  let authData: Uint8Array | undefined
  for (let i = 0; i < 3; i++) {
    const nameHead = readHead(bytes, next)
    const name = nameHead?.major === MAJOR_TEXT ? content(bytes, nameHead) : undefined
    if (!nameHead || !name) return undefined
    const valueHead = readHead(bytes, nameHead.next + name.length)
    if (!valueHead) return undefined
    const field = ascii(name)
    if (field === "fmt" && fmt === undefined && valueHead.major === MAJOR_TEXT) {
      const value = content(bytes, valueHead)
      if (!value) return undefined
      fmt = ascii(value)
      next = valueHead.next + value.length
    } else if (field === "attStmt" && !emptyStatement && valueHead.major === MAJOR_MAP && valueHead.value === 0) {
      emptyStatement = true
      next = valueHead.next
    } else if (field === "authData" && authData === undefined && valueHead.major === MAJOR_BYTES) {
      authData = content(bytes, valueHead)
      if (!authData) return undefined
      next = valueHead.next + authData.length
    } else {
      return undefined
    }
  }
  return fmt === "none" && emptyStatement && next === bytes.length ? authData : undefined
}
