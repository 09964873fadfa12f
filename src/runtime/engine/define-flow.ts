/**
 * `defineFlow`: the one contract every flow uses, the built-in ones included. A flow is a machine, the
 * request rows that drive it, and the effects the runtime provides to it.
 */
import type { AnyStateMachine } from "xstate"
import { sha256 } from "../crypto/digest.js"
import type { FlowRoute, FlowAnswerRoute, EffectContext, FlowDefinition, FlowDefinitionInput } from "../../types/flow.js"
export type { FlowRoute, FlowAnswerRoute, EffectContext, FlowDefinition, FlowDefinitionInput }

/** The row a flow with pages gets when it declares no `GET` callback row of its own. */
const RELOAD_ROUTE: FlowRoute = Object.freeze({ method: "GET", action: "callback", event: "SHOW", params: [] })

function fingerprint(machine: AnyStateMachine): string {
  const shape = JSON.stringify(machine.definition, (key, value) => (typeof value === "function" ? `fn:${key}` : value))
  return sha256(shape, "base64url").slice(0, 16)
}

/**
 * Declares a flow: its machine, the request rows that drive it, and its effects. The built-in flows
 * are declared the same way. Bind a provider to it with the provider's `flow` field.
 *
 * @example
 * ```ts
 * import { defineFlow, effect } from "authchart/flow"
 * const inviteFlow = defineFlow({
 *   id: "invite",
 *   machine: inviteMachine,
 *   routes: [{ method: "POST", action: "callback", event: "SUBMIT", start: true, csrf: true, params: ["code"] }],
 *   actors: { authorize: effect(async (ctx, input: { params: Record<string, unknown> }) => checkInvite(input.params)) },
 * })
 * const config = { flows: [inviteFlow], providers: [{ id: "invite", name: "Invite", type: "credentials", flow: "invite", … }] }
 * ```
 */
export function defineFlow(input: FlowDefinitionInput): FlowDefinition {
  if (!input.id) throw new TypeError("defineFlow: `id` is required")
  if (input.routes.length === 0) throw new TypeError(`defineFlow(${input.id}): at least one route is required`)
  // a page's form posts its answer; a GET of the callback URL while the flow rests on a page is a reload
  // and shows the page again (the engine does not send the event), so a flow with pages always has it
  const reload = input.pages && !input.routes.some((r) => r.method === "GET" && r.action === "callback")
  return Object.freeze({
    ...input,
    routes: Object.freeze(reload ? [...input.routes, RELOAD_ROUTE] : [...input.routes]),
    answers: Object.freeze([...(input.answers ?? [])]),
    ttl: input.ttl ?? 900,
    version: fingerprint(input.machine),
  })
}
