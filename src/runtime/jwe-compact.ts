/**
 * The compact JWE serialization as `jose.jwtDecrypt` reads it, for jwe.ts' fast path: each part checked
 * in jose's order with jose's errors (a part jose's forgiving decoder might still take, or a header with
 * members beyond `alg`, `enc` and `kid`, is left to jose: {@link NeedsSlowPath}), and what a protected
 * header says kept per encoded header.
 */
import * as errors from "jose/errors"
import type { ContentEncryption } from "./jwe-keys.js"
import { KeptAnswers } from "./kept.js"

/** Thrown by `decryptJwt` (jwe.ts) for a well-formed token only `jose` can judge; use `decryptJwtAsync`. */
export class NeedsSlowPath extends Error {
  constructor() {
    super("token needs the jose slow path")
    this.name = "NeedsSlowPath"
  }
}

/** RFC 7518 §5.2.2.1: AL is the bit length of the AAD as a 64-bit big-endian integer. */
export function aadLength(aad: Buffer): Buffer {
  const al = Buffer.alloc(8)
  al.writeBigUInt64BE(BigInt(aad.length) * 8n)
  return al
}

const CANONICAL_B64URL = /^[A-Za-z0-9_-]*$/
/** Five parts, each of the base64url alphabet only: one pass where most tokens need no per-part check. */
export const CANONICAL_TOKEN = /^[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]*$/
/** Characters jose's forgiving decoder may still accept (padding, ASCII whitespace). */
const FORGIVEN_B64URL = /^[A-Za-z0-9_\-=\t\n\f\r ]*$/
export const strictUtf8 = new TextDecoder("utf-8", { fatal: true })
const FAST_HEADER_MEMBERS: ReadonlySet<string> = new Set(["alg", "enc", "kid"])

export function invalid(message: string, cause?: unknown): never {
  throw new errors.JWEInvalid(message, cause === undefined ? undefined : { cause })
}

/** Throws as jose's decoder would for a part that is not canonical base64url (or leaves it to jose). */
export function checkPart(part: string, label: string): void {
  if (!CANONICAL_B64URL.test(part)) {
    if (FORGIVEN_B64URL.test(part)) throw new NeedsSlowPath()
    invalid(`Failed to base64url decode the ${label}`)
  }
  checkLength(part, label)
}

/** {@link checkPart} for a part known to be of the base64url alphabet: no length leaves one character over. */
export function checkLength(part: string, label: string): void {
  if (part.length % 4 === 1) invalid(`Failed to base64url decode the ${label}`)
}

export function decodePart(part: string, label: string): Buffer {
  checkPart(part, label)
  return Buffer.from(part, "base64url")
}

/** A token's last three parts, checked canonical base64url, still encoded. */
export interface SealedParts {
  readonly iv: string
  readonly ciphertext: string
  readonly tag: string
}

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

interface FastHeader {
  enc: ContentEncryption
  kid: string | undefined
}

function parseFastHeader(bytes: Buffer): FastHeader {
  let header: unknown
  try {
    header = JSON.parse(strictUtf8.decode(bytes))
  } catch (cause) {
    invalid("JWE Protected Header is invalid", cause)
  }
  if (!isJsonObject(header)) invalid("JWE Protected Header is invalid")
  const { alg, enc, kid } = header
  const fast =
    Object.keys(header).every((member) => FAST_HEADER_MEMBERS.has(member)) &&
    alg === "dir" &&
    (enc === "A256CBC-HS512" || enc === "A256GCM") &&
    (kid === undefined || typeof kid === "string")
  if (!fast) throw new NeedsSlowPath()
  return { enc: enc as ContentEncryption, kid: kid as string | undefined }
}

/**
 * What opening reads off a protected header, kept per encoded header: every token of one key carries the
 * same header, so it is decoded, parsed and checked once (at most 64 headers). Only headers the fast
 * path takes are kept.
 */
export interface OpenedHeader extends FastHeader {
  /** The header's bytes as the AAD, and their bit length (AL) for the CBC tag. */
  readonly aad: Buffer
  readonly al: Buffer
}

const openedHeaders = new KeptAnswers<OpenedHeader>(64)
export const NO_BYTES = Buffer.alloc(0)

export function openedHeader(encodedHeader: string, bytes: Buffer): OpenedHeader {
  const { enc, kid } = parseFastHeader(bytes)
  const aad = Buffer.from(encodedHeader, "latin1")
  const header: OpenedHeader = { enc, kid, aad, al: aadLength(aad) }
  return openedHeaders.keep(encodedHeader, header)
}

/** How many headers `decryptJwt` keeps (for tests: the bound holds). */
export const keptHeaders = (): number => openedHeaders.size

/** The header kept for `encodedHeader`, if it was opened before. */
export const keptHeader = (encodedHeader: string): OpenedHeader | undefined => openedHeaders.get(encodedHeader)
