/**
 * The parts of the Demo IdP (demo/idp.ts) that are plumbing around oidc-provider: the few of its (and
 * Koa's) types the demo uses (the package ships none), loading it, a per-IdP in-memory adapter, reading a
 * posted form, and dropping the IdP's own session cookie so every sign-in shows the account chooser.
 */
import type { IncomingMessage, ServerResponse } from "node:http"

// --- the few parts of oidc-provider (and Koa) used here; the package ships no types ------------------

export interface KoaContext {
  method: string
  path: string
  req: IncomingMessage
  res: ServerResponse
  status: number
  body: unknown
  type: string
  redirect(url: string): void
  oidc: {
    client?: { clientId: string }
    session?: { accountId?: string; grantIdFor(clientId: string): string | undefined }
    result?: { consent?: { grantId?: string } }
  }
}
export type KoaMiddleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>

export interface Grant {
  accountId: string
  clientId: string
  addOIDCScope(scope: string): void
  save(): Promise<string>
}

export interface Provider {
  use(fn: KoaMiddleware): void
  callback(): (req: IncomingMessage, res: ServerResponse) => void
  on(event: string, listener: (...args: unknown[]) => void): unknown
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ uid: string; prompt: { name: string } }>
  interactionResult(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>): Promise<string>
  Grant: { new (init: { accountId: string; clientId: string }): Grant; find(id: string): Promise<Grant | undefined> }
}
export type ProviderConstructor = new (issuer: string, configuration: Record<string, unknown>) => Provider

export async function loadProvider(): Promise<ProviderConstructor> {
  // a non-literal specifier: tsc does not look for type declarations the package does not have
  const specifier: string = "oidc-provider"
  return ((await import(specifier)) as { default: ProviderConstructor }).default
}

/** A request's body as text. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    req.on("error", reject)
  })
}

/** A posted form's fields. */
export async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new URLSearchParams(await readBody(req))
}

/**
 * Drops the IdP's own session cookies (`_session…`) from a request: no single sign-on, always the account
 * chooser. Logout (`/session/end…`) keeps them: it ends that session.
 */
export function withoutSessionCookie(req: IncomingMessage): void {
  const cookie = req.headers.cookie
  if (!cookie || req.url?.startsWith("/session/end")) return
  const kept = cookie.split(/;\s*/).filter((pair) => !pair.startsWith("_session"))
  if (kept.length > 0) req.headers.cookie = kept.join("; ")
  else delete req.headers.cookie
}

interface StoredEntry {
  payload: Record<string, unknown>
  expiresAt: number | undefined
}

/**
 * A per-server in-memory adapter for oidc-provider (the contract of its example adapter; its bundled one
 * is process-global and warns). Expired entries are dropped when read. Shared with the tests' provider.
 */
export function memoryAdapter(): new (model: string) => object {
  const store = new Map<string, StoredEntry>()
  const grantIndex = new Map<string, Set<string>>()
  const sessionUidIndex = new Map<string, string>()
  const userCodeIndex = new Map<string, string>()
  const grantable = new Set(["AccessToken", "AuthorizationCode", "RefreshToken", "DeviceCode", "BackchannelAuthenticationRequest"])

  const live = (key: string): StoredEntry | undefined => {
    const entry = store.get(key)
    if (entry && entry.expiresAt !== undefined && entry.expiresAt <= Date.now()) {
      store.delete(key)
      return undefined
    }
    return entry
  }

  return class MemoryOidcAdapter {
    constructor(private readonly model: string) {}

    private key(id: string): string {
      return `${this.model}:${id}`
    }

    async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void> {
      const key = this.key(id)
      store.set(key, { payload: { ...payload }, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : undefined })
      if (this.model === "Session" && typeof payload.uid === "string") sessionUidIndex.set(payload.uid, id)
      if (typeof payload.userCode === "string") userCodeIndex.set(payload.userCode, id)
      if (grantable.has(this.model) && typeof payload.grantId === "string") {
        const keys = grantIndex.get(payload.grantId) ?? new Set<string>()
        keys.add(key)
        grantIndex.set(payload.grantId, keys)
      }
    }

    async find(id: string): Promise<Record<string, unknown> | undefined> {
      const entry = live(this.key(id))
      return entry ? { ...entry.payload } : undefined
    }

    async findByUid(uid: string): Promise<Record<string, unknown> | undefined> {
      const id = sessionUidIndex.get(uid)
      return id === undefined ? undefined : this.find(id)
    }

    async findByUserCode(userCode: string): Promise<Record<string, unknown> | undefined> {
      const id = userCodeIndex.get(userCode)
      return id === undefined ? undefined : this.find(id)
    }

    async consume(id: string): Promise<void> {
      const entry = live(this.key(id))
      if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000)
    }

    async destroy(id: string): Promise<void> {
      store.delete(this.key(id))
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      for (const key of grantIndex.get(grantId) ?? []) store.delete(key)
      grantIndex.delete(grantId)
    }
  }
}
