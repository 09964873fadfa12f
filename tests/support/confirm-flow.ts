/**
 * A flow that rests between requests, written only with the public kit (`authchart/flow`) as an
 * application would: SUBMIT (password "pw") → rests in `confirm` → STEP (code 123456) → the shared
 * sign-in tail → session; a wrong code rests again, the third wrong one fails the flow. Options: `ttl`
 * (seconds), `extraState` (another deploy of the machine), `slow` (an effect that never finishes),
 * `formTarget` (an origin its pages' forms may post to), `packages` (optional packages it requires).
 *
 * It declares all five things only a flow knows (tests/flow-declarations.test.ts): its block on the
 * sign-in page (a password form posting to its callback), the limit on its first route (password tries
 * per client and per `username`), the origin its pages' forms may post to (`formTarget`), how it
 * links the identity with an adapter (the name gets " (confirmed)"), and what it requires (the adapter
 * methods `getUser`, and `packages`).
 */
import { assign, setup } from "xstate"
import {
  AWAITING_INPUT,
  declareEffect,
  defineFlow,
  effect,
  type FlowContext,
  type FlowDefinition,
  type FlowEvent,
  flowBase,
  flowTypes,
  html,
  type Identity,
  renderStepPage,
  type SignInBlock,
  signInTail,
  tailActions,
  tailActors,
  tailGuards,
} from "authchart/flow"

/** What the flow keeps while it waits for the code: the wrong tries so far. */
interface ConfirmPending {
  tries: number
}

const MAX_TRIES = 3

/** An origin the pages' forms may lead to besides the app (their CSP `form-action`), for the `formTarget` option. */
export const CONFIRM_ORIGIN = "https://confirm.example"

/** The flow's block on the sign-in page: a username and password form posting to the provider's callback. */
const confirmBlock = (provider: { id: string; name: string }, urls: { callbackUrl: string }): SignInBlock => ({
  labels: ["Username", "Password"],
  method: "a confirmation code",
  render: ({ hidden, label }) =>
    html`<div class="provider" data-flow="confirm"><form action="${urls.callbackUrl}" method="POST">${hidden}<label for="confirm-username-${provider.id}">${label("Username")}</label><input id="confirm-username-${provider.id}" name="username" autocomplete="username"><label for="confirm-password-${provider.id}">${label("Password")}</label><input id="confirm-password-${provider.id}" name="password" type="password" required><button type="submit">Continue with ${provider.name}</button></form></div>`,
})

export function confirmMachine(extraState = false) {
  return setup({
    types: flowTypes<ConfirmPending>(),
    actors: { ...tailActors, authorize: declareEffect<Identity, { params: Record<string, unknown> }>("authorize") },
    guards: {
      ...tailGuards,
      codeMatches: ({ event }: { event: FlowEvent }) => event.params.code === "123456",
      lastTry: ({ context }: { context: FlowContext<ConfirmPending> }) => (context.pending?.tries ?? 0) >= MAX_TRIES - 1,
    },
    actions: tailActions,
  }).createMachine({
    id: "confirm",
    ...flowBase,
    states: {
      idle: { tags: [AWAITING_INPUT], on: { SUBMIT: "authorizing" } },
      authorizing: {
        invoke: {
          id: "authorize",
          src: "authorize",
          input: ({ event }) => ({ params: event.params }),
          onDone: {
            target: "confirm",
            actions: assign({
              identity: ({ event }) => event.output,
              pending: { tries: 0 },
              reply: { type: "page", page: "confirm" },
            }),
          },
          onError: { target: "failed", actions: "fail" },
        },
      },
      confirm: {
        tags: [AWAITING_INPUT],
        on: {
          STEP: [
            { guard: "codeMatches", target: "gate", actions: assign({ pending: null, reply: null }) },
            {
              guard: "lastTry",
              target: "failed",
              actions: assign({ output: { ok: false, error: new Error("too many tries") } }),
            },
            {
              target: "confirm",
              reenter: true,
              actions: assign({ pending: ({ context }) => ({ tries: (context.pending?.tries ?? 0) + 1 }) }),
            },
          ],
        },
      },
      ...(extraState ? { extra: { type: "final" as const } } : {}),
      ...signInTail,
    },
  })
}

export function confirmFlow(
  options: { extraState?: boolean; ttl?: number; slow?: boolean; formTarget?: string; packages?: readonly string[] } = {},
): FlowDefinition {
  return defineFlow({
    id: "confirm",
    machine: confirmMachine(options.extraState),
    ttl: options.ttl ?? 900,
    routes: [
      {
        method: "POST",
        action: "callback",
        event: "SUBMIT",
        start: true,
        csrf: true,
        params: ["password"],
        // password tries per client, and per (username, client)
        limit: {
          rules: ["passwordClient", "passwordAccount"],
          account: (_provider, body) => (typeof body?.username === "string" && body.username ? body.username.toLowerCase() : undefined),
        },
      },
      { method: "POST", action: "callback", step: "confirm", event: "STEP", csrf: true, params: ["code"] },
    ],
    actors: {
      authorize: effect<Identity, { params: Record<string, unknown> }>(async (_ctx, input) => {
        if (options.slow) await new Promise(() => {})
        if (input.params.password !== "pw") throw new Error("bad")
        return { user: { id: "7", name: "Carol" }, account: { provider: "two-step", providerAccountId: "7", type: "credentials" } }
      }),
    },
    pages: {
      confirm: (props) => renderStepPage({ ...props, maxAttempts: MAX_TRIES }, { title: "Confirm", fields: "<p>type the code</p>" }),
    },
    signInBlock: confirmBlock,
    formTargets: () => (options.formTarget ? [options.formTarget] : []),
    // with an adapter: the user as confirmed (a real flow would find or create it in the adapter)
    link: (_ctx, identity) => ({ ...identity, user: { ...identity.user, name: `${identity.user.name ?? ""} (confirmed)` } }),
    requires: { adapterMethods: ["getUser"], packages: options.packages ?? [] },
  })
}
