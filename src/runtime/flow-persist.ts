/**
 * The engine's third part, persist: a resting flow saved in the flow store, an ended one cleared, with
 * the default cookie store's verbs answered at once (no promise) when it is the store.
 */
import { FlowStateError } from "../errors.js"
import type { RequestContext } from "./context.js"
import type { OutCookie } from "./cookies.js"
import type { Loaded } from "./flow-load.js"
import type { FlowDefinition } from "./flow.js"
import type { Outcome } from "./flow-respond.js"
import { ENVELOPE_VERSION, type FlowEnvelope, type FlowStoreIO, type SyncFlowStore, envelopeNonce, syncFlowStore } from "./store.js"

/** The flow's state cleared; a store that cannot clear is logged, the answer goes on. */
export async function clearFlow(ctx: RequestContext, io: FlowStoreIO): Promise<OutCookie[]> {
  try {
    return [...(await ctx.config.flowStore.clear(io))]
  } catch (err) {
    return notCleared(ctx, err)
  }
}

/** {@link clearFlow} without a promise, with the default cookie store's verbs. */
function clearNow(ctx: RequestContext, store: SyncFlowStore, io: FlowStoreIO): OutCookie[] {
  try {
    return [...store.clear(io)]
  } catch (err) {
    return notCleared(ctx, err)
  }
}

function notCleared(ctx: RequestContext, err: unknown): OutCookie[] {
  ctx.config.logger.error(new FlowStateError("The sign-in state could not be cleared.", { err }))
  return []
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
 * in the envelope); an ended one is cleared when the request carried its state. Returns the cookies to set
 * (at once when there is nothing to save or clear, or the store is the default cookie store).
 */
export function persistFlow(
  ctx: RequestContext,
  flow: FlowDefinition,
  loaded: Loaded,
  outcome: Outcome,
  io: FlowStoreIO,
): OutCookie[] | Promise<OutCookie[]> {
  const store = syncFlowStore(ctx.config.flowStore)
  if (outcome.status === "ended") {
    if (!hasState(ctx, io)) return []
    return store ? clearNow(ctx, store, io) : clearFlow(ctx, io)
  }
  try {
    const envelope = envelopeFor(ctx, flow, loaded, outcome)
    return store ? [...store.save(envelope, io)] : saveFlow(ctx, envelope, io)
  } catch (err) {
    return Promise.reject(err)
  }
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

async function saveFlow(ctx: RequestContext, envelope: FlowEnvelope, io: FlowStoreIO): Promise<OutCookie[]> {
  return [...(await ctx.config.flowStore.save(envelope, io))]
}
