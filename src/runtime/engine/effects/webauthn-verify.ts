/**
 * The two checks of a passkey response, once its challenge is claimed (webauthn.ts): a sign-in's
 * assertion against the stored credential, and a registration, both by `@simplewebauthn/server`
 * (`verifyAuthenticationResponse`, `verifyRegistrationResponse`). A failed check is
 * `WebAuthnVerificationError`, the library's reason in the error's cause. What is stored and read is
 * Auth.js' `Authenticator` row: ids and public key in standard base64, transports comma-separated.
 */
import { AuthError, WebAuthnVerificationError } from "../../../errors.js"
import type { FlowUser, Identity } from "../../../machines/types.js"
import type { FlowServices } from "../../../types/flow.js"
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

/**
 * Checks an authentication response; `allowedUser` is the user whose passkeys the options listed
 * (`allowCredentials`, WebAuthn §7.2 step 5), null when they listed none (a discoverable credential).
 */
export async function authenticate(
  services: FlowServices,
  response: ResponseData,
  challenge: string,
  allowedUser: FlowUser | null,
): Promise<Identity> {
  const provider = providerOf(services)
  const adapter = requireAdapter(services)
  const credentialID = toStoredId(response.id)
  const authenticator = await adapter.getAuthenticator(credentialID)
  if (!authenticator) throw new AuthError("WebAuthn authenticator not found.", { credentialID })
  if (allowedUser?.id !== undefined && authenticator.userId !== allowedUser.id) {
    throw new WebAuthnVerificationError("The passkey is not one the sign-in options listed.", { credentialID })
  }
  const rp = relyingParty(services, provider)
  const reply = assertShape(response, isAuthenticationResponse)
  const lib = await simpleWebAuthn()
  let verification: { verified: boolean; newCounter: number }
  try {
    const checked = await lib.verifyAuthenticationResponse({
      ...provider.verifyAuthenticationOptions,
      requireUserVerification: requireUserVerification(
        provider.verifyAuthenticationOptions?.requireUserVerification,
        provider.authenticationOptions?.userVerification,
      ),
      response: reply,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      credential: {
        id: toJsonId(authenticator.credentialID),
        publicKey: new Uint8Array(Buffer.from(authenticator.credentialPublicKey, "base64")),
        counter: authenticator.counter,
        transports: transportList(authenticator.transports),
      },
    })
    verification = { verified: checked.verified, newCounter: checked.authenticationInfo.newCounter }
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

/** Checks a registration response for `user` (the user the options were issued for). */
export async function register(
  services: FlowServices,
  response: ResponseData,
  challenge: string,
  user: FlowUser | null,
): Promise<Identity> {
  const provider = providerOf(services)
  const adapter = requireAdapter(services)
  if (!user?.email) throw new AuthError("Missing user registration data.")
  const rp = relyingParty(services, provider)
  const reply = assertShape(response, isRegistrationResponse)
  const lib = await simpleWebAuthn()
  let checked: Awaited<ReturnType<typeof lib.verifyRegistrationResponse>>
  try {
    checked = await lib.verifyRegistrationResponse({
      ...provider.verifyRegistrationOptions,
      requireUserVerification: requireUserVerification(
        provider.verifyRegistrationOptions?.requireUserVerification,
        provider.registrationOptions?.authenticatorSelection?.userVerification,
      ),
      response: reply,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
    })
  } catch (err) {
    throw new WebAuthnVerificationError("The passkey registration could not be verified.", { err })
  }
  if (!checked.verified) throw new WebAuthnVerificationError("The passkey registration could not be verified.")
  const { credential, credentialBackedUp, credentialDeviceType } = checked.registrationInfo
  const credentialID = toStoredId(credential.id)
  if (await adapter.getAuthenticator(credentialID)) {
    throw new WebAuthnVerificationError("This passkey is already registered.", { credentialID })
  }
  const transports = reply.response.transports ?? credential.transports
  return {
    user,
    account: { providerAccountId: credentialID, provider: provider.id, type: "webauthn" },
    authenticator: {
      credentialID,
      providerAccountId: credentialID,
      credentialPublicKey: Buffer.from(credential.publicKey).toString("base64"),
      counter: credential.counter,
      credentialBackedUp,
      credentialDeviceType,
      transports: transports && transports.length > 0 ? transports.join(",") : null,
    },
  }
}
