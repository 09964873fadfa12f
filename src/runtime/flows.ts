/**
 * The built-in flows, declared with the same `defineFlow` applications use.
 */
import { credentialsMachine } from "../machines/credentials.js"
import { authorize } from "./effects/credentials.js"
import { type FlowDefinition, defineFlow } from "./flow.js"

export const credentialsFlow = defineFlow({
  id: "credentials",
  providerType: "credentials",
  machine: credentialsMachine,
  routes: [{ method: "POST", action: "callback", event: "SUBMIT", start: true, csrf: true, params: "body" }],
  effects: (ctx) => ({ authorize: authorize(ctx) }),
})

export const builtInFlows: readonly FlowDefinition[] = [credentialsFlow]
