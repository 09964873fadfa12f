/**
 * The credentials flow's one effect: the provider's `authorize`.
 */
import { effect } from "./effect.js"
import { randomUUID } from "node:crypto"
import { AuthError, CallbackRouteError, CredentialsSignin } from "../../errors.js"
import type { Identity } from "../../machines/types.js"
import type { CredentialsConfig } from "../../types.js"
import { userRequestFor } from "../context.js"
import { providerConfig } from "../provider-config.js"

/**
 * Runs `authorize(credentials, request)`. `null` is a wrong login (`CredentialsSignin`); a thrown
 * `AuthError` (such as a `CredentialsSignin` with its own `code`) is kept; any other throw is a server
 * problem (`CallbackRouteError` → `error=Configuration`), logged with its cause.
 */
export const authorize = effect<Identity, { params: Record<string, unknown> }>(async (ctx, input) => {
  const provider = providerConfig(ctx, "credentials")
  let user: Awaited<ReturnType<CredentialsConfig["authorize"]>>
  try {
    user = await provider.authorize(input.params, userRequestFor(provider.authorize, 1, ctx.req))
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
