/**
 * A flow that rests between requests, declared with `defineFlow` as an application would: SUBMIT
 * (password "pw") → rests in `confirm` → STEP (code 123456) → session; a wrong code rests again, the
 * third wrong one fails the flow. Options: `ttl` (seconds), `extraState` (another deploy of the machine),
 * `slow` (an effect that never finishes).
 */
import { assign, fromPromise, setup } from "xstate"
import { defineFlow } from "../../src/index.js"
import type { FlowDefinition } from "../../src/index.js"
import type { FlowOutput, GateResult, Identity, Issued, Reply } from "../../src/machines/types.js"

interface Ctx {
  provider: string
  identity: Identity | null
  reply: Reply | null
  output: FlowOutput | null
  tries: number
}
type Ev = { type: "SUBMIT" | "STEP"; params: Record<string, unknown>; now: number }

export function confirmMachine(extraState = false) {
  return setup({
    types: { context: {} as Ctx, events: {} as Ev, input: {} as { provider: string }, output: {} as FlowOutput },
    actors: {
      authorize: fromPromise<Identity, Record<string, unknown>>(async () => {
        throw new Error("not provided")
      }),
      signInGate: fromPromise<GateResult, Identity>(async () => ({ allow: true })),
      issueSession: fromPromise<Issued, Identity>(async () => ({ redirect: "", cookies: [] })),
    },
  }).createMachine({
    id: "confirm",
    initial: "idle",
    context: ({ input }) => ({ provider: input.provider, identity: null, reply: null, output: null, tries: 0 }),
    output: ({ context }) => context.output as FlowOutput,
    states: {
      idle: { tags: ["awaiting-input"], on: { SUBMIT: "authorizing" } },
      authorizing: {
        invoke: {
          src: "authorize",
          input: ({ event }) => event.params,
          onDone: {
            target: "confirm",
            actions: assign({
              identity: ({ event }) => event.output,
              reply: () => ({ type: "page", page: "confirm", data: { html: "<p>type the code</p>" } }) as Reply,
            }),
          },
          onError: { target: "failed", actions: assign({ output: ({ event }) => ({ ok: false, error: event.error }) }) },
        },
      },
      confirm: {
        tags: ["awaiting-input"],
        on: {
          STEP: [
            { guard: ({ event }) => event.params.code === "123456", target: "issuing" },
            {
              guard: ({ context }) => context.tries >= 2,
              target: "failed",
              actions: assign({ output: () => ({ ok: false, error: new Error("too many tries") }) }),
            },
            { target: "confirm", reenter: true, actions: assign({ tries: ({ context }) => context.tries + 1 }) },
          ],
        },
      },
      issuing: {
        invoke: {
          src: "issueSession",
          input: ({ context }) => context.identity as Identity,
          onDone: {
            target: "done",
            actions: assign({
              output: ({ event }) => ({ ok: true, reply: { type: "redirect", url: event.output.redirect, cookies: event.output.cookies } }),
            }),
          },
          onError: { target: "failed", actions: assign({ output: ({ event }) => ({ ok: false, error: event.error }) }) },
        },
      },
      ...(extraState ? { extra: { type: "final" as const } } : {}),
      done: { type: "final" },
      failed: { type: "final" },
    },
  })
}

export function confirmFlow(options: { extraState?: boolean; ttl?: number; slow?: boolean } = {}): FlowDefinition {
  return defineFlow({
    id: "confirm",
    providerType: "credentials",
    machine: confirmMachine(options.extraState),
    ttl: options.ttl ?? 900,
    routes: [
      { method: "POST", action: "callback", event: "SUBMIT", start: true, csrf: true },
      { method: "POST", action: "callback", step: "confirm", event: "STEP", csrf: true, params: ["code"] },
    ],
    effects: () => ({
      authorize: fromPromise<Identity, Record<string, unknown>>(async ({ input }) => {
        if (options.slow) await new Promise(() => {})
        if (input.password !== "pw") throw new Error("bad")
        return { user: { id: "7", name: "Carol" }, account: { provider: "two-step", providerAccountId: "7", type: "credentials" } }
      }),
    }),
  })
}
