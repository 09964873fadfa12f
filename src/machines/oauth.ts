/**
 * OAuth 2 / OpenID Connect authorization-code sign-in.
 *
 * `idle` → SUBMIT (POST /signin/:id) → `redirecting`: the authorization request is built and its checks
 * kept (`pending`) → rests in `awaitingCallback` with a redirect to the provider → CALLBACK (GET or
 * form_post /callback/:id) → `exchanging`: the response is validated against the kept checks, the code
 * redeemed, the profile read → the shared sign-in tail. The checks leave the context as soon as they are used.
 */
import { assign, setup } from "xstate"
import { AWAITING_INPUT, type Identity } from "./types.js"
import { declareEffect, flowBase, flowTypes, signInTail, tailActions, tailActors, tailGuards } from "./setup.js"

/**
 * What an OAuth / OIDC sign-in keeps between the redirect to the provider and the callback: the checks
 * (RFC 9700: `state`, PKCE verifier, OIDC `nonce`), the exact redirect URI, and the issuer it is bound to.
 * Sealed with the snapshot; never in a URL except `state`.
 */
export interface OAuthPending {
  state: string
  codeVerifier: string
  nonce: string | null
  redirectUri: string
  issuer: string
}

/** The authorization request: where to send the browser, and what to keep for the callback. */
export interface AuthorizationStart {
  url: string
  pending: OAuthPending
}

export const oauthMachine = setup({
  types: flowTypes<OAuthPending>(),
  actors: {
    ...tailActors,
    /** Build the authorization request and its checks. */
    startAuthorization: declareEffect<AuthorizationStart, { params: Record<string, unknown> }>("startAuthorization"),
    /** Validate the callback, redeem the code, read the profile. */
    finishAuthorization: declareEffect<Identity, { params: Record<string, unknown>; pending: OAuthPending | null }>("finishAuthorization"),
  },
  guards: tailGuards,
  actions: tailActions,
}).createMachine({
  id: "oauth",
  ...flowBase,
  states: {
    idle: {
      tags: [AWAITING_INPUT],
      on: { SUBMIT: { target: "redirecting" } },
    },
    redirecting: {
      invoke: {
        id: "startAuthorization",
        src: "startAuthorization",
        input: ({ event }) => ({ params: event.params }),
        onDone: {
          target: "awaitingCallback",
          actions: assign({
            pending: ({ event }) => event.output.pending,
            reply: ({ event }) => ({ type: "redirect" as const, url: event.output.url }),
          }),
        },
        onError: { target: "failed", actions: "fail" },
      },
    },
    awaitingCallback: {
      tags: [AWAITING_INPUT],
      on: { CALLBACK: { target: "exchanging" } },
    },
    exchanging: {
      invoke: {
        id: "finishAuthorization",
        src: "finishAuthorization",
        input: ({ context, event }) => ({ params: event.params, pending: context.pending }),
        onDone: {
          target: "gate",
          actions: assign({ identity: ({ event }) => event.output, pending: null, reply: null }),
        },
        onError: { target: "failed", actions: "fail" },
      },
    },
    ...signInTail,
  },
})
