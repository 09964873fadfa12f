/**
 * The passkey way of a re-authentication: the options of an assertion by one of the signed-in user's
 * own passkeys (`allowCredentials`), and the check of the browser's answer by the passkey flow's own
 * `authenticate` (`@simplewebauthn/server`): the credential must be the user's, and the challenge the
 * one this run issued.
 */
import type { ResolvedProvider } from "../../types/resolved.js"
import type { EffectContext } from "./define-flow.js"
import { authenticate } from "./effects/webauthn-verify.js"
import { parseResponse } from "./effects/webauthn-response.js"
import { relyingParty, simpleWebAuthn, toJsonId, transportList } from "./effects/webauthn-support.js"
import { adapterOf } from "../sessions/adapter.js"
import { flowServices } from "./effects/services.js"
import type { FlowServices } from "../../types/flow.js"

/** The configured passkey provider, if any. */
export function passkeyProvider(ctx: EffectContext): ResolvedProvider | undefined {
  for (const provider of ctx.config.providers.values()) if (provider.config.type === "webauthn") return provider
  return undefined
}

/** The request's services as the passkey provider's effects see them (its relying party, its options). */
function asProvider(ctx: EffectContext, provider: ResolvedProvider): FlowServices {
  return flowServices(withProvider(ctx, provider), ctx.callbackUrl)
}

/** The request's context with the passkey provider as its provider. */
function withProvider(ctx: EffectContext, provider: ResolvedProvider): EffectContext {
  return {
    config: ctx.config,
    req: ctx.req,
    action: ctx.action,
    providerId: provider.id,
    provider,
    origin: ctx.origin,
    basePath: ctx.basePath,
    authUrl: ctx.authUrl,
    secure: ctx.secure,
    cookies: ctx.cookies,
    now: ctx.now,
    callbackUrl: ctx.callbackUrl,
  }
}

/** Options asking for one of `userId`'s passkeys, or null when a passkey provider or a passkey of theirs is missing. */
export async function passkeyOptions(ctx: EffectContext, userId: string): Promise<{ options: unknown; challenge: string } | null> {
  const provider = passkeyProvider(ctx)
  const adapter = adapterOf(ctx)
  if (provider?.config.type !== "webauthn" || !adapter) return null
  const known = await adapter.listAuthenticatorsByUserId(userId)
  if (known.length === 0) return null
  const lib = await simpleWebAuthn()
  const rp = relyingParty(asProvider(ctx, provider), provider.config)
  const options = await lib.generateAuthenticationOptions({
    ...provider.config.authenticationOptions,
    rpID: rp.id,
    allowCredentials: known.map((a) => ({ id: toJsonId(a.credentialID), transports: transportList(a.transports) })),
  })
  return { options, challenge: options.challenge }
}

/** Whether `data` (the browser's answer, JSON) is an assertion by one of `userId`'s passkeys for `challenge`. */
export async function passkeyProves(ctx: EffectContext, userId: string, challenge: string | null, data: unknown): Promise<boolean> {
  const provider = passkeyProvider(ctx)
  if (!provider || !challenge) return false
  try {
    const identity = await authenticate(asProvider(ctx, provider), parseResponse(data), challenge, { id: userId })
    return identity.user.id !== undefined && String(identity.user.id) === userId
  } catch (err) {
    ctx.config.logger.debug("step-up-passkey-refused", { reason: err instanceof Error ? err.message : String(err) })
    return false
  }
}
