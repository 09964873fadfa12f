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
export { Auth, type AuthOptions } from "./runtime/front/auth.js"
export { raw, skipCSRFCheck } from "./runtime/front/resolve.js"
export { customFetch } from "./runtime/config/custom-fetch.js"
export { createActionURL, isAuthAction, setEnvDefaults, type AuthAction } from "./runtime/config/env.js"
export {
  defineFlow,
  type FlowDefinition,
  type FlowDefinitionInput,
  type FlowRoute,
  type EffectContext,
} from "./runtime/engine/define-flow.js"
export type { FlowStore, FlowEnvelope, FlowStoreIO } from "./runtime/engine/store.js"
export { revokeSessions } from "./runtime/front/revoke-sessions.js"
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
} from "./runtime/front/manage.js"
export { getAccessToken } from "./runtime/front/access-token.js"
export { requireRecentAuth, type RecentAuth, type RecentAuthOptions } from "./runtime/front/require-recent-auth.js"
export { stepUpFlow, type StepUpOptions } from "./runtime/engine/step-up.js"
export { resetRateLimit, type ResetRateLimitOptions } from "./runtime/front/reset-rate-limit.js"
export { memoryServerState, type MemoryServerStateOptions } from "./runtime/limits/server-state-memory.js"
export { stateKey, type ServerState, type WindowCount } from "./runtime/limits/server-state.js"
export { credentialsFlow, emailFlow, oauthFlow, webauthnFlow } from "./runtime/engine/built-in-flows.js"
export {
  defineStep,
  extendFlow,
  renderStepPage,
  StepFailed,
  type FlowPageProps,
  type StepArgs,
  type StepDefinition,
  type StepFactors,
  type StepPageContent,
  type StepPageProps,
  type StepVerdict,
} from "./runtime/engine/extend-flow.js"
export { escapeHtml, html, type HtmlValue, type SafeHtml } from "./runtime/http/pages/html.js"
export type { ResponseInternal } from "./runtime/http/context.js"
export type { Route } from "./runtime/front/routes.js"
export type { InspectionEvent, Inspector, InspectOption } from "./runtime/engine/inspection.js"
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
