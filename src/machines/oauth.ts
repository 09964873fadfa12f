/**
 * OAuth 2 / OpenID Connect authorization-code sign-in.
 *
 * `idle` → SUBMIT (POST /signin/:id) → `redirecting`: the authorization request is built and its checks
 * kept → rests in `awaitingCallback` with a redirect to the provider → CALLBACK (GET or form_post
 * /callback/:id) → `exchanging`: the response is validated against the kept checks, the code redeemed,
 * the profile read → the shared sign-in tail. The checks leave the context as soon as they are used.
 */
import { assign } from "xstate"
import { AWAITING_INPUT, type OAuthPending } from "./types.js"
import { flowBase, flowSetup, signInTail } from "./setup.js"

export const oauthMachine = flowSetup.createMachine({
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
            oauth: ({ event }) => event.output.pending,
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
        input: ({ context, event }) => ({ params: event.params, pending: context.oauth as OAuthPending }),
        onDone: {
          target: "gate",
          actions: assign({ identity: ({ event }) => event.output, oauth: null, reply: null }),
        },
        onError: { target: "failed", actions: "fail" },
      },
    },
    ...signInTail,
  },
})
