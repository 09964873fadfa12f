/**
 * The flow kit: everything a sign-in flow is written with, the same pieces the built-in flows
 * (credentials, OAuth/OIDC, email links, passkeys) use. A flow is an xstate machine that spreads in the
 * shared types, the sign-in tail's effects, guards and states; the request rows that drive it; and its
 * effects, written with `effect()` and provided once by the runtime.
 *
 * @example
 * ```ts
 * import { assign, setup } from "xstate"
 * import {
 *   AWAITING_INPUT, declareEffect, defineFlow, effect, flowBase, flowTypes, signInTail, tailActions, tailActors, tailGuards,
 *   type Identity,
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
 *   actors: { authorize: effect(async (ctx, input: { params: Record<string, unknown> }) => checkInvite(ctx, input.params)) },
 * })
 * ```
 * @module
 */
export {
  defineFlow,
  type EffectContext,
  type FlowAnswerRoute,
  type FlowDefinition,
  type FlowDefinitionInput,
  type FlowRoute,
} from "../runtime/engine/define-flow.js"
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
export { redirect, showSignInPage } from "../runtime/http/respond.js"
export { newestSecret, openClaims, sealClaims } from "../runtime/crypto/sealed.js"
export { effect } from "../runtime/engine/effects/effect.js"
export { askSignIn } from "../runtime/engine/effects/tail.js"
export {
  AWAITING_INPUT,
  type FlowAccount,
  type FlowAuthenticator,
  type FlowInput,
  type FlowOutput,
  type FlowUser,
  type GateResult,
  type Identity,
  type Issued,
  type Reply,
} from "../machines/types.js"
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
  type StepState,
} from "../machines/setup.js"
export { renderStepPage, type FlowPageProps, type StepPageContent, type StepPageProps } from "../runtime/http/pages/step.js"
export { attr, escapeHtml, html, type HtmlValue, type SafeHtml } from "../runtime/http/pages/html.js"
export { markup } from "../runtime/http/pages/localized.js"
export { requestLanguage } from "../runtime/http/language.js"
export { english, plural, text, type Language, type MessageKey, type Messages } from "../messages/index.js"
export { toUserRequest, userRequestFor, type Handled, type RequestContext } from "../runtime/http/context.js"
export { flowProviderConfig, providerConfig, type ProviderConfigOf } from "../runtime/engine/provider-config.js"
export { currentUser } from "../runtime/sessions/session.js"
export { adapterOf } from "../runtime/sessions/adapter.js"
export { isPlainObject } from "../runtime/config/plain-object.js"
export { randomBytes } from "../runtime/crypto/random.js"
export { constantTimeEqual, type HmacKey, hmac, hmacKey, sha256 } from "../runtime/crypto/digest.js"
export type { SafeAdapter } from "../runtime/sessions/adapter.js"
export { credentialsAccount, emailAccount, normalizeAccount, normalizeEmail } from "../runtime/limits/account-key.js"
export { stableUserId } from "../runtime/sessions/user-id.js"
