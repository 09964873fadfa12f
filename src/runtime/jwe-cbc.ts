/**
 * A256CBC-HS512 (RFC 7518 §5.2.2) for session and flow tokens, with one long-lived AES-256-CBC cipher per
 * key and direction, and the tag's input written into one buffer per key.
 *
 * Why: in a server every native crypto call runs with cold caches, about 15-25 µs each against 1-5 µs in
 * a loop. Sealing with a fresh cipher object (create, update, final) and a MAC over a concatenation cost
 * 20-45 µs per token inside the HTTP app against 9-11 µs in a loop; this takes a third of that away
 * (bench/cold.ts).
 *
 * How the long-lived cipher gives the same bytes as a fresh one: CBC encrypts block i as
 * E(P_i ⊕ C_{i-1}), with C_{-1} the IV. A cipher that has already encrypted earlier messages chains from
 * the last ciphertext block it wrote (`chain`), so a new message's first block is fed as P_0 ⊕ IV ⊕ chain:
 * the cipher XORs `chain` back out and encrypts P_0 ⊕ IV, exactly what a fresh cipher at that IV does.
 * Decryption is the mirror: the first plaintext block comes out as D(C_0) ⊕ chain and is corrected with
 * chain ⊕ IV. Padding is off in OpenSSL; PKCS#7 is added and checked here. The tag is checked before
 * anything is decrypted (encrypt-then-MAC), so the padding check tells an attacker nothing.
 *
 * Every call is synchronous and completes its message, so no two messages interleave on one cipher; a
 * cipher whose call throws is dropped and made again.
 */
import { createCipheriv, createDecipheriv, timingSafeEqual } from "node:crypto"
import { type HmacKey, hmacKey, hmacPadded } from "./digest.js"
import { randomInto } from "./random.js"

type Encryptor = ReturnType<typeof createCipheriv>
type Decryptor = ReturnType<typeof createDecipheriv>

const BLOCK = 16
const TAG = 32
/** Tag inputs up to this size are written into the key's kept buffer; a larger one gets a buffer of its own. */
const MAX_KEPT_INPUT = 64 * 1024
const ZERO_IV = Buffer.alloc(BLOCK)

/** What one 64-byte A256CBC-HS512 key keeps: its MAC key (first half), AES key (second half) and ciphers. */
interface CbcKey {
  readonly mac: HmacKey
  readonly aesKey: Buffer
  encryptor: Encryptor | undefined
  /** The last ciphertext block `encryptor` wrote. */
  readonly encryptChain: Buffer
  decryptor: Decryptor | undefined
  /** The last ciphertext block `decryptor` read. */
  readonly decryptChain: Buffer
  /** The inner pad, then the tag's input (AAD ‖ IV ‖ ciphertext ‖ AL) written per token. */
  input: Buffer
}

/** Per key Buffer; derived keys are cached (a bounded map), so this holds few. */
const cbcKeys = new WeakMap<Buffer, CbcKey>()

function cbcKeyOf(key: Buffer): CbcKey {
  let made = cbcKeys.get(key)
  if (!made) {
    const mac = hmacKey("sha512", key.subarray(0, 32))
    made = {
      mac,
      aesKey: key.subarray(32),
      encryptor: undefined,
      encryptChain: Buffer.alloc(BLOCK),
      decryptor: undefined,
      decryptChain: Buffer.alloc(BLOCK),
      input: Buffer.from(mac.innerPad),
    }
    cbcKeys.set(key, made)
  }
  return made
}

/** The key's input buffer with room for `size` bytes after the inner pad (the pad already in it). */
function inputFor(k: CbcKey, size: number): Buffer {
  const needed = k.mac.innerPad.length + size
  if (k.input.length >= needed) return k.input
  const input = Buffer.allocUnsafe(needed <= MAX_KEPT_INPUT ? Math.max(needed, 2 * k.input.length) : needed)
  k.mac.innerPad.copy(input)
  if (needed <= MAX_KEPT_INPUT) k.input = input
  return input
}

/** XORs `a[i] ^ b[i]` into the first block of `target`. */
function xorFirstBlock(target: Buffer, a: Buffer, aAt: number, b: Buffer): void {
  for (let i = 0; i < BLOCK; i++) target[i] = (target[i] as number) ^ (a[aAt + i] as number) ^ (b[i] as number)
}

/**
 * Seals `text` under a 64-byte key: `<iv>.<ciphertext>.<tag>`, base64url, the last three parts of a
 * compact JWE whose protected header is `aad` (AL: its bit length, 8 bytes).
 * @example `${header}..${sealCbc(key, aad, al, JSON.stringify(payload))}`
 */
export function sealCbc(key: Buffer, aad: Buffer, al: Buffer, text: string): string {
  const k = cbcKeyOf(key)
  const length = Buffer.byteLength(text, "utf8")
  const padded = length - (length % BLOCK) + BLOCK
  const plain = Buffer.allocUnsafe(padded)
  plain.write(text, 0, "utf8")
  plain.fill(padded - length, length)
  const ivAt = k.mac.innerPad.length + aad.length
  const input = inputFor(k, aad.length + BLOCK + padded + al.length)
  aad.copy(input, k.mac.innerPad.length)
  randomInto(input, ivAt, BLOCK)
  xorFirstBlock(plain, input, ivAt, k.encryptChain)
  let ciphertext: Buffer
  try {
    k.encryptor ??= newCipher(createCipheriv("aes-256-cbc", k.aesKey, ZERO_IV))
    ciphertext = k.encryptor.update(plain)
  } catch (error) {
    k.encryptor = undefined
    k.encryptChain.fill(0)
    throw error
  }
  ciphertext.copy(k.encryptChain, 0, padded - BLOCK)
  ciphertext.copy(input, ivAt + BLOCK)
  al.copy(input, ivAt + BLOCK + padded)
  const tag = hmacPadded(k.mac, input.subarray(0, ivAt + BLOCK + padded + al.length))
  return `${input.toString("base64url", ivAt, ivAt + BLOCK)}.${ciphertext.toString("base64url")}.${tag.toString("base64url", 0, TAG)}`
}

function newCipher<T extends Encryptor | Decryptor>(cipher: T): T {
  cipher.setAutoPadding(false)
  return cipher
}

/** Bytes a canonical (unpadded) base64url text decodes to; the caller has checked it is canonical. */
export function decodedLength(part: string): number {
  return (part.length * 3) >> 2
}

/**
 * Opens a token's IV, ciphertext and tag (canonical base64url, the IV 16 bytes long) under a 64-byte key:
 * the plaintext, or undefined when the tag is not this key's. Throws when the tag matches but the
 * ciphertext does not decrypt (a token made with this key that is not well-formed).
 * @example openCbc(key, aad, al, parts[2], parts[3], parts[4])
 */
export function openCbc(key: Buffer, aad: Buffer, al: Buffer, iv: string, ciphertext: string, tag: string): Buffer | undefined {
  const k = cbcKeyOf(key)
  const size = decodedLength(ciphertext)
  const tagSize = decodedLength(tag)
  const ivAt = k.mac.innerPad.length + aad.length
  const ctAt = ivAt + BLOCK
  const alAt = ctAt + size
  const tagAt = alAt + al.length
  const input = inputFor(k, aad.length + BLOCK + size + al.length + tagSize)
  aad.copy(input, k.mac.innerPad.length)
  input.write(iv, ivAt, BLOCK, "base64url")
  input.write(ciphertext, ctAt, size, "base64url")
  al.copy(input, alAt)
  input.write(tag, tagAt, tagSize, "base64url")
  const expected = hmacPadded(k.mac, input.subarray(0, tagAt))
  if (tagSize !== TAG || !timingSafeEqual(input.subarray(tagAt, tagAt + TAG), expected.subarray(0, TAG))) return undefined
  if (size === 0 || size % BLOCK !== 0) throw new CbcDecryptionFailed()
  let plain: Buffer
  try {
    k.decryptor ??= newCipher(createDecipheriv("aes-256-cbc", k.aesKey, ZERO_IV))
    plain = k.decryptor.update(input.subarray(ctAt, alAt))
  } catch {
    k.decryptor = undefined
    k.decryptChain.fill(0)
    throw new CbcDecryptionFailed()
  }
  xorFirstBlock(plain, input, ivAt, k.decryptChain)
  input.copy(k.decryptChain, 0, alAt - BLOCK, alAt)
  const pad = plain[size - 1] as number
  let bad = pad === 0 || pad > BLOCK ? 1 : 0
  for (let i = size - pad; i < size && bad === 0; i++) if (plain[i] !== pad) bad = 1
  if (bad) throw new CbcDecryptionFailed()
  return plain.subarray(0, size - pad)
}

/** A token whose tag is right but whose ciphertext does not decrypt (the caller maps it to jose's error). */
export class CbcDecryptionFailed extends Error {
  constructor() {
    super("ciphertext does not decrypt")
    this.name = "CbcDecryptionFailed"
  }
}
