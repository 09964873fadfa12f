/**
 * The built-in flows, declared with the same `defineFlow` applications use.
 */
import { credentialsMachine } from "../../machines/credentials.js"
import { emailMachine } from "../../machines/email.js"
import { oauthMachine } from "../../machines/oauth.js"
import { webauthnMachine } from "../../machines/webauthn.js"
import type { OAuthConfig } from "../../providers/oauth-types.js"
import { authorize } from "./effects/credentials.js"
import { requestLink, verifyLink } from "./effects/email.js"
import { finishAuthorization, startAuthorization } from "./effects/oauth.js"
import { forwardFromProxy } from "./effects/redirect-proxy.js"
import { webauthnOptions, webauthnVerify } from "./effects/webauthn.js"
import { CHALLENGE_TTL_S } from "./effects/webauthn-support.js"
import { type FlowDefinition, credentialsAccount, defineFlow, emailAccount, showSignInPage } from "../../flow/index.js"
import { credentialsSignInBlock, emailSignInBlock, oauthSignInBlock, webauthnSignInBlock } from "../http/pages/blocks.js"
import { oauthFormTargets } from "../oauth/form-targets.js"

/** Adapter methods OAuth/OIDC linking calls. */
const OAUTH_LINKING_METHODS = ["getUser", "getUserByEmail", "getUserByAccount", "createUser", "linkAccount"]

/** Methods email sign-in calls: the token pair, and user lookup, creation and update. */
const EMAIL_METHODS = ["createVerificationToken", "useVerificationToken", "getUserByEmail", "createUser", "updateUser"]

/** Methods WebAuthn calls: options (users, passkeys), verification, and linking. */
const WEBAUTHN_METHODS = [
  "createUser",
  "getUser",
  "getUserByEmail",
  "getUserByAccount",
  "linkAccount",
  "getAccount",
  "getAuthenticator",
  "createAuthenticator",
  "listAuthenticatorsByUserId",
  "updateAuthenticatorCounter",
]

/** The built-in flow of `type: "credentials"` providers: `authorize`, then the sign-in tail; extend it with `extendFlow`. */
export const credentialsFlow = defineFlow({
  id: "credentials",
  providerTypes: ["credentials"],
  machine: credentialsMachine,
  routes: [
    {
      method: "POST",
      action: "callback",
      event: "SUBMIT",
      start: true,
      csrf: true,
      params: "body",
      // per client, and per account when the body names one (accountField): the flow signs in with it
      limit: {
        rules: ["passwordClient", "passwordAccount", "passwordAccountWide", "passwordAccounts"],
        account: (provider, body) => (provider.config.type === "credentials" ? credentialsAccount(provider.config, body) : undefined),
      },
    },
  ],
  // Auth.js: POST /signin/<credentials> shows the sign-in page (the form posts to the callback)
  answers: [{ method: "POST", action: "signin", csrf: true, answer: showSignInPage }],
  actors: { authorize },
  signInBlock: credentialsSignInBlock,
  link: "credentials",
})

function usesFormPost(provider: OAuthConfig): boolean {
  const authorization = provider.authorization
  return typeof authorization === "object" && authorization.params?.response_mode === "form_post"
}

/** OAuth 2 and OIDC: one machine; `oidc` adds the nonce and the ID token checks. */
export const oauthFlow = defineFlow({
  id: "oauth",
  providerTypes: ["oauth", "oidc"],
  machine: oauthMachine,
  routes: [
    { method: "POST", action: "signin", event: "SUBMIT", start: true, csrf: true, params: "query", limit: { rules: ["oauthClient"] } },
    { method: "GET", action: "callback", event: "CALLBACK", params: "query" },
    { method: "POST", action: "callback", event: "CALLBACK", params: "body" },
  ],
  actors: { startAuthorization, finishAuthorization },
  intercept: forwardFromProxy,
  signInBlock: oauthSignInBlock,
  // signing in POSTs to /signin/<id>, which redirects to the authorization server
  formTargets: oauthFormTargets,
  link: "oauth",
  requires: { adapterMethods: OAUTH_LINKING_METHODS },
  // A form_post callback is a cross-site POST: the flow cookie must be SameSite=None; Secure to arrive.
  cookieOptions: ({ provider }) =>
    (provider.type === "oauth" || provider.type === "oidc") && usesFormPost(provider.config) ? { sameSite: "none", secure: true } : {},
})

/** Email magic links: the request and the callback each start a run; nothing rests in between. */
export const emailFlow = defineFlow({
  id: "email",
  providerTypes: ["email"],
  machine: emailMachine,
  routes: [
    // the address from the body only: an `email` in the query string is not read (as in Auth.js)
    {
      method: "POST",
      action: "signin",
      event: "SUBMIT",
      start: true,
      csrf: true,
      params: "body",
      // per client, and per address as it will be mailed
      limit: {
        rules: ["emailClient", "emailAddress"],
        account: (provider, body) => emailAccount(provider.config.type === "email" ? provider.config : {}, body),
      },
    },
    { method: "GET", action: "callback", event: "CALLBACK", start: true, params: ["token", "email"] },
  ],
  actors: { requestLink, verifyLink },
  signInBlock: emailSignInBlock,
  link: "email",
  requires: {
    // a link is stored until it is opened (maybe elsewhere): in the adapter, or a flow store that keeps tokens
    adapter: (config) => (config.flowStore.tokens ? undefined : "Email login requires an adapter"),
    adapterMethods: EMAIL_METHODS,
    // nodemailer sends when the provider has SMTP `server` settings and no sender of the app's own
    packages: ({ config }) =>
      config.type === "email" && config.server !== undefined && config.options?.sendVerificationRequest === undefined ? ["nodemailer"] : [],
  },
})

/**
 * WebAuthn: the options request starts a run that rests with the challenge (5 minutes); the response
 * resumes it. No CSRF token (as in Auth.js): the response must answer the challenge sealed in this
 * browser's flow state, which a cross-site page cannot read.
 */
export const webauthnFlow = defineFlow({
  id: "webauthn",
  providerTypes: ["webauthn"],
  machine: webauthnMachine,
  routes: [
    { method: "GET", action: "webauthn-options", event: "SUBMIT", start: true, params: "query", limit: { rules: ["webauthnClient"] } },
    { method: "POST", action: "callback", event: "CALLBACK", params: ["action", "data"], limit: { rules: ["webauthnClient"] } },
  ],
  // Auth.js: POST /signin/<webauthn> shows the sign-in page (passkeys start from its button's script)
  answers: [{ method: "POST", action: "signin", csrf: true, answer: showSignInPage }],
  actors: { webauthnOptions, webauthnVerify },
  ttl: CHALLENGE_TTL_S,
  // a form only with `formFields` (as in Auth.js), driven by the passkey script
  signInBlock: webauthnSignInBlock,
  link: "webauthn",
  requires: {
    experimental: "enableWebAuthn",
    adapter: "WebAuthn requires an adapter",
    adapterMethods: WEBAUTHN_METHODS,
    packages: ["@simplewebauthn/server", "@simplewebauthn/browser"],
  },
})

export const builtInFlows: readonly FlowDefinition[] = [credentialsFlow, oauthFlow, emailFlow, webauthnFlow]
