/**
 * Step-up (re-authentication) of a signed-in user: `idle` → START (GET <basePath>/reauth) → `preparing`:
 * who is signed in and which proofs they have (password, passkey, TOTP) → rests in `awaiting` on the
 * `reauth` page, or ends in `signIn` (nobody signed in, or no proof to ask: the sign-in page) → PROVE
 * (POST <basePath>/reauth, CSRF) → `checking`: the proof, for the same signed-in user only → a wrong
 * one rests again with a message, a right one → `refreshing`: the session's proof time is now → `done`,
 * redirected back to the callback URL. The user and the session stay the same.
 */
import { assign, setup } from "xstate"
import { AWAITING_INPUT, type FlowOutput, type Issued, type Reply } from "./types.js"
import { declareEffect, flowBase, flowTypes, tailActions } from "./setup.js"

/** A way the signed-in user can prove again who they are. */
export type StepUpMethod = "password" | "passkey" | "totp"

/** What a step-up run keeps between its page and the answer: whose proof, which ways, the passkey challenge. */
export interface StepUpPending {
  userId: string
  methods: StepUpMethod[]
  /** The passkey challenge the page's options carry, or null without passkeys. */
  challenge: string | null
}

/** What preparing answers: the page to show (and what to keep), or where to go instead (the sign-in page). */
export type StepUpPrepared = { ask: true; pending: StepUpPending; page: Record<string, unknown> } | { ask: false; redirect: string }

/** What checking a proof answers: accepted, or shown the page again with a message. */
export type StepUpVerdict = { pass: true } | { pass: false; message: string }

const reauthPage = (reply: Reply | null, message: string): Reply => ({
  type: "page",
  page: "reauth",
  data: { ...(reply?.type === "page" ? reply.data : {}), message },
})

export const stepUpMachine = setup({
  types: flowTypes<StepUpPending>(),
  actors: {
    /** Who is signed in, which proofs they have, and the page asking for one. */
    stepUpPrepare: declareEffect<StepUpPrepared, { params: Record<string, unknown> }>("stepUpPrepare"),
    /** Checks the proof for the signed-in user of `pending` (counted with the sign-in's limits). */
    stepUpVerify: declareEffect<StepUpVerdict, { params: Record<string, unknown>; pending: StepUpPending | null }>("stepUpVerify"),
    /** Sets the session's proof time to now (the same user and session) and says where to go. */
    refreshProof: declareEffect<Issued, { userId: string }>("refreshProof"),
  },
  guards: {
    /** The preparation found a signed-in user with a proof to ask for. */
    asks: (_: unknown, params: { prepared: StepUpPrepared }) => params.prepared.ask,
    /** The proof was accepted. */
    passed: (_: unknown, params: { verdict: StepUpVerdict }) => params.verdict.pass,
  },
  actions: tailActions,
}).createMachine({
  id: "step-up",
  ...flowBase,
  states: {
    idle: {
      tags: [AWAITING_INPUT],
      on: { START: { target: "preparing" } },
    },
    preparing: {
      invoke: {
        id: "stepUpPrepare",
        src: "stepUpPrepare",
        input: ({ event }) => ({ params: event.params }),
        onDone: [
          {
            guard: { type: "asks", params: ({ event }) => ({ prepared: event.output }) },
            target: "awaiting",
            actions: assign(({ event }) =>
              event.output.ask
                ? { pending: event.output.pending, reply: { type: "page" as const, page: "reauth", data: event.output.page } }
                : {},
            ),
          },
          {
            target: "signIn",
            actions: assign({
              output: ({ event }): FlowOutput => ({
                ok: true,
                reply: { type: "redirect", url: event.output.ask ? "" : event.output.redirect },
              }),
            }),
          },
        ],
        onError: { target: "failed", actions: "fail" },
      },
    },
    awaiting: {
      tags: [AWAITING_INPUT],
      on: { PROVE: { target: "checking" } },
    },
    checking: {
      invoke: {
        id: "stepUpVerify",
        src: "stepUpVerify",
        input: ({ context, event }) => ({ params: event.params, pending: context.pending }),
        onDone: [
          { guard: { type: "passed", params: ({ event }) => ({ verdict: event.output }) }, target: "refreshing" },
          {
            target: "awaiting",
            actions: assign({ reply: ({ context, event }) => reauthPage(context.reply, event.output.pass ? "" : event.output.message) }),
          },
        ],
        onError: { target: "failed", actions: "fail" },
      },
    },
    refreshing: {
      invoke: {
        id: "refreshProof",
        src: "refreshProof",
        input: ({ context }) => ({ userId: context.pending?.userId ?? "" }),
        onDone: {
          target: "done",
          actions: assign({
            output: ({ event }): FlowOutput => ({
              ok: true,
              reply: { type: "redirect", url: event.output.redirect, cookies: event.output.cookies },
            }),
          }),
        },
        onError: { target: "failed", actions: "fail" },
      },
    },
    done: { type: "final" },
    signIn: { type: "final" },
    failed: { type: "final" },
  },
})
