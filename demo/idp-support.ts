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

export function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => resolve(new URLSearchParams(Buffer.concat(chunks).toString("utf8"))))
    req.on("error", reject)
  })
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

/** A per-IdP in-memory adapter (oidc-provider's bundled one is process-global and warns). */
export function memoryAdapter(): new (model: string) => object {
  const store = new Map<string, { payload: Record<string, unknown>; expiresAt: number | undefined }>()
  const byGrant = new Map<string, Set<string>>()
  const sessionByUid = new Map<string, string>()
  return class DemoMemoryAdapter {
    constructor(private readonly model: string) {}
    private key(id: string): string {
      return `${this.model}:${id}`
    }
    async upsert(id: string, payload: Record<string, unknown>, expiresIn?: number): Promise<void> {
      const key = this.key(id)
      store.set(key, { payload: { ...payload }, expiresAt: expiresIn ? Date.now() + expiresIn * 1000 : undefined })
      if (this.model === "Session" && typeof payload.uid === "string") sessionByUid.set(payload.uid, id)
      if (typeof payload.grantId === "string") byGrant.set(payload.grantId, (byGrant.get(payload.grantId) ?? new Set()).add(key))
    }
    async find(id: string): Promise<Record<string, unknown> | undefined> {
      const key = this.key(id)
      const entry = store.get(key)
      if (entry?.expiresAt !== undefined && entry.expiresAt <= Date.now()) store.delete(key)
      else if (entry) return { ...entry.payload }
      return undefined
    }
    async findByUid(uid: string): Promise<Record<string, unknown> | undefined> {
      const id = sessionByUid.get(uid)
      return id === undefined ? undefined : this.find(id)
    }
    async findByUserCode(): Promise<undefined> {
      return undefined
    }
    async consume(id: string): Promise<void> {
      const entry = store.get(this.key(id))
      if (entry) entry.payload.consumed = Math.floor(Date.now() / 1000)
    }
    async destroy(id: string): Promise<void> {
      store.delete(this.key(id))
    }
    async revokeByGrantId(grantId: string): Promise<void> {
      for (const key of byGrant.get(grantId) ?? []) store.delete(key)
      byGrant.delete(grantId)
    }
  }
}
