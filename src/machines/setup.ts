/**
 * The one `setup()` the built-in flows share: their context, events, and every effect they may invoke,
 * declared by name. Effects are placeholders here; the runtime supplies the real ones with
 * `machine.provide({ actors })`, so machines stay pure and testable without I/O.
 */
import { assign, fromPromise, setup } from "xstate"
import type { AuthorizationStart, FlowInput, FlowOutput, GateResult, Identity, Issued, OAuthPending, Reply } from "./types.js"

/** What a flow keeps between steps. Everything here may be persisted: no secrets from the user. */
export interface FlowContext {
  provider: string
  startedAt: number
  /** Where to go after sign-in, fixed when the flow started. */
  callbackUrl: string | null
  identity: Identity | null
  reply: Reply | null
  output: FlowOutput | null
  /** OAuth / OIDC: the checks between redirect and callback. */
  oauth: OAuthPending | null
  /** Extra steps (`extendFlow`): attempts and whatever each step keeps, by step id. */
  steps: Record<string, StepState>
}

/** What one extra step keeps between its requests. */
export interface StepState {
  attempts: number
  data?: Record<string, unknown>
}

/** An HTTP request, as the one event the runtime sends per request. */
export interface FlowEvent {
  type: "SUBMIT" | "CALLBACK" | "STEP"
  params: Record<string, unknown>
  now: number
}

function notProvided(name: string): () => Promise<never> {
  return () => Promise.reject(new Error(`effect "${name}" was not provided by the runtime`))
}

export const flowSetup = setup({
  types: {
    context: {} as FlowContext,
    events: {} as FlowEvent,
    input: {} as FlowInput,
    output: {} as FlowOutput,
    tags: {} as "awaiting-input",
  },
  actors: {
    /** credentials: check the submitted fields, answer who the user is. */
    authorize: fromPromise<Identity, { params: Record<string, unknown> }>(notProvided("authorize")),
    /** OAuth / OIDC: build the authorization request and its checks. */
    startAuthorization: fromPromise<AuthorizationStart, { params: Record<string, unknown> }>(notProvided("startAuthorization")),
    /** OAuth / OIDC: validate the callback, redeem the code, read the profile. */
    finishAuthorization: fromPromise<Identity, { params: Record<string, unknown>; pending: OAuthPending }>(
      notProvided("finishAuthorization"),
    ),
    /** Email: check the address, ask the `signIn` callback, store a token, send the link. */
    requestLink: fromPromise<{ redirect: string }, { params: Record<string, unknown> }>(notProvided("requestLink")),
    /** Email: consume the link's token (single use, not expired, same address). */
    verifyLink: fromPromise<Identity, { params: Record<string, unknown> }>(notProvided("verifyLink")),
    /** The `signIn` callback: allow, deny (throws AccessDenied), or redirect elsewhere. */
    signInGate: fromPromise<GateResult, Identity>(notProvided("signInGate")),
    /** With an adapter: find, link or create the user and account (the identity may change). */
    linkIdentity: fromPromise<Identity, Identity>(notProvided("linkIdentity")),
    /** Create the session (cookie or database), fire events, resolve the redirect. */
    issueSession: fromPromise<Issued, Identity>(notProvided("issueSession")),
    /**
     * WebAuthn: decide register or authenticate, issue the options with a fresh challenge, and say for
     * whom a passkey is registered (`user`); or refuse the request with a reason (400 JSON).
     */
    webauthnOptions: fromPromise<
      { options: { action: "register" | "authenticate"; options: unknown }; user: Identity["user"] | null } | { refused: string },
      { params: Record<string, unknown> }
    >(notProvided("webauthnOptions")),
    /** WebAuthn: verify the response against the options issued (challenge, origin, RP ID, user verification). */
    webauthnVerify: fromPromise<Identity, { params: Record<string, unknown>; issued: Reply | null; user: Identity["user"] | null }>(
      notProvided("webauthnVerify"),
    ),
  },
  actions: {
    /** Ends the flow with the error an effect threw (`onError` events carry it as `error`). */
    fail: assign(({ event }) => ({
      output: { ok: false, error: (event as unknown as { error?: unknown }).error } satisfies FlowOutput,
    })),
  },
})

/** What every flow machine starts with: `idle` first, the shared context, the output it ends with. */
export const flowBase = {
  initial: "idle" as const,
  context: ({ input }: { input: FlowInput }) => initialContext(input),
  output: ({ context }: { context: FlowContext }): FlowOutput =>
    context.output ?? { ok: false, error: new Error("flow ended without output") },
}

/** The initial context of a flow. */
export function initialContext(input: FlowInput): FlowContext {
  return {
    provider: input.provider,
    startedAt: input.now,
    callbackUrl: input.callbackUrl ?? null,
    identity: null,
    reply: null,
    output: null,
    oauth: null,
    steps: {},
  }
}

/**
 * The tail every sign-in flow ends in, entered once the identity is established:
 * `gate` (signIn callback) → `linking` (adapter users and accounts) → `issuing` (session, events,
 * redirect) → `done`; or `denied` / `failed`.
 */
export const signInTail = {
  gate: flowSetup.createStateConfig({
    invoke: {
      id: "signInGate",
      src: "signInGate",
      input: ({ context }) => context.identity as Identity,
      onDone: [
        { guard: ({ event }) => event.output.allow, target: "linking" },
        {
          target: "denied",
          actions: assign({
            output: ({ event }): FlowOutput => ({
              ok: true,
              reply: { type: "redirect", url: event.output.allow ? "" : event.output.redirect },
            }),
          }),
        },
      ],
      onError: { target: "failed", actions: "fail" },
    },
  }),
  linking: flowSetup.createStateConfig({
    invoke: {
      id: "linkIdentity",
      src: "linkIdentity",
      input: ({ context }) => context.identity as Identity,
      onDone: { target: "issuing", actions: assign({ identity: ({ event }) => event.output }) },
      onError: { target: "failed", actions: "fail" },
    },
  }),
  issuing: flowSetup.createStateConfig({
    invoke: {
      id: "issueSession",
      src: "issueSession",
      input: ({ context }) => context.identity as Identity,
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
  }),
  done: flowSetup.createStateConfig({ type: "final" }),
  denied: flowSetup.createStateConfig({ type: "final" }),
  failed: flowSetup.createStateConfig({ type: "final" }),
}
