/**
 * Credentials sign-in: `idle` waits for the form POST, `authorizing` runs the provider's `authorize`,
 * then the shared sign-in tail. The submitted fields travel in the event into `authorize`, and into the
 * `signIn` callback through the identity; the gate drops them, so a snapshot can never hold a password.
 */
import { assign, setup } from "xstate"
import type { Identity } from "./types.js"
import { AWAITING_INPUT } from "./types.js"
import { declareEffect, flowBase, flowTypes, signInTail, tailActions, tailActors, tailGuards } from "./setup.js"

export const credentialsMachine = setup({
  types: flowTypes(),
  actors: {
    ...tailActors,
    /** Check the submitted fields, answer who the user is. */
    authorize: declareEffect<Identity, { params: Record<string, unknown> }>("authorize"),
  },
  guards: tailGuards,
  actions: tailActions,
}).createMachine({
  id: "credentials",
  ...flowBase,
  states: {
    idle: {
      tags: [AWAITING_INPUT],
      on: { SUBMIT: { target: "authorizing" } },
    },
    authorizing: {
      invoke: {
        id: "authorize",
        src: "authorize",
        input: ({ event }) => ({ params: event.params }),
        onDone: { target: "gate", actions: assign({ identity: ({ event }) => event.output }) },
        onError: { target: "failed", actions: "fail" },
      },
    },
    ...signInTail,
  },
})
