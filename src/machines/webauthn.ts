/**
 * WebAuthn (passkey) sign-in and registration.
 *
 * `idle` → SUBMIT (GET /webauthn-options/:id) → `preparing`: register or authenticate is decided and the
 * options with a fresh challenge are made → rests in `awaitingResponse`, answering `{ action, options }`
 * as JSON; the options sent (challenge included) and, for a registration, the user the passkey is for
 * stay in the sealed snapshot → CALLBACK (POST /callback/:id with `action` and `data`) → `verifying`:
 * the response is checked against exactly those options → the shared sign-in tail. The run ends there
 * whatever the outcome, so a challenge answers once. A request the effect refuses (bad `action`, no
 * email to register) ends in `refused` with a 400 JSON reason.
 */
import { assign } from "xstate"
import { AWAITING_INPUT, type FlowOutput } from "./types.js"
import { flowBase, flowSetup, signInTail } from "./setup.js"

/** The 400 body of a refused options request: Auth.js' `error`, and a `message` for people when there is one. */
function refusal(output: { refused: string; message?: string }): { error: string; message?: string } {
  return { error: output.refused, ...(output.message ? { message: output.message } : {}) }
}

export const webauthnMachine = flowSetup.createMachine({
  id: "webauthn",
  ...flowBase,
  states: {
    idle: {
      tags: [AWAITING_INPUT],
      on: { SUBMIT: { target: "preparing" } },
    },
    preparing: {
      invoke: {
        id: "webauthnOptions",
        src: "webauthnOptions",
        input: ({ event }) => ({ params: event.params }),
        onDone: [
          {
            guard: ({ event }) => "refused" in event.output,
            target: "refused",
            actions: assign({
              output: ({ event }): FlowOutput => ({
                ok: true,
                reply: {
                  type: "json",
                  status: 400,
                  body: "refused" in event.output ? refusal(event.output) : { error: "" },
                },
              }),
            }),
          },
          {
            target: "awaitingResponse",
            actions: assign(({ event }) =>
              "refused" in event.output
                ? {}
                : {
                    reply: { type: "json" as const, body: event.output.options },
                    identity: event.output.user ? { user: event.output.user, account: null } : null,
                  },
            ),
          },
        ],
        onError: { target: "failed", actions: "fail" },
      },
    },
    awaitingResponse: {
      tags: [AWAITING_INPUT],
      on: { CALLBACK: { target: "verifying" } },
    },
    verifying: {
      invoke: {
        id: "webauthnVerify",
        src: "webauthnVerify",
        input: ({ context, event }) => ({ params: event.params, issued: context.reply, user: context.identity?.user ?? null }),
        onDone: { target: "gate", actions: assign({ identity: ({ event }) => event.output, reply: null }) },
        onError: { target: "failed", actions: "fail" },
      },
    },
    refused: { type: "final" },
    ...signInTail,
  },
})
