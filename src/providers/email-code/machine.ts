/**
 * Email one-time code sign-in: SUBMIT (POST /signin/:id with the address) → `sending` → rests in `code`
 * with the code page; CODE (POST /callback/:id, step `code`) → `checking` → a wrong code rests again with
 * a message, the right one enters the shared sign-in tail. The flow keeps only the code's keyed hash.
 */
import { assign, setup } from "xstate"
import { AWAITING_INPUT, type FlowOutput, type GateResult, type Identity, type Issued, type Reply } from "../../machines/types.js"
import { fromPromise } from "xstate"
import type { PendingCode } from "./effects.js"

interface CodeContext {
  provider: string
  identity: Identity | null
  reply: Reply | null
  output: FlowOutput | null
  pending: PendingCode | null
}
type CodeEvent = { type: "SUBMIT" | "CODE" | "SHOW"; params: Record<string, unknown>; now: number }
type Sent = { sent: PendingCode } | { redirect: string }
type Checked = { identity: Identity } | { retry: string }

const codePage = (pending: PendingCode, message?: string): Reply => ({
  type: "page",
  page: "code",
  data: { email: pending.email, ...(message ? { message } : {}) },
})
const failed = { target: "failed", actions: "fail" } as const

function notProvided(): Promise<never> {
  return Promise.reject(new Error("effect not provided"))
}

export const emailCodeMachine = setup({
  types: { context: {} as CodeContext, events: {} as CodeEvent, input: {} as { provider: string }, output: {} as FlowOutput },
  actors: {
    sendCode: fromPromise<Sent, { params: Record<string, unknown> }>(notProvided),
    checkCode: fromPromise<Checked, { pending: PendingCode; code: unknown }>(notProvided),
    signInGate: fromPromise<GateResult, Identity>(notProvided),
    linkIdentity: fromPromise<Identity, Identity>(notProvided),
    issueSession: fromPromise<Issued, Identity>(notProvided),
  },
  actions: {
    fail: assign(({ event }) => ({ output: { ok: false, error: (event as unknown as { error?: unknown }).error } satisfies FlowOutput })),
  },
  guards: {
    codeSent: ({ event }) => "sent" in (event as unknown as { output: Sent }).output,
    codeRight: ({ event }) => "identity" in (event as unknown as { output: Checked }).output,
  },
}).createMachine({
  id: "email-code",
  initial: "idle",
  context: ({ input }) => ({ provider: input.provider, identity: null, reply: null, output: null, pending: null }),
  output: ({ context }) => context.output ?? { ok: false, error: new Error("flow ended without output") },
  states: {
    idle: { tags: [AWAITING_INPUT], on: { SUBMIT: "sending" } },
    sending: {
      invoke: {
        src: "sendCode",
        input: ({ event }) => ({ params: event.params }),
        onDone: [
          {
            guard: "codeSent",
            target: "code",
            actions: assign(({ event }) => {
              const { sent } = event.output as { sent: PendingCode }
              return { pending: sent, reply: codePage(sent) }
            }),
          },
          {
            target: "redirected",
            actions: assign({
              output: ({ event }) =>
                ({ ok: true, reply: { type: "redirect", url: (event.output as { redirect: string }).redirect } }) as FlowOutput,
            }),
          },
        ],
        onError: failed,
      },
    },
    code: { tags: [AWAITING_INPUT], on: { CODE: "checking" } },
    checking: {
      invoke: {
        src: "checkCode",
        input: ({ context, event }) => ({ pending: context.pending as PendingCode, code: event.params.code }),
        onDone: [
          {
            guard: "codeRight",
            target: "gate",
            actions: assign({ identity: ({ event }) => (event.output as { identity: Identity }).identity }),
          },
          {
            target: "code",
            actions: assign({
              reply: ({ context, event }) => codePage(context.pending as PendingCode, (event.output as { retry: string }).retry),
            }),
          },
        ],
        onError: failed,
      },
    },
    gate: {
      invoke: {
        src: "signInGate",
        input: ({ context }) => context.identity as Identity,
        onDone: [
          { guard: ({ event }) => event.output.allow, target: "linking" },
          {
            target: "redirected",
            actions: assign({
              output: ({ event }) =>
                ({ ok: true, reply: { type: "redirect", url: event.output.allow ? "" : event.output.redirect } }) as FlowOutput,
            }),
          },
        ],
        onError: failed,
      },
    },
    linking: {
      invoke: {
        src: "linkIdentity",
        input: ({ context }) => context.identity as Identity,
        onDone: { target: "issuing", actions: assign({ identity: ({ event }) => event.output }) },
        onError: failed,
      },
    },
    issuing: {
      invoke: {
        src: "issueSession",
        input: ({ context }) => context.identity as Identity,
        onDone: {
          target: "done",
          actions: assign({
            output: ({ event }) =>
              ({ ok: true, reply: { type: "redirect", url: event.output.redirect, cookies: event.output.cookies } }) as FlowOutput,
          }),
        },
        onError: failed,
      },
    },
    redirected: { type: "final" },
    done: { type: "final" },
    failed: { type: "final" },
  },
})
