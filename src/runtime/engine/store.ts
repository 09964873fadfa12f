/**
 * The flow store port: where a resting flow's snapshot waits for the next request. The default keeps
 * it in one sealed cookie per in-flight flow (nothing to run); a Redis store plugs into the same port.
 */
import { randomBytes } from "../crypto/random.js"
import { FlowStateError } from "../../errors.js"
import { clearChunked, readChunked, writeChunked } from "../http/cookies.js"
import { decryptJwt, encryptJson } from "../crypto/sealed.js"
import { type ServerState, stateKey } from "../limits/server-state.js"
import { extended } from "../config/plain-object.js"
import type { FlowEnvelope, FlowStoreIO, FlowStore } from "../../types/flow-store.js"
export type { FlowEnvelope, FlowStoreIO, FlowStore }

export const ENVELOPE_VERSION = 1

function isEnvelope(value: Record<string, unknown>): value is Record<string, unknown> & FlowEnvelope {
  return (
    value.v === ENVELOPE_VERSION &&
    typeof value.flow === "string" &&
    typeof value.flowId === "string" &&
    typeof value.provider === "string" &&
    typeof value.version === "string" &&
    typeof value.exp === "number" &&
    (value.nonce === undefined || typeof value.nonce === "string") &&
    (value.callbackUrl === undefined || typeof value.callbackUrl === "string") &&
    "snapshot" in value
  )
}

/** A fresh per-save nonce (128 bits). */
export const envelopeNonce = (): string => randomBytes(16).toString("base64url")

/**
 * Makes a persisted snapshot single use, whatever store kept it: resuming claims (flow id, nonce) in the
 * server-state port for the flow's remaining lifetime; a second resume of the same snapshot (a kept or
 * copied flow cookie, a replayed callback) is `FlowStateError`. Each save has a fresh nonce, so a flow
 * that rests again is resumable once more, under its new cookie only.
 */
export async function claimEnvelope(envelope: FlowEnvelope, state: ServerState, now: number): Promise<void> {
  const key = stateKey("flow", envelope.flowId, envelope.nonce ?? "")
  if (!(await state.claim(key, envelope.exp * 1000 - now))) {
    throw new FlowStateError("This sign-in state was already used (a replayed flow cookie or callback).")
  }
}

/** Seals an envelope as a JWE whose key is derived from the newest secret and the cookie name. */
export async function sealEnvelope(envelope: FlowEnvelope, secrets: readonly string[], salt: string): Promise<string> {
  const [newest] = secrets
  if (!newest) throw new FlowStateError("No secret to seal the flow state with.")
  return encryptJson(envelope, newest, salt)
}

/** Opens a sealed envelope; any secret of the list may have sealed it. Throws `FlowStateError`. */
export async function unsealEnvelope(sealed: string, secrets: readonly string[], salt: string): Promise<FlowEnvelope> {
  let payload: Record<string, unknown>
  try {
    payload = await decryptJwt(sealed, secrets, salt)
  } catch (err) {
    throw unreadable(err)
  }
  return envelopeOf(payload)
}

const unreadable = (err: unknown) => new FlowStateError("The sign-in state could not be read (expired or tampered).", { err })

function envelopeOf(payload: Record<string, unknown>): FlowEnvelope {
  if (!isEnvelope(payload)) throw new FlowStateError("The sign-in state has an unknown format.")
  return payload
}

/**
 * The default store: the sealed envelope lives in the flow's own cookie (chunked when large), with a
 * `Max-Age` equal to the envelope's remaining lifetime.
 */
export function cookieFlowStore(): FlowStore {
  return {
    async load(io) {
      const sealed = readChunked(io.cookies, io.cookieName)
      if (!sealed) return null
      return unsealEnvelope(sealed, io.secrets, io.cookieName)
    },
    async save(envelope, io) {
      const maxAge = Math.max(0, envelope.exp - Math.floor(io.now / 1000))
      const sealed = await sealEnvelope(envelope, io.secrets, io.cookieName)
      return writeChunked(io.cookies, io.cookieName, sealed, extended(io.cookieOptions, { maxAge }))
    },
    async clear(io) {
      return clearChunked(io.cookies, io.cookieName, io.cookieOptions)
    },
  }
}
