/**
 * The options JSON a passkey ceremony sends the browser, built synchronously as `@simplewebauthn/server`'s
 * `generateRegistrationOptions` and `generateAuthenticationOptions` build it: the same input, the same
 * defaults, the same fields in the same order, the same refusals of a credential id that is not
 * base64url (tests/webauthn-unit.test.ts holds the two side by side).
 *
 * Why not the library's functions: the options are plain JSON, and they cost about a tenth of an options
 * request in process (each is async and awaited, encodes the challenge and user handle with a
 * byte-by-byte JavaScript base64 encoder, and writes its `residentKey`/`requireResidentKey` decision
 * into the `authenticatorSelection` object it is given: the provider's own, shared by every request).
 * Here the encoding is Node's, and the selection is a copy. The default algorithms still come from the
 * library (`getDefaultSupportedAlgorithmIDs`: what it offers depends on the runtime).
 *
 * A request does not run these functions: most of the options are the same for every request of a
 * provider and relying party, so they are made once, by the functions themselves, into a frozen
 * template (`registrationTemplate`, `authenticationTemplate`), and a request puts its challenge, user
 * and credentials into a copy of the template's shape (`registrationFrom`, `authenticationFrom`): the
 * same JSON, field for field and in order (the tests hold both beside the library's).
 */
import { isBase64Url } from "./webauthn-client-data.js"

/** A credential the options name (allowed or excluded): its id in base64url, and how it is reached. */
export interface CredentialDescriptor {
  id: string
  transports?: string[] | undefined
}

/** The library's `authenticatorSelection` (WebAuthn's AuthenticatorSelectionCriteria). */
interface Selection {
  authenticatorAttachment?: string | undefined
  residentKey?: string | undefined
  requireResidentKey?: boolean | undefined
  userVerification?: string | undefined
}

/** The input of a sign-in's options: `generateAuthenticationOptions`' with the challenge's bytes given. */
export interface AuthenticationInput {
  rpID: string
  challenge: Uint8Array
  allowCredentials?: readonly CredentialDescriptor[] | undefined
  timeout?: number | undefined
  userVerification?: string | undefined
  extensions?: Record<string, unknown> | undefined
}

/** The input of a registration's options: `generateRegistrationOptions`' with challenge and user handle given. */
export interface RegistrationInput {
  rpName: string
  rpID: string
  userName: string
  userID: Uint8Array
  challenge: Uint8Array
  userDisplayName?: string | undefined
  timeout?: number | undefined
  attestationType?: string | undefined
  excludeCredentials?: readonly CredentialDescriptor[] | undefined
  authenticatorSelection?: Selection | undefined
  extensions?: Record<string, unknown> | undefined
  supportedAlgorithmIDs?: readonly number[] | undefined
  preferredAuthenticatorType?: string | undefined
}

/** The library's default timeout (ms) when the input gives none. */
const DEFAULT_TIMEOUT = 60_000
/** The library's default `authenticatorSelection`. */
const DEFAULT_SELECTION: Readonly<Selection> = { residentKey: "preferred", userVerification: "preferred" }
/** `preferredAuthenticatorType` → the hint and the attachment the library sets for it. */
const PREFERRED: ReadonlyMap<string, readonly [hint: string, attachment: string]> = new Map([
  ["securityKey", ["security-key", "cross-platform"]],
  ["localDevice", ["client-device", "platform"]],
  ["remoteDevice", ["hybrid", "cross-platform"]],
])

/** A default as the library's destructuring applies it: for `undefined` only. */
const or = <T>(value: T | undefined, fallback: T): T => (value === undefined ? fallback : value)

const base64url = (bytes: Uint8Array): string => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64url")

/** The descriptors as the library writes them: the id checked, its padding trimmed, `type` added. */
function descriptors(list: readonly CredentialDescriptor[], label: string): { id: string; type: "public-key" }[] {
  return list.map((credential) => {
    if (!isBase64Url(credential.id)) throw new Error(`${label} id "${credential.id}" is not a valid base64url string`)
    return { ...credential, id: credential.id.replace(/=/g, ""), type: "public-key" }
  })
}

/** A sign-in's options (`PublicKeyCredentialRequestOptionsJSON`), as `generateAuthenticationOptions` makes them. */
export function authenticationOptions(input: AuthenticationInput) {
  return {
    rpId: input.rpID,
    challenge: base64url(input.challenge),
    allowCredentials: input.allowCredentials ? descriptors(input.allowCredentials, "allowCredential") : undefined,
    timeout: or(input.timeout, DEFAULT_TIMEOUT),
    userVerification: or(input.userVerification, "preferred"),
    extensions: input.extensions,
  }
}

/**
 * A registration's options (`PublicKeyCredentialCreationOptionsJSON`), as `generateRegistrationOptions`
 * makes them; `defaultAlgorithms` are the library's, used when the input names none.
 */
export function registrationOptions(input: RegistrationInput, defaultAlgorithms: readonly number[]) {
  const selection: Selection = { ...or(input.authenticatorSelection, DEFAULT_SELECTION) }
  if (selection.residentKey === undefined) {
    if (selection.requireResidentKey) selection.residentKey = "required"
  } else {
    selection.requireResidentKey = selection.residentKey === "required"
  }
  const hints: string[] = []
  const preferred = input.preferredAuthenticatorType ? PREFERRED.get(input.preferredAuthenticatorType) : undefined
  if (preferred) {
    hints.push(preferred[0])
    selection.authenticatorAttachment = preferred[1]
  }
  return {
    challenge: base64url(input.challenge),
    rp: { name: input.rpName, id: input.rpID },
    user: { id: base64url(input.userID), name: input.userName, displayName: or(input.userDisplayName, "") },
    pubKeyCredParams: or(input.supportedAlgorithmIDs, defaultAlgorithms).map((alg): { alg: number; type: "public-key" } => ({
      alg,
      type: "public-key",
    })),
    timeout: or(input.timeout, DEFAULT_TIMEOUT),
    attestation: or(input.attestationType, "none"),
    excludeCredentials: descriptors(or(input.excludeCredentials, []), "excludeCredential"),
    authenticatorSelection: selection,
    extensions: { ...input.extensions, credProps: true },
    hints,
  }
}

/** Freezes an options object and every object and array in it (a template shared by every request). */
function deepFreeze<T>(value: T): T {
  if (typeof value === "object" && value !== null && !Object.isFrozen(value)) {
    for (const item of Object.values(value)) deepFreeze(item)
    Object.freeze(value)
  }
  return value
}

const NO_BYTES = new Uint8Array(0)

/** A sign-in's options as JSON. */
export type AuthenticationOptionsJSON = ReturnType<typeof authenticationOptions>
/** A registration's options as JSON. */
export type RegistrationOptionsJSON = ReturnType<typeof registrationOptions>

/**
 * The part of a sign-in's options that is the same for every request: `authenticationOptions` of the
 * input without a challenge, frozen. Its `allowCredentials` are the input's, used when a request names none.
 */
export function authenticationTemplate(input: Omit<AuthenticationInput, "challenge">): Readonly<AuthenticationOptionsJSON> {
  return deepFreeze(authenticationOptions({ ...input, challenge: NO_BYTES }))
}

/**
 * A request's sign-in options: the template with its challenge (base64url) and, when it names any, the
 * credentials allowed (ids already base64url without padding, as `toJsonId` writes them).
 */
export function authenticationFrom(
  template: Readonly<AuthenticationOptionsJSON>,
  challenge: string,
  allowCredentials: { id: string; transports?: string[] | undefined; type: "public-key" }[],
): AuthenticationOptionsJSON {
  return {
    rpId: template.rpId,
    challenge,
    allowCredentials: allowCredentials.length > 0 ? allowCredentials : template.allowCredentials,
    timeout: template.timeout,
    userVerification: template.userVerification,
    extensions: template.extensions,
  }
}

/**
 * The part of a registration's options that is the same for every request: `registrationOptions` of
 * the input without challenge, user handle, user name and excluded credentials, frozen.
 */
export function registrationTemplate(
  input: Omit<RegistrationInput, "challenge" | "userID" | "userName" | "excludeCredentials">,
  defaultAlgorithms: readonly number[],
): Readonly<RegistrationOptionsJSON> {
  const full = { ...input, challenge: NO_BYTES, userID: NO_BYTES, userName: "", excludeCredentials: [] }
  return deepFreeze(registrationOptions(full, defaultAlgorithms))
}

/**
 * A request's registration options: the template with its challenge and user handle (base64url), user
 * name, display name (the template's when none is given, as the input's default) and the credentials
 * to exclude (ids already base64url without padding, as `toJsonId` writes them).
 */
export function registrationFrom(
  template: Readonly<RegistrationOptionsJSON>,
  challenge: string,
  user: { id: string; name: string; displayName: string | undefined },
  excludeCredentials: { id: string; transports?: string[] | undefined; type: "public-key" }[],
): RegistrationOptionsJSON {
  return {
    challenge,
    rp: template.rp,
    user: { id: user.id, name: user.name, displayName: user.displayName || template.user.displayName },
    pubKeyCredParams: template.pubKeyCredParams,
    timeout: template.timeout,
    attestation: template.attestation,
    excludeCredentials,
    authenticatorSelection: template.authenticatorSelection,
    extensions: template.extensions,
    hints: template.hints,
  }
}
