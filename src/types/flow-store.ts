/**
 * The flow store port: where a resting flow's snapshot waits for the next request. Types only; the
 * sealed-cookie store and `RedisFlowStore` implement it.
 */
import type { CookieJar, CookieOption, OutCookie } from "./cookies.js"

/** The persisted form of a resting flow. `exp` is in seconds since the epoch. */
export interface FlowEnvelope {
  readonly v: 1
  readonly flow: string
  readonly flowId: string
  readonly provider: string
  readonly version: string
  readonly exp: number
  /**
   * Random per save: names this one snapshot, which resumes once (see `claimEnvelope`). Absent in
   * envelopes written before it existed; those are claimed by their flow id.
   */
  readonly nonce?: string
  /** Where to go after sign-in, when the request that started the flow named it (same origin). */
  readonly callbackUrl?: string
  readonly snapshot: unknown
}

/** What a store needs from the request: its cookies, the flow cookie to use, the secrets, the clock. */
export interface FlowStoreIO {
  readonly cookies: CookieJar
  /** Cookie name of this flow (one per provider), and its options. */
  readonly cookieName: string
  readonly cookieOptions: CookieOption["options"]
  /** Newest first. The first seals, all unseal. */
  readonly secrets: readonly string[]
  /** Milliseconds since the epoch. */
  readonly now: number
}

/** Where in-flight flows are kept between requests: a sealed cookie by default, or `RedisFlowStore`. */
export interface FlowStore {
  /** The flow's envelope, or null when there is none. Throws `FlowStateError` when it is unreadable. */
  load(io: FlowStoreIO): Promise<FlowEnvelope | null>
  /** Persists the envelope; returns the cookies to set. */
  save(envelope: FlowEnvelope, io: FlowStoreIO): Promise<readonly OutCookie[]>
  /** Forgets the flow (after it ended or failed); returns the cookies to set. */
  clear(io: FlowStoreIO): Promise<readonly OutCookie[]>
  /**
   * Optional server-side single-use records, for state that must outlive the browser that started a
   * flow (an email link opened on another device) when there is no adapter. `take` returns a value once.
   */
  readonly tokens?: {
    put(key: string, value: string, ttlMs: number): Promise<void>
    take(key: string): Promise<string | null>
  }
}
