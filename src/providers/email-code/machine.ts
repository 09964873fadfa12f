/**
 * Email one-time code sign-in: SUBMIT (POST /signin/:id with the address) → `sending` → rests in `code`
 * on the code page; CODE (POST /callback/:id, step `code`) → `checking` → a wrong code rests again with
 * a message, the right one enters the shared sign-in tail. The flow keeps only an HMAC of the code.
 */
import { assign, setup } from "xstate"
import { AWAITING_INPUT, declareEffect, flowBase, flowTypes, signInTail, tailActions, tailActors, tailGuards } from "../../flow/index.js"
import type { FlowOutput, Identity, Reply } from "../../flow/index.js"

/** What the flow keeps between its two requests: the address, an HMAC of the code, its expiry (ms). */
export type PendingCode = { email: string; hash: string; expires: number }
/** `sendCode` mailed a code (`pending`), or the `signIn` callback sends the browser to `redirect`. */
export type Sent = { pending: PendingCode | null; redirect: string }
/** `checkCode` found the right code (`identity`), or asks for another try with `retry` as the message. */
export type Checked = { identity: Identity | null; retry: string }

const codePage = (p: PendingCode | null, message?: string): Reply => ({ type: "page", page: "code", data: { email: p?.email, message } })
const output = <T>({ event }: { event: { output: T } }) => event.output
const redirectTo = (url: string): FlowOutput => ({ ok: true, reply: { type: "redirect", url } })

/** The email code flow's machine: pure, its two effects declared by name (see the module comment). */
export const emailCodeMachine = setup({
  types: flowTypes<PendingCode>(),
  actors: {
    ...tailActors,
    sendCode: declareEffect<Sent, { params: Record<string, unknown> }>("sendCode"),
    checkCode: declareEffect<Checked, { pending: PendingCode | null; code: unknown }>("checkCode"),
  },
  guards: { ...tailGuards, codeSent: (_, sent: Sent) => sent.pending !== null, codeRight: (_, out: Checked) => out.identity !== null },
  actions: { ...tailActions, showCode: assign((_, sent: Sent) => ({ pending: sent.pending, reply: codePage(sent.pending) })) },
}).createMachine({
  id: "email-code",
  ...flowBase,
  states: {
    idle: { tags: [AWAITING_INPUT], on: { SUBMIT: "sending" } },
    sending: {
      invoke: {
        id: "sendCode",
        src: "sendCode",
        input: ({ event }) => ({ params: event.params }),
        onDone: [
          { guard: { type: "codeSent", params: output }, target: "code", actions: { type: "showCode", params: output } },
          { target: "denied", actions: assign({ output: ({ event }) => redirectTo(event.output.redirect) }) },
        ],
        onError: { target: "failed", actions: "fail" },
      },
    },
    code: { tags: [AWAITING_INPUT], on: { CODE: "checking" } },
    checking: {
      invoke: {
        id: "checkCode",
        src: "checkCode",
        input: ({ context, event }) => ({ pending: context.pending, code: event.params.code }),
        onDone: [
          {
            guard: { type: "codeRight", params: output },
            target: "gate",
            actions: assign({ identity: ({ event }) => event.output.identity }),
          },
          { target: "code", actions: assign({ reply: ({ context, event }) => codePage(context.pending, event.output.retry) }) },
        ],
        onError: { target: "failed", actions: "fail" },
      },
    },
    ...signInTail,
  },
})
