/**
 * WebAuthn (passkey) sign-in and registration.
 *
 * `idle` → SUBMIT (GET /webauthn-options/:id) → `preparing`: register or authenticate is decided and the
 * options with a fresh challenge are made → rests in `awaitingResponse`, answering `{ action, options }`
 * as JSON; the options sent (challenge included) and, for a registration, the user the passkey is for
 * stay in `pending` in the sealed snapshot → CALLBACK (POST /callback/:id with `action` and `data`) →
 * `verifying`: the response is checked against exactly those options → the shared sign-in tail. The run
 * ends there whatever the outcome, so a challenge answers once. A request the effect refuses (bad
 * `action`, no email to register) ends in `refused` with a 400 JSON reason.
 */
import { assign, setup } from "xstate"
import { AWAITING_INPUT, type FlowOutput, type FlowUser, type Identity } from "./types.js"
import { declareEffect, flowBase, flowTypes, signInTail, tailActions, tailActors, tailGuards } from "./setup.js"

/** What a passkey run keeps between the options and the response: the ceremony, its challenge, and for whom. */
export interface WebAuthnPending {
  action: "register" | "authenticate"
  challenge: string
  /** For a registration: the user the passkey is for. */
  user: FlowUser | null
}

/**
 * What the options effect answers: the options sent to the browser (`{ action, options }`, the JSON
 * reply) and what to keep for the response; or a refusal (400 JSON).
 */
export type WebAuthnOptionsResult =
  | { options: { action: WebAuthnPending["action"]; options: unknown }; pending: WebAuthnPending }
  | { refused: string; message?: string }

/** The 400 body of a refused options request: Auth.js' `error`, and a `message` for people when there is one. */
function refusal(output: WebAuthnOptionsResult): { error: string; message?: string } {
  if (!("refused" in output)) return { error: "" }
  return { error: output.refused, ...(output.message ? { message: output.message } : {}) }
}

export const webauthnMachine = setup({
  types: flowTypes<WebAuthnPending>(),
  actors: {
    ...tailActors,
    /**
     * Decide register or authenticate, issue the options with a fresh challenge, and say for whom a
     * passkey is registered (`user`); or refuse the request with a reason (400 JSON).
     */
    webauthnOptions: declareEffect<WebAuthnOptionsResult, { params: Record<string, unknown> }>("webauthnOptions"),
    /** Verify the response against the options issued (challenge, origin, RP ID, user verification). */
    webauthnVerify: declareEffect<Identity, { params: Record<string, unknown>; pending: WebAuthnPending | null }>("webauthnVerify"),
  },
  guards: {
    ...tailGuards,
    /** The options request was refused (no options issued). */
    optionsRefused: (_: unknown, params: { result: WebAuthnOptionsResult }) => "refused" in params.result,
  },
  actions: tailActions,
}).createMachine({
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
            guard: { type: "optionsRefused", params: ({ event }) => ({ result: event.output }) },
            target: "refused",
            actions: assign({
              output: ({ event }): FlowOutput => ({ ok: true, reply: { type: "json", status: 400, body: refusal(event.output) } }),
            }),
          },
          {
            target: "awaitingResponse",
            actions: assign(({ event }) =>
              "refused" in event.output
                ? {}
                : {
                    pending: event.output.pending,
                    reply: { type: "json" as const, body: event.output.options },
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
        input: ({ context, event }) => ({ params: event.params, pending: context.pending }),
        onDone: { target: "gate", actions: assign({ identity: ({ event }) => event.output, pending: null, reply: null }) },
        onError: { target: "failed", actions: "fail" },
      },
    },
    refused: { type: "final" },
    ...signInTail,
  },
})
