/**
 * authchart: sign-in, sign-out and sessions for Node.js web apps, wire-compatible with Auth.js v5, with
 * every sign-in flow an XState statechart.
 *
 * @example
 * ```ts
 * import { Auth } from "authchart"
 * const response = await Auth(request, config)
 * ```
 * @packageDocumentation
 */
export { Auth, type AuthOptions } from "./runtime/auth.js"
export { raw, skipCSRFCheck } from "./runtime/config.js"
export { customFetch } from "./runtime/custom-fetch.js"
export { createActionURL, isAuthAction, setEnvDefaults, type AuthAction } from "./runtime/env.js"
export { defineFlow, type FlowDefinition, type FlowDefinitionInput, type FlowRoute, type EffectContext } from "./runtime/flow.js"
export type { FlowStore, FlowEnvelope, FlowStoreIO } from "./runtime/store.js"
export { revokeSessions } from "./runtime/revoke-sessions.js"
export {
  listAccounts,
  listSessions,
  revokeOtherSessions,
  revokeSession,
  unlinkAccount,
  type LinkedAccount,
  type RevokeOthersResult,
  type SessionInfo,
  type SessionTarget,
} from "./runtime/manage.js"
export { getAccessToken } from "./runtime/tokens/request.js"
export { resetRateLimit, type ResetRateLimitOptions } from "./runtime/rate-limit-reset.js"
export { memoryServerState, type MemoryServerStateOptions } from "./runtime/server-state-memory.js"
export { stateKey, type ServerState, type WindowCount } from "./runtime/server-state.js"
export { credentialsFlow, emailFlow, oauthFlow, webauthnFlow } from "./runtime/flows.js"
export {
  defineStep,
  extendFlow,
  renderStepPage,
  StepFailed,
  type FlowPageProps,
  type StepArgs,
  type StepDefinition,
  type StepPageContent,
  type StepPageProps,
  type StepVerdict,
} from "./runtime/steps.js"
export { escapeHtml, html, type HtmlValue, type SafeHtml } from "./runtime/pages/html.js"
export type { ResponseInternal } from "./runtime/context.js"
export type { Route } from "./runtime/routes.js"
export type { InspectionEvent, Inspector, InspectOption } from "./runtime/inspect.js"
export type {
  Adapter,
  AdapterAccount,
  AdapterAccountType,
  AdapterAuthenticator,
  AdapterSession,
  AdapterUser,
  VerificationToken,
} from "./adapters/types.js"
export * from "./errors.js"
export type * from "./types.js"
