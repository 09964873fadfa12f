/**
 * The browser's WebAuthn response as the verify request carries it (the `data` field, JSON): parsed, and
 * checked for the fields of an authentication or a registration credential before anything verifies it.
 */
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from "@simplewebauthn/server"
import { AuthError, WebAuthnVerificationError } from "../../../errors.js"

/** Whether parsed JSON is an object (not an array, not null): JSON makes no other kind of object. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

/** The browser's response as JSON, with a string `id`. */
export type ResponseData = Record<string, unknown> & { id: string }

/** Whether parsed JSON is an object with a string `id`. */
const hasStringId = (value: unknown): value is ResponseData => isPlainObject(value) && typeof value.id === "string"

/** The `data` field: the browser's response as JSON (the parsed object itself), with a string `id`. */
export function parseResponse(data: unknown): ResponseData {
  let parsed: unknown
  try {
    parsed = typeof data === "string" ? JSON.parse(data) : undefined
  } catch {
    parsed = undefined
  }
  if (!hasStringId(parsed)) throw new AuthError("Invalid WebAuthn response.")
  return parsed
}

/** Whether a response has the fields of a credential's JSON (what `@simplewebauthn/server` then checks in depth). */
function isCredentialJson(value: Record<string, unknown>, fields: readonly string[]): boolean {
  const { response } = value
  return (
    typeof value.rawId === "string" &&
    value.type === "public-key" &&
    isPlainObject(value.clientExtensionResults) &&
    isPlainObject(response) &&
    fields.every((field) => typeof response[field] === "string")
  )
}

export function isAuthenticationResponse(value: ResponseData): value is ResponseData & AuthenticationResponseJSON {
  return isCredentialJson(value, ["clientDataJSON", "authenticatorData", "signature"])
}

export function isRegistrationResponse(value: ResponseData): value is ResponseData & RegistrationResponseJSON {
  return isCredentialJson(value, ["clientDataJSON", "attestationObject"])
}

/** The response when it has the expected shape; otherwise the verification fails as the library's would. */
export function assertShape<T>(response: ResponseData, is: (value: ResponseData) => value is ResponseData & T): T {
  if (is(response)) return response
  throw new WebAuthnVerificationError("The passkey response could not be verified.", { credentialID: response.id })
}
