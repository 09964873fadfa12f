/**
 * The WebAuthn flow's effects, with `@simplewebauthn/server`, following Auth.js' passkey provider.
 *
 * `webauthnOptions`: who is asking (the signed-in user, else `getUserInfo` from the form fields), then
 * Auth.js' decision between register and authenticate, then the options with a fresh challenge, made by
 * the library (`generateAuthenticationOptions`, `generateRegistrationOptions`) as Auth.js makes them. Bad
 * input is refused with a reason (`Invalid action`, `Missing email`, `Invalid email`, `Invalid request`),
 * and where the person can act on it a `message` saying what happened and what to do (registering,
 * signed out, with an existing account's email, logged as `AccountNotLinked`; signing in with an email
 * that has no passkey).
 *
 * `webauthnVerify`: the response must answer the options issued (same ceremony, their challenge, once),
 * come from the relying party's origin for its RP ID, and verify user presence (and user verification
 * per provider). Authentication also needs a known credential, of the user whose passkeys the options
 * listed when they listed any, whose signature counter moves forward (the counter is updated).
 * Registration refuses a credential already stored. The library checks both (webauthn-verify.ts).
 */
import { AccountNotLinked, AuthError, FlowStateError, WebAuthnVerificationError } from "../../../errors.js"
import type { FlowUser, Identity } from "../../../machines/types.js"
import type { WebAuthnOptionsResult, WebAuthnPending } from "../../../machines/webauthn.js"
import type { WebAuthnUserInfo } from "../../../providers/webauthn-types.js"
import type { FlowServices, RequestServices } from "../../../types/flow.js"
import { effect } from "./effect.js"
import { text } from "../../../flow/index.js"
import { emailAccount } from "../../limits/account-key.js"
import { consumeChallenge, providerOf, relyingParty, requireAdapter, simpleWebAuthn, toJsonId, transportList } from "./webauthn-support.js"
import { parseResponse } from "./webauthn-response.js"
import { authenticate, register } from "./webauthn-verify.js"

/** The adapter as the services hand it: every call wrapped. */
type ServicesAdapter = NonNullable<RequestServices["adapter"]>

export type WebAuthnAction = "register" | "authenticate"

/**
 * Auth.js' `inferWebAuthnOptions`: `authenticate` always; `register` for a known signed-in user or a new
 * one signed out; no action: signed out, a new user registers and anyone else authenticates.
 */
export function decideCeremony(
  action: WebAuthnAction | undefined,
  signedIn: boolean,
  info: WebAuthnUserInfo | null,
): WebAuthnAction | null {
  const exists = info?.exists ?? false
  if (action === "authenticate") return "authenticate"
  if (action === "register") return info && signedIn === exists ? "register" : null
  if (signedIn) return null
  return info && !exists ? "register" : "authenticate"
}

/** The default `getUserInfo`: the `email` field (normalised like email sign-in), looked up by email. */
async function defaultUserInfo(adapter: ServicesAdapter, given: string | undefined): Promise<WebAuthnUserInfo | null> {
  let email: string
  try {
    email = emailAccount({}, { email: given })
  } catch {
    return null
  }
  const user = await adapter.getUserByEmail(email)
  return user ? { user, exists: true } : { user: { email }, exists: false }
}

/** The options request as a web `Request` for `getUserInfo` (its headers and URL; a GET has no body). */
function userRequest(services: FlowServices): Request {
  return new Request(services.url, { method: "GET", headers: services.request.headers })
}

/** The user a registration is for, as the flow keeps it until the response arrives. */
const pendingUser = (user: WebAuthnUserInfo["user"]): FlowUser => ({ ...user })

function stringParams(params: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).filter((e): e is [string, string] => typeof e[1] === "string"))
}

/** Issues the options of the decided ceremony (with a fresh challenge), or refuses the request. */
export const webauthnOptions = effect<WebAuthnOptionsResult, { params: Record<string, unknown> }>(async (services, input) => {
  const provider = providerOf(services)
  const adapter = requireAdapter(services)
  const action = input.params.action
  if (action !== undefined && action !== "register" && action !== "authenticate") return { refused: "Invalid action" }
  const signedIn = await services.currentUser()
  const givenEmail = typeof input.params.email === "string" ? input.params.email : undefined
  const custom = provider.getUserInfo
  const appAdapter = services.configuredAdapter
  const info: WebAuthnUserInfo | null = signedIn
    ? { user: signedIn, exists: true }
    : custom && appAdapter
      ? await custom({ params: stringParams(input.params), adapter: appAdapter, request: userRequest(services) })
      : await defaultUserInfo(adapter, givenEmail)
  const decision = decideCeremony(action, signedIn !== null, info)
  const email = info?.user.email
  if (action === "register" && !email) return { refused: givenEmail ? "Invalid email" : "Missing email" }
  if (!decision && action === "register" && !signedIn && info?.exists) {
    services.logger.error(
      new AccountNotLinked("A signed-out passkey registration named the email of an existing account.", { provider: provider.id }),
    )
    // what happened and what to do, in the request's language
    return { refused: "Invalid request", message: text(services.language, "webauthn.accountExists") }
  }
  if (!decision) return { refused: "Invalid request" }

  const lib = await simpleWebAuthn()
  const rp = relyingParty(services, provider)
  const userId = info && "id" in info.user ? info.user.id : undefined
  const known = userId ? await adapter.listAuthenticatorsByUserId(userId) : []
  // an email typed for sign-in that has no passkey: say so rather than let the browser find none
  if (decision === "authenticate" && !signedIn && givenEmail && known.length === 0) {
    return { refused: "Invalid request", message: text(services.language, "webauthn.noPasskey") }
  }
  // ids as stored (standard base64) in base64url, as the options want them
  const credentials = known.map((a) => ({ id: toJsonId(a.credentialID), transports: transportList(a.transports) }))
  if (decision === "authenticate") {
    const options = await lib.generateAuthenticationOptions({
      ...provider.authenticationOptions,
      rpID: rp.id,
      ...(credentials.length > 0 ? { allowCredentials: credentials } : {}),
    })
    // the options named the user's passkeys (allowCredentials): the response must come from one of them
    const user = credentials.length > 0 && userId ? { id: userId } : null
    return { options: { action: "authenticate", options }, pending: { action: "authenticate", challenge: options.challenge, user } }
  }
  if (!email) return { refused: "Missing email" }
  const given = provider.registrationOptions
  const options = await lib.generateRegistrationOptions({
    ...given,
    // the library writes its resident-key decision into the selection it is given: a copy, not the provider's
    ...(given?.authenticatorSelection ? { authenticatorSelection: { ...given.authenticatorSelection } } : {}),
    rpID: rp.id,
    rpName: rp.name,
    userName: email,
    ...(info?.user.name ? { userDisplayName: info.user.name } : {}),
    excludeCredentials: credentials,
  })
  const user = pendingUser(info?.user ?? {})
  return { options: { action: "register", options }, pending: { action: "register", challenge: options.challenge, user } }
})

interface VerifyInput {
  params: Record<string, unknown>
  pending: WebAuthnPending | null
}

/** Verifies the browser's response against the issued options; answers who signed in or registered. */
export const webauthnVerify = effect<Identity, VerifyInput>(async (services, input) => {
  const action = input.params.action
  if (action !== "register" && action !== "authenticate") throw new AuthError("Invalid action parameter.")
  const issued = input.pending
  if (!issued) throw new FlowStateError("No WebAuthn challenge is pending.")
  const response = parseResponse(input.params.data)
  if (action !== issued.action) {
    throw new WebAuthnVerificationError(`A "${action}" response does not answer the "${issued.action}" options issued.`)
  }
  if (!(await consumeChallenge(services, issued.challenge))) throw new WebAuthnVerificationError("This challenge was already answered.")
  return action === "authenticate"
    ? authenticate(services, response, issued.challenge, issued.user)
    : register(services, response, issued.challenge, issued.user)
})
