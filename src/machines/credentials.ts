/**
 * Credentials sign-in: `idle` waits for the form POST, `authorizing` runs the provider's `authorize`,
 * then the shared sign-in tail. The submitted fields travel in the event into `authorize` only and are
 * never kept in the context, so a snapshot can never hold a password.
 */
import { assign } from "xstate"
import { AWAITING_INPUT } from "./types.js"
import { flowBase, flowSetup, signInTail } from "./setup.js"

export const credentialsMachine = flowSetup.createMachine({
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
