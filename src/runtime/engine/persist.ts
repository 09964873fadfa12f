/** The engine's third part, persist: a resting flow saved in the flow store, an ended one cleared. */
import { FlowStateError } from "../../errors.js"
import type { RequestContext } from "../http/context.js"
import type { OutCookie } from "../http/cookies.js"
import type { Loaded } from "./load.js"
import type { FlowDefinition } from "./define-flow.js"
import type { Outcome } from "./outcome.js"
import { ENVELOPE_VERSION, type FlowEnvelope, type FlowStoreIO, envelopeNonce } from "./store.js"

/** The flow's state cleared; a store that cannot clear is logged, the answer goes on. */
export async function clearFlow(ctx: RequestContext, io: FlowStoreIO): Promise<OutCookie[]> {
  try {
    return [...(await ctx.config.flowStore.clear(io))]
  } catch (err) {
    ctx.config.logger.error(new FlowStateError("The sign-in state could not be cleared.", { err }))
    return []
  }
}

/** The request carried this flow's state (its cookie, whole or chunked). */
export function hasState(ctx: RequestContext, io: FlowStoreIO): boolean {
  return ctx.req.cookies[io.cookieName] !== undefined || ctx.req.cookies[`${io.cookieName}.0`] !== undefined
}

/** When the flow stops being resumable: the start's deadline, kept across its requests. */
export function expiryOf(ctx: RequestContext, flow: FlowDefinition, loaded: Loaded): number {
  return loaded.envelope?.exp ?? Math.floor(ctx.now / 1000) + flow.ttl
}

/**
 * persist: a resting flow is saved in the flow store (a fresh nonce, so it resumes once; the callback URL
 * in the envelope); an ended one is cleared when the request carried its state. Returns the cookies to set.
 */
export async function persistFlow(
  ctx: RequestContext,
  flow: FlowDefinition,
  loaded: Loaded,
  outcome: Outcome,
  io: FlowStoreIO,
): Promise<OutCookie[]> {
  if (outcome.status === "ended") return hasState(ctx, io) ? clearFlow(ctx, io) : []
  return [...(await ctx.config.flowStore.save(envelopeFor(ctx, flow, loaded, outcome), io))]
}

function envelopeFor(
  ctx: RequestContext,
  flow: FlowDefinition,
  loaded: Loaded,
  outcome: Extract<Outcome, { status: "resting" }>,
): FlowEnvelope {
  return {
    v: ENVELOPE_VERSION,
    flow: flow.id,
    flowId: loaded.flowId,
    provider: ctx.providerId as string,
    version: flow.version,
    exp: expiryOf(ctx, flow, loaded),
    nonce: envelopeNonce(),
    ...(loaded.keptUrl ? { callbackUrl: loaded.keptUrl } : {}),
    snapshot: outcome.snapshot,
  }
}
