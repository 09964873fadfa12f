/**
 * The credentials flow's one effect: the provider's `authorize`.
 */
import { effect } from "./effect.js"
import { randomUUID } from "node:crypto"
import { AuthError, CallbackRouteError, CredentialsSignin } from "../../../errors.js"
import type { Identity } from "../../../machines/types.js"
import type { CredentialsConfig } from "../../../types.js"
import { providerConfig } from "../provider-config.js"
import { credentialsAccount } from "../../limits/account-key.js"

/**
 * Runs `authorize(credentials, request)`. `null` is a wrong login (`CredentialsSignin`); a thrown
 * `AuthError` (such as a `CredentialsSignin` with its own `code`) is kept; any other throw is a server
 * problem (`CallbackRouteError` → `error=Configuration`), logged with its cause.
 */
export const authorize = effect<Identity, { params: Record<string, unknown> }>(async (services, input) => {
  const provider = providerConfig(services, "credentials")
  // the account field as the limiter counted it: one that is not a string (a JSON array) is refused here
  try {
    credentialsAccount(provider, input.params)
  } catch (err) {
    throw new CredentialsSignin("The account field of the submission is not a string.", { err })
  }
  let user: Awaited<ReturnType<CredentialsConfig["authorize"]>>
  try {
    // an authorize that declares its request gets a web Request of its own (fetch takes it as Auth.js' does);
    // one that does not gets the stand-in, built only if read
    const request = provider.authorize.length === 1 ? services.request : new Request(services.request)
    user = await provider.authorize(input.params, request)
  } catch (err) {
    if (err instanceof AuthError) throw err
    throw new CallbackRouteError("authorize threw an error.", { err, provider: provider.id })
  }
  if (!user) throw new CredentialsSignin()
  const id = user.id === undefined || user.id === null ? randomUUID() : String(user.id)
  return {
    user: { ...user, id },
    account: { providerAccountId: id, type: "credentials", provider: provider.id },
    credentials: { ...input.params },
  }
})
