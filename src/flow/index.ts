/**
 * The flow kit: the contract a sign-in flow is written against, the one the built-in flows (credentials,
 * OAuth/OIDC, email links, passkeys) and email codes use too. A flow is
 *
 * - a machine: an xstate `setup()` typed with {@link flowTypes}, starting from {@link flowBase} and ending
 *   in the shared sign-in tail ({@link signInTail}, with {@link tailActors}, {@link tailGuards} and
 *   {@link tailActions}); it declares its effects by name ({@link declareEffect}) and rests in states
 *   tagged {@link AWAITING_INPUT};
 * - the request rows that drive it ({@link FlowRoute}), and pages it rests on ({@link renderStepPage},
 *   {@link html});
 * - its effects ({@link effect}), which get the request's {@link FlowServices} (provider, clock, origin,
 *   server state, adapter, sealing with the app's secrets, the `signIn` callback, logger) and answer the
 *   flow's {@link Identity} once someone proved who they are.
 *
 * {@link defineFlow} puts the three together; bind a provider to the flow with its `flow` field.
 *
 * @example
 * ```ts
 * import { assign, setup } from "xstate"
 * import {
 *   AWAITING_INPUT, declareEffect, defineFlow, effect, flowBase, flowTypes, providerConfig, signInTail, tailActions, tailActors,
 *   tailGuards, type Identity,
 * } from "authchart/flow"
 *
 * const machine = setup({
 *   types: flowTypes(),
 *   actors: { ...tailActors, authorize: declareEffect<Identity, { params: Record<string, unknown> }>("authorize") },
 *   guards: tailGuards,
 *   actions: tailActions,
 * }).createMachine({
 *   id: "invite",
 *   ...flowBase,
 *   states: {
 *     idle: { tags: [AWAITING_INPUT], on: { SUBMIT: "authorizing" } },
 *     authorizing: {
 *       invoke: {
 *         src: "authorize",
 *         input: ({ event }) => ({ params: event.params }),
 *         onDone: { target: "gate", actions: assign({ identity: ({ event }) => event.output }) },
 *         onError: { target: "failed", actions: "fail" },
 *       },
 *     },
 *     ...signInTail,
 *   },
 * })
 *
 * export const inviteFlow = defineFlow({
 *   id: "invite",
 *   machine,
 *   routes: [{ method: "POST", action: "callback", event: "SUBMIT", start: true, csrf: true, params: ["code"] }],
 *   actors: { authorize: effect(async (services, input: { params: Record<string, unknown> }) => checkInvite(services, input.params)) },
 * })
 * ```
 * @module
 */

// defining a flow
export { defineFlow } from "../runtime/engine/define-flow.js"
export type { FlowDefinition, FlowDefinitionInput, FlowRoute } from "../types/flow.js"

// what a flow declares for the shared runtime: its sign-in page block, route limits, CSP form targets, linking, requirements
export type {
  BuiltInLinking,
  DeclaredProvider,
  FlowDeclarations,
  FlowRequirements,
  IdentityLinker,
  RouteLimit,
  SignInBlock,
  SignInBlockPage,
  SignInBlockUrls,
} from "../types/flow-declarations.js"

// effects and the services they receive
export { effect } from "../runtime/engine/effects/effect.js"
export type { FlowServices, RequestServices } from "../types/flow.js"
export type { RequestContext } from "../types/request.js"
export { providerConfig } from "../runtime/engine/provider-config.js"

// the machine half: shared types, the start, the sign-in tail
export { AWAITING_INPUT, type FlowOutput, type Reply } from "../machines/types.js"
export {
  declareEffect,
  flowBase,
  flowTypes,
  signInTail,
  tailActions,
  tailActors,
  tailGuards,
  type FlowContext,
  type FlowEvent,
} from "../machines/setup.js"

// identities: who signed in, as an effect answers it
export type { FlowAccount, FlowUser, Identity } from "../machines/types.js"
export { stableUserId } from "../runtime/sessions/user-id.js"
export { credentialsAccount, emailAccount } from "../runtime/limits/account-key.js"

// replies and pages
export { redirect, showSignInPage } from "../runtime/http/respond.js"
export { renderStepPage } from "../runtime/http/pages/step.js"
export type { FlowPageProps } from "../types/flow.js"
export { attr, escapeHtml, html, type SafeHtml } from "../runtime/http/pages/html.js"
export { markup } from "../runtime/http/pages/localized.js"

// texts in the request's language (`services.language`, `props.language`)
export { english, plural, text, type Language, type MessageKey, type Messages } from "../messages/index.js"
