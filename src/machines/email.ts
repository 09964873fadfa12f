/**
 * Email (magic link) sign-in. Two requests, each starting from `idle`: SUBMIT (POST /signin/:id with the
 * address) → `requesting`: the link is stored server-side and sent → `sent`; CALLBACK (GET
 * /callback/:id?token&email) → `verifying`: the token is consumed → the shared sign-in tail. Nothing rests
 * between the two: the pending verification lives with the adapter (or a flow store), so the link works
 * in another browser.
 */
import { assign, setup } from "xstate"
import { AWAITING_INPUT, type FlowOutput, type Identity } from "./types.js"
import { declareEffect, flowBase, flowTypes, signInTail, tailActions, tailActors, tailGuards } from "./setup.js"

export const emailMachine = setup({
  types: flowTypes(),
  actors: {
    ...tailActors,
    /** Check the address, ask the `signIn` callback, store a token, send the link. */
    requestLink: declareEffect<{ redirect: string }, { params: Record<string, unknown> }>("requestLink"),
    /** Consume the link's token (single use, not expired, same address). */
    verifyLink: declareEffect<Identity, { params: Record<string, unknown> }>("verifyLink"),
  },
  guards: tailGuards,
  actions: tailActions,
}).createMachine({
  id: "email",
  ...flowBase,
  states: {
    idle: {
      tags: [AWAITING_INPUT],
      on: { SUBMIT: { target: "requesting" }, CALLBACK: { target: "verifying" } },
    },
    requesting: {
      invoke: {
        id: "requestLink",
        src: "requestLink",
        input: ({ event }) => ({ params: event.params }),
        onDone: {
          target: "sent",
          actions: assign({
            output: ({ event }): FlowOutput => ({ ok: true, reply: { type: "redirect", url: event.output.redirect } }),
          }),
        },
        onError: { target: "failed", actions: "fail" },
      },
    },
    sent: { type: "final" },
    verifying: {
      invoke: {
        id: "verifyLink",
        src: "verifyLink",
        input: ({ event }) => ({ params: event.params }),
        onDone: { target: "gate", actions: assign({ identity: ({ event }) => event.output }) },
        onError: { target: "failed", actions: "fail" },
      },
    },
    ...signInTail,
  },
})
