/**
 * Email one-time code sign-in: SUBMIT (POST /signin/:id with the address) → `sending` → rests in `code`
 * on the code page; CODE (POST /callback/:id, step `code`) → `checking` → a wrong code rests again with
 * a message, the right one enters the shared sign-in tail. The flow keeps only the code's keyed hash.
 */
import { assign, setup } from "xstate"
import {
  AWAITING_INPUT,
  declareEffect,
  flowBase,
  flowTypes,
  type Identity,
  type Reply,
  signInTail,
  tailActions,
  tailActors,
  tailGuards,
} from "../../flow/index.js"

/** What the flow keeps between the two requests: the address and a keyed hash of its code. */
export interface PendingCode {
  email: string
  /** Random per code: salts the hash. */
  salt: string
  hash: string
  /** Milliseconds since the epoch. */
  expires: number
}
/** `sendCode` sent a code, or the `signIn` callback sent the browser elsewhere. */
export type Sent = { sent: PendingCode } | { redirect: string }
/** `checkCode` found the right code, or asks for another try. */
export type Checked = { identity: Identity } | { retry: string }

const codePage = (pending: PendingCode, message?: string): Reply => ({
  type: "page",
  page: "code",
  data: { email: pending.email, ...(message ? { message } : {}) },
})

export const emailCodeMachine = setup({
  types: flowTypes<PendingCode>(),
  actors: {
    ...tailActors,
    sendCode: declareEffect<Sent, { params: Record<string, unknown> }>("sendCode"),
    checkCode: declareEffect<Checked, { pending: PendingCode; code: unknown }>("checkCode"),
  },
  guards: {
    ...tailGuards,
    codeSent: (_, { sent }: { sent: Sent }) => "sent" in sent,
    codeRight: (_, { checked }: { checked: Checked }) => "identity" in checked,
  },
  actions: tailActions,
}).createMachine({
  id: "email-code",
  ...flowBase,
  states: {
    idle: { tags: [AWAITING_INPUT], on: { SUBMIT: "sending" } },
    sending: {
      invoke: {
        src: "sendCode",
        input: ({ event }) => ({ params: event.params }),
        onDone: [
          {
            guard: { type: "codeSent", params: ({ event }) => ({ sent: event.output }) },
            target: "code",
            actions: assign(({ event }) => {
              const { sent } = event.output as { sent: PendingCode }
              return { pending: sent, reply: codePage(sent) }
            }),
          },
          {
            target: "denied",
            actions: assign({
              output: ({ event }) => ({ ok: true, reply: { type: "redirect", url: (event.output as { redirect: string }).redirect } }),
            }),
          },
        ],
        onError: { target: "failed", actions: "fail" },
      },
    },
    code: { tags: [AWAITING_INPUT], on: { CODE: "checking" } },
    checking: {
      invoke: {
        src: "checkCode",
        input: ({ context, event }) => ({ pending: context.pending as PendingCode, code: event.params.code }),
        onDone: [
          {
            guard: { type: "codeRight", params: ({ event }) => ({ checked: event.output }) },
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
        onError: { target: "failed", actions: "fail" },
      },
    },
    ...signInTail,
  },
})
