/**
 * The two checks of a passkey response, once its challenge is claimed (webauthn.ts): a sign-in's
 * assertion against the stored credential, and a registration. Both go through node:crypto for the
 * common cases (webauthn-assertion.ts, webauthn-registration.ts) and through `@simplewebauthn/server`
 * for every other one; a failed check is `WebAuthnVerificationError`, its reason in the error's cause.
 */
import { AuthError, WebAuthnVerificationError } from "../../errors.js"
import type { FlowUser, Identity } from "../../machines/types.js"
import type { WebAuthnConfig } from "../../providers/webauthn-types.js"
import type { EffectContext } from "../flow.js"
import { handlesOptions, verifyAssertion } from "./webauthn-assertion.js"
import {
  type RegistrationExpectation,
  type RegistrationRules,
  type VerifiedRegistration,
  registrationRules,
  verifyRegistration,
} from "./webauthn-registration.js"
import { assertShape, isAuthenticationResponse, isRegistrationResponse, type ResponseData } from "./webauthn-response.js"
import {
  providerOf,
  relyingParty,
  requireAdapter,
  requireUserVerification,
  simpleWebAuthn,
  toJsonId,
  toStoredId,
  transportList,
} from "./webauthn-support.js"

/** What a provider's options decide for every response, worked out on its first one. */
interface VerifyPlan {
  /** User verification is checked in a sign-in's response. */
  readonly uvAuthenticate: boolean
  /** User verification is checked in a registration's response. */
  readonly uvRegister: boolean
  /** node:crypto's path may check sign-ins (the provider gives no option it does not honour). */
  readonly assertion: boolean
  /** node:crypto's path's rules for registrations, or undefined: the library checks them. */
  readonly registration: RegistrationRules | undefined
}
const plans = new WeakMap<WebAuthnConfig, VerifyPlan>()

function planOf(provider: WebAuthnConfig): VerifyPlan {
  let plan = plans.get(provider)
  if (!plan) {
    plan = {
      uvAuthenticate: requireUserVerification(
        provider.verifyAuthenticationOptions?.requireUserVerification,
        provider.authenticationOptions?.userVerification,
      ),
      uvRegister: requireUserVerification(
        provider.verifyRegistrationOptions?.requireUserVerification,
        provider.registrationOptions?.authenticatorSelection?.userVerification,
      ),
      assertion: handlesOptions(provider.verifyAuthenticationOptions),
      registration: registrationRules(provider.verifyRegistrationOptions),
    }
    plans.set(provider, plan)
  }
  return plan
}

/**
 * Checks an authentication response; `allowedUser` is the user whose passkeys the options listed
 * (`allowCredentials`, WebAuthn §7.2 step 5), null when they listed none (a discoverable credential).
 */
export async function authenticate(
  ctx: EffectContext,
  response: ResponseData,
  challenge: string,
  allowedUser: FlowUser | null,
): Promise<Identity> {
  const provider = providerOf(ctx)
  const adapter = requireAdapter(ctx)
  const credentialID = toStoredId(response.id)
  const authenticator = await adapter.getAuthenticator(credentialID)
  if (!authenticator) throw new AuthError("WebAuthn authenticator not found.", { credentialID })
  if (allowedUser?.id !== undefined && authenticator.userId !== allowedUser.id) {
    throw new WebAuthnVerificationError("The passkey is not one the sign-in options listed.", { credentialID })
  }
  const rp = relyingParty(ctx, provider)
  const reply = assertShape(response, isAuthenticationResponse)
  const plan = planOf(provider)
  const requireUV = plan.uvAuthenticate
  let verification: { verified: boolean; newCounter: number } | undefined
  try {
    // node:crypto for the keys it handles (webauthn-assertion.ts), the library for any other
    if (plan.assertion) {
      const expected = { challenge, origin: rp.origin, rpId: rp.id, requireUserVerification: requireUV }
      verification = verifyAssertion(reply, expected, { publicKey: authenticator.credentialPublicKey, counter: authenticator.counter })
    }
    if (!verification) {
      const lib = await simpleWebAuthn()
      const checked = await lib.verifyAuthenticationResponse({
        ...provider.verifyAuthenticationOptions,
        requireUserVerification: requireUV,
        response: reply,
        expectedChallenge: challenge,
        expectedOrigin: rp.origin,
        expectedRPID: rp.id,
        credential: {
          id: toJsonId(authenticator.credentialID),
          publicKey: new Uint8Array(Buffer.from(authenticator.credentialPublicKey, "base64")),
          counter: authenticator.counter,
          ...(authenticator.transports ? { transports: transportList(authenticator.transports) } : {}),
        },
      })
      verification = { verified: checked.verified, newCounter: checked.authenticationInfo.newCounter }
    }
  } catch (err) {
    throw new WebAuthnVerificationError("The passkey response could not be verified.", { err, credentialID })
  }
  if (!verification.verified) throw new WebAuthnVerificationError("The passkey response could not be verified.")
  await adapter.updateAuthenticatorCounter(authenticator.credentialID, verification.newCounter)
  const account = await adapter.getAccount(authenticator.providerAccountId, provider.id)
  if (!account) throw new AuthError("WebAuthn account not found.", { credentialID })
  const user = await adapter.getUser(account.userId)
  if (!user) throw new AuthError("WebAuthn user not found.", { credentialID })
  return { user: { ...user }, account: { ...account } }
}

/** A registration response checked by node:crypto when it can (webauthn-registration.ts), else by the library. */
async function verifiedRegistration(
  provider: WebAuthnConfig,
  reply: Parameters<typeof verifyRegistration>[0],
  expected: { challenge: string; origin: string; rpId: string; requireUserVerification: boolean },
): Promise<VerifiedRegistration | null> {
  const rules = planOf(provider).registration
  if (rules) {
    const fast: RegistrationExpectation = {
      challenge: expected.challenge,
      origin: expected.origin,
      rpId: expected.rpId,
      requireUserVerification: expected.requireUserVerification,
      requireUserPresence: rules.requireUserPresence,
      supportedAlgorithmIDs: rules.supportedAlgorithmIDs,
    }
    const verified = verifyRegistration(reply, fast)
    if (verified) return verified
  }
  const lib = await simpleWebAuthn()
  const checked = await lib.verifyRegistrationResponse({
    ...provider.verifyRegistrationOptions,
    requireUserVerification: expected.requireUserVerification,
    response: reply,
    expectedChallenge: expected.challenge,
    expectedOrigin: expected.origin,
    expectedRPID: expected.rpId,
  })
  return checked.verified ? checked.registrationInfo : null
}

/** Checks a registration response for `user` (the user the options were issued for). */
export async function register(ctx: EffectContext, response: ResponseData, challenge: string, user: FlowUser | null): Promise<Identity> {
  const provider = providerOf(ctx)
  const adapter = requireAdapter(ctx)
  if (!user?.email) throw new AuthError("Missing user registration data.")
  const rp = relyingParty(ctx, provider)
  const reply = assertShape(response, isRegistrationResponse)
  let verification: VerifiedRegistration | null
  try {
    const expected = { challenge, origin: rp.origin, rpId: rp.id, requireUserVerification: planOf(provider).uvRegister }
    verification = await verifiedRegistration(provider, reply, expected)
  } catch (err) {
    throw new WebAuthnVerificationError("The passkey registration could not be verified.", { err })
  }
  if (!verification) throw new WebAuthnVerificationError("The passkey registration could not be verified.")
  const { credential, credentialBackedUp, credentialDeviceType } = verification
  const credentialID = toStoredId(credential.id)
  if (await adapter.getAuthenticator(credentialID)) {
    throw new WebAuthnVerificationError("This passkey is already registered.", { credentialID })
  }
  const transports = reply.response.transports ?? credential.transports
  const { publicKey } = credential
  return {
    user,
    account: { providerAccountId: credentialID, provider: provider.id, type: "webauthn" },
    authenticator: {
      credentialID,
      providerAccountId: credentialID,
      credentialPublicKey: Buffer.from(publicKey.buffer, publicKey.byteOffset, publicKey.byteLength).toString("base64"),
      counter: credential.counter,
      credentialBackedUp,
      credentialDeviceType,
      transports: transports && transports.length > 0 ? transports.join(",") : null,
    },
  }
}
