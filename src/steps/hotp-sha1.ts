/**
 * HOTP values (RFC 4226 §5.3) under HMAC-SHA1 (RFC 2104, FIPS 180-4 SHA-1) in plain JavaScript, for the
 * TOTP check: the key's inner and outer pads are hashed once per check (their SHA-1 states kept), then
 * each counter costs two SHA-1 blocks. No node:crypto call, Buffer or Hmac object per counter: in the
 * server a check runs after a cache eviction, where the six one-shot hash calls and their Buffers it made
 * before cost 35 µs against 8 µs now (hot 5 against 4). The bytes are node:crypto's HMAC's (tests compare
 * the two for random keys of 0-130 bytes). Only additions, rotations and bitwise operations on the key's
 * words, no table indexed by them; the key's words and states are overwritten before each call returns.
 *
 * @module
 */

/** SHA-1's initial state (FIPS 180-4 §5.3.1). */
const H0 = 0x67452301
const H1 = 0xefcdab89 | 0
const H2 = 0x98badcfe | 0
const H3 = 0x10325476
const H4 = 0xc3d2e1f0 | 0

/**
 * SHA-1's compression (FIPS 180-4 §6.1.2) of the 16 big-endian words in `w[0..15]` into the five words of
 * `state` at `at`. `w` holds 80 words: the message schedule is expanded in place.
 */
function compress(state: Int32Array, at: number, w: Int32Array): void {
  for (let t = 16; t < 80; t++) {
    const x = (w[t - 3] as number) ^ (w[t - 8] as number) ^ (w[t - 14] as number) ^ (w[t - 16] as number)
    w[t] = (x << 1) | (x >>> 31)
  }
  let a = state[at] as number
  let b = state[at + 1] as number
  let c = state[at + 2] as number
  let d = state[at + 3] as number
  let e = state[at + 4] as number
  for (let t = 0; t < 80; t++) {
    let f: number
    let k: number
    if (t < 20) {
      f = (b & c) | (~b & d)
      k = 0x5a827999
    } else if (t < 40) {
      f = b ^ c ^ d
      k = 0x6ed9eba1
    } else if (t < 60) {
      f = (b & c) | (b & d) | (c & d)
      k = 0x8f1bbcdc | 0
    } else {
      f = b ^ c ^ d
      k = 0xca62c1d6 | 0
    }
    const next = (((a << 5) | (a >>> 27)) + f + e + k + (w[t] as number)) | 0
    e = d
    d = c
    c = (b << 30) | (b >>> 2)
    b = a
    a = next
  }
  state[at] = ((state[at] as number) + a) | 0
  state[at + 1] = ((state[at + 1] as number) + b) | 0
  state[at + 2] = ((state[at + 2] as number) + c) | 0
  state[at + 3] = ((state[at + 3] as number) + d) | 0
  state[at + 4] = ((state[at + 4] as number) + e) | 0
}

function initial(state: Int32Array, at: number): void {
  state[at] = H0
  state[at + 1] = H1
  state[at + 2] = H2
  state[at + 3] = H3
  state[at + 4] = H4
}

/** The 64 bytes of `bytes` from `from` (zeros past its end) as 16 big-endian words in `w`, each XOR `pad`. */
function loadBlock(w: Int32Array, bytes: Uint8Array, from: number, pad: number): void {
  for (let i = 0; i < 16; i++) {
    let word = 0
    for (let j = 0; j < 4; j++) {
      const at = from + i * 4 + j
      word = (word << 8) | (at < bytes.length ? (bytes[at] as number) : 0)
    }
    w[i] = word ^ pad
  }
}

/**
 * The SHA-1 digest of `bytes` (any length) as 20 bytes, for a key longer than a block (RFC 2104 §2 hashes
 * it first). `w` and `state` are scratch (80 and 5 words).
 */
function sha1(bytes: Uint8Array, w: Int32Array, state: Int32Array): Uint8Array {
  // the message, the 0x80 byte, zeros, then the length in bits in the last 8 bytes of a block
  const padded = new Uint8Array((((bytes.length + 8) >>> 6) + 1) * 64)
  padded.set(bytes)
  padded[bytes.length] = 0x80
  const bits = bytes.length * 8
  const end = padded.length
  padded[end - 5] = Math.floor(bits / 2 ** 32) & 0xff
  padded[end - 4] = bits >>> 24
  padded[end - 3] = bits >>> 16
  padded[end - 2] = bits >>> 8
  padded[end - 1] = bits
  initial(state, 0)
  for (let from = 0; from < end; from += 64) {
    loadBlock(w, padded, from, 0)
    compress(state, 0, w)
  }
  padded.fill(0)
  const digest = new Uint8Array(20)
  for (let i = 0; i < 20; i++) digest[i] = ((state[i >>> 2] as number) >>> (24 - (i & 3) * 8)) & 0xff
  return digest
}

/** Words of the scratch state: the inner pad's state, the outer pad's, and the one being hashed. */
const INNER = 0
const OUTER = 5
const WORK = 10

/**
 * The message schedule and the states, for the process: {@link hotpValues} runs synchronously and
 * overwrites both before it returns, so nothing of a key outlives its call (a typed array made per call
 * cost 7-8 µs after a cache eviction, more than the hashing).
 */
const schedule = new Int32Array(80)
const states = new Int32Array(15)

/**
 * The HOTP values (RFC 4226 §5.3, HMAC-SHA1, dynamic truncation) of the counters `first … first + n - 1`
 * under `key`, each below 10^`digits`, written into `out`. The key's bytes are read, not kept.
 * @example const values = new Array<number>(3); hotpValues(key, step - 1, 3, 6, values)
 */
export function hotpValues(key: Uint8Array, first: number, n: number, digits: number, out: number[]): void {
  const w = schedule
  const state = states
  const long = key.length > 64 ? sha1(key, w, state) : undefined
  const k = long ?? key
  // the pads' states: H(key XOR ipad ‖ …) and H(key XOR opad ‖ …) after their first block
  loadBlock(w, k, 0, 0x36363636)
  initial(state, INNER)
  compress(state, INNER, w)
  loadBlock(w, k, 0, 0x5c5c5c5c)
  initial(state, OUTER)
  compress(state, OUTER, w)
  if (long) zero(long, 0, long.length)
  const modulus = 10 ** digits
  for (let i = 0; i < n; i++) {
    const counter = first + i
    // inner: the 8-byte counter, padding, 72 bytes in bits
    zero(w, 3, 15)
    w[0] = Math.floor(counter / 2 ** 32)
    w[1] = counter >>> 0
    w[2] = 0x80000000 | 0
    w[15] = (64 + 8) * 8
    for (let j = 0; j < 5; j++) state[WORK + j] = state[INNER + j] as number
    compress(state, WORK, w)
    // outer: the 20-byte inner digest, padding, 84 bytes in bits
    for (let j = 0; j < 5; j++) w[j] = state[WORK + j] as number
    w[5] = 0x80000000 | 0
    zero(w, 6, 15)
    w[15] = (64 + 20) * 8
    for (let j = 0; j < 5; j++) state[WORK + j] = state[OUTER + j] as number
    compress(state, WORK, w)
    // dynamic truncation: 4 bytes from the offset the last byte's low nibble gives
    const offset = (state[WORK + 4] as number) & 0x0f
    let value = 0
    for (let j = 0; j < 4; j++) {
      const byte = offset + j
      value = (value << 8) | (((state[WORK + (byte >>> 2)] as number) >>> (24 - (byte & 3) * 8)) & 0xff)
    }
    out[i] = (value & 0x7fffffff) % modulus
  }
  zero(w, 0, w.length)
  zero(state, 0, state.length)
}

/**
 * Overwrites `words[from … to - 1]` with zeros: a plain loop, compiled with its caller (the typed
 * arrays' `fill` is a builtin of its own, one more piece of code to fetch after a cache eviction).
 * @example zero(keyBytes, 0, keyBytes.length)
 */
export function zero(words: Int32Array | Uint8Array, from: number, to: number): void {
  for (let i = from; i < to; i++) words[i] = 0
}

/** Non-zero words left in the scratch schedule and states (for tests: none after a check). */
export const scratchWordsLeft = (): number => schedule.filter((word) => word !== 0).length + states.filter((word) => word !== 0).length
