/**
 * The flow engine's first part, `loadFlow`: for a start, no envelope; for a resume, the resting flow's
 * envelope, checked (this flow, provider and version, not expired) and claimed once in the server-state
 * port; and the callback URL the flow carries on. engine.ts strings it together with the run, the persist
 * (flow-persist.ts) and the response (flow-respond.ts).
 */
import { randomUUID } from "node:crypto"
import { FlowStateError } from "../../errors.js"
import { type CallbackUrl, resolveCallbackUrl } from "../http/callback-url.js"
import { type RequestContext, param } from "../http/context.js"
import type { FlowDefinition, FlowRoute } from "./define-flow.js"
import { originOf } from "../http/pages/csp.js"
import { type FlowEnvelope, type FlowStoreIO, claimEnvelope } from "./store.js"
import { requestServices } from "./effects/services.js"

/** What `loadFlow` found for a request. */
export interface Loaded {
  /** The resting flow's envelope; null when the request starts a flow. */
  readonly envelope: FlowEnvelope | null
  readonly flowId: string
  /** Where to go after sign-in, as resolved for this request (with the cookie to set, if it changed). */
  readonly callback: CallbackUrl
  /** The callback URL the envelope carries on: named by the request that started the flow (same origin). */
  readonly keptUrl: string | undefined
}

/** Where a flow's state lives for this request (its cookie per provider, the store's clock and secrets). */
export function storeIO(ctx: RequestContext, flow: FlowDefinition): FlowStoreIO {
  const { name, options } = ctx.cookies.flow
  return {
    cookies: ctx.req.cookies,
    cookieName: `${name}.${ctx.providerId}`,
    cookieOptions: { ...options, ...(flow.cookieOptions?.(requestServices(ctx)) ?? {}) },
    secrets: ctx.config.secrets,
    now: ctx.now,
  }
}

/** The loaded envelope when it can resume here: there, of this flow and provider, this version, not expired. */
function resumable(envelope: FlowEnvelope | null, flow: FlowDefinition, ctx: RequestContext): FlowEnvelope {
  if (!envelope) throw new FlowStateError("No sign-in is in progress (or it was already used).")
  if (envelope.flow !== flow.id || envelope.provider !== ctx.providerId) {
    throw new FlowStateError("The sign-in state belongs to another flow or provider.")
  }
  if (envelope.version !== flow.version) {
    throw new FlowStateError("The sign-in state was made by another version of this flow.")
  }
  if (envelope.exp * 1000 <= ctx.now) throw new FlowStateError("The sign-in state has expired.")
  return envelope
}

/** `url` when it is on `origin`. */
function sameOrigin(url: string | undefined, origin: string): string | undefined {
  // the origin an http(s) URL was seen with before, without parsing it again (the origin is http(s))
  return url !== undefined && originOf(url) === origin ? url : undefined
}

/**
 * load: a start has no envelope; a resume needs one, of this flow and provider, this machine version,
 * not expired, and claimed once in the server-state port. The callback URL is the envelope's when the
 * flow's start named one, else this request's (Auth.js' passkey client names it with the response).
 */
export async function loadFlow(ctx: RequestContext, flow: FlowDefinition, route: FlowRoute, io: FlowStoreIO): Promise<Loaded> {
  if (route.start) return loadedFor(ctx, null)
  const envelope = resumable(await ctx.config.flowStore.load(io), flow, ctx)
  await claimEnvelope(envelope, ctx.config.serverState, ctx.now)
  return loadedFor(ctx, envelope)
}

/** The load of a start (no envelope) or of a claimed envelope: the envelope's callback URL when it is on this origin, else this request's. */
async function loadedFor(ctx: RequestContext, envelope: FlowEnvelope | null): Promise<Loaded> {
  const kept = sameOrigin(envelope?.callbackUrl, ctx.origin)
  const callback = kept ? { url: kept } : await resolveCallbackUrl(ctx)
  const named = param(ctx.req, "callbackUrl") !== undefined
  return { envelope, flowId: envelope?.flowId ?? randomUUID(), callback, keptUrl: kept ?? (named ? callback.url : undefined) }
}
