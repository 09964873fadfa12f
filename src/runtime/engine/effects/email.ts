/**
 * The email flow's effects. `requestLink`: normalise and validate the address, ask the `signIn`
 * callback (`email.verificationRequest`), store the token's hash, send the link; a send failure takes
 * the token back. `verifyLink`: consume the token (single use, not expired, same address); the use is
 * also claimed in the server-state port, so a store that does not delete cannot let a link in twice.
 *
 * Stored tokens are `sha256(token + secret)` as in Auth.js: written with the newest secret, read with
 * every secret (and Auth.js' comma-joined list), so a pending link survives a secret rotation. With
 * several email providers the hashed token carries the provider id: a link works only at its own callback.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto"
import { EmailSignInError, MissingAdapter, Verification } from "../../../errors.js"
import type { Identity } from "../../../machines/types.js"
import type { EmailConfig } from "../../../providers/email-types.js"
import type { VerificationToken } from "../../../adapters/types.js"
import type { FlowServices, RequestServices } from "../../../types/flow.js"
import { effect } from "./effect.js"
import { stableUserId } from "../../sessions/user-id.js"
import type { FlowStore } from "../store.js"
import { stateKey } from "../../limits/server-state.js"
import { providerConfig } from "../provider-config.js"
import { emailAccount } from "../../limits/account-key.js"

/** The adapter as the services hand it: every call wrapped. */
type ServicesAdapter = NonNullable<RequestServices["adapter"]>

const DEFAULT_MAX_AGE_S = 24 * 60 * 60

function hashToken(token: string, secret: string): string {
  return createHash("sha256").update(`${token}${secret}`).digest("hex")
}

/**
 * The token as it is hashed for storage. With several email providers it is bound to the one that mailed
 * it, so a link of one provider is no good at another's callback (whose `signIn` rules may differ); with
 * one, it is the token itself, as Auth.js stores it.
 */
function boundToken(services: FlowServices, provider: EmailConfig, token: string): string {
  let emailProviders = 0
  for (const p of services.providers.values()) if (p.type === "email") emailProviders++
  return emailProviders > 1 ? `${token}:${provider.id}` : token
}

function secretsFor(services: FlowServices, provider: EmailConfig): string[] {
  if (provider.secret) return [provider.secret]
  const secrets = [...services.secrets]
  return secrets.length > 1 ? [...secrets, secrets.join(",")] : secrets
}

function providerOf(services: FlowServices): EmailConfig {
  return providerConfig(services, "email")
}

/** Where pending links live: the adapter's verification tokens, or the flow store's single-use records. */
interface VerificationStore {
  create(record: VerificationToken): Promise<void>
  use(identifier: string | undefined, token: string): Promise<VerificationToken | null>
  getUserByEmail(email: string): Promise<{ id: string; email: string; emailVerified: Date | null } | null>
}

/** The adapter's store, made once per adapter (not per request). */
const adapterStores = new WeakMap<ServicesAdapter, VerificationStore>()

function adapterStore(adapter: ServicesAdapter): VerificationStore {
  let store = adapterStores.get(adapter)
  if (!store) {
    store = {
      create: async (record) => void (await adapter.createVerificationToken(record)),
      use: (identifier, token) => adapter.useVerificationToken({ identifier, token }),
      getUserByEmail: (email) => adapter.getUserByEmail(email),
    }
    adapterStores.set(adapter, store)
  }
  return store
}

function flowStoreTokens(services: FlowServices, tokens: NonNullable<FlowStore["tokens"]>): VerificationStore {
  return {
    create: (record) =>
      tokens.put(
        `email:${encodeURIComponent(record.identifier)}:${record.token}`,
        JSON.stringify({ identifier: record.identifier, expires: record.expires.toISOString() }),
        record.expires.getTime() - services.now,
      ),
    // Keyed by address and token hash: a link opened with another address never burns the real one.
    async use(identifier, token) {
      if (!identifier) return null
      const raw = await tokens.take(`email:${encodeURIComponent(identifier)}:${token}`)
      if (!raw) return null
      const stored: unknown = JSON.parse(raw)
      if (typeof stored !== "object" || stored === null || !("identifier" in stored) || !("expires" in stored)) return null
      const { identifier: storedIdentifier, expires } = stored
      if (typeof storedIdentifier !== "string" || typeof expires !== "string") return null
      return { identifier: storedIdentifier, token, expires: new Date(expires) }
    },
    getUserByEmail: async () => null,
  }
}

function verificationStore(services: FlowServices): VerificationStore {
  const { adapter, tokens } = services
  if (adapter) return adapterStore(adapter)
  if (tokens) return flowStoreTokens(services, tokens)
  throw new MissingAdapter("Email sign-in needs an adapter or a flow store that keeps tokens (Redis).")
}

/** A user for an address with no stored user: stable id without an adapter (JWT `sub`). */
function newEmailUser(services: FlowServices, provider: EmailConfig, email: string) {
  return { id: services.adapter ? randomUUID() : stableUserId(provider.id, email), email, emailVerified: null }
}

export const requestLink = effect<{ redirect: string }, { params: Record<string, unknown> }>(async (services, input) => {
  const provider = providerOf(services)
  const store = verificationStore(services)
  let email: string
  try {
    // the body's address only, normalised: the one the emailAddress limit counted
    email = emailAccount(provider, input.params)
  } catch (err) {
    throw new EmailSignInError("The email address was refused.", { err })
  }
  const user = (await store.getUserByEmail(email)) ?? newEmailUser(services, provider, email)
  const account = { providerAccountId: email, userId: user.id, type: "email" as const, provider: provider.id }
  const verdict = await services.askSignIn({ user, account, email: { verificationRequest: true } })
  if (!verdict.allow) return { redirect: verdict.redirect }

  const token = (await provider.generateVerificationToken?.()) ?? randomBytes(32).toString("hex")
  const expires = new Date(services.now + (provider.maxAge ?? DEFAULT_MAX_AGE_S) * 1000)
  const callbackUrl = `${services.authUrl}/callback/${encodeURIComponent(provider.id)}`
  const url = new URL(callbackUrl)
  // written once: each `url.searchParams.set` would serialise the whole URL again
  url.search = new URLSearchParams({ callbackUrl: services.callbackUrl, token, email }).toString()
  const stored = { identifier: email, token: hashToken(boundToken(services, provider, token), provider.secret ?? services.secrets[0]) }
  await store.create({ ...stored, expires })
  try {
    await provider.sendVerificationRequest({
      identifier: email,
      token,
      expires,
      url: url.href,
      // as Auth.js hands it: the provider with its two endpoints
      provider: { ...provider, signinUrl: `${services.authUrl}/signin/${encodeURIComponent(provider.id)}`, callbackUrl },
      theme: services.theme,
      language: services.language,
      // made on first read: a web Request (headers, body stream, signal) costs more than the rest of the send
      get request() {
        return services.request
      },
    })
  } catch (err) {
    await store.use(stored.identifier, stored.token).catch(() => null)
    const error = new EmailSignInError("The sign-in email could not be sent.", { err, provider: provider.id })
    error.code = "send_failed"
    throw error
  }
  return { redirect: verifyRequestHref(services.authUrl, provider.id) }
})

/** The "check your email" page's address per auth URL and provider (as `new URL` writes it), made once. */
const verifyRequestHrefs = new Map<string, string>()
const MAX_HREFS_KEPT = 64

function verifyRequestHref(authUrl: string, providerId: string): string {
  const key = `${authUrl} ${providerId}`
  let href = verifyRequestHrefs.get(key)
  if (href === undefined) {
    const next = new URL(`${authUrl}/verify-request`)
    next.search = new URLSearchParams({ provider: providerId, type: "email" }).toString()
    href = next.href
    if (verifyRequestHrefs.size < MAX_HREFS_KEPT) verifyRequestHrefs.set(key, href)
  }
  return href
}

export const verifyLink = effect<Identity, { params: Record<string, unknown> }>(async (services, input) => {
  const provider = providerOf(services)
  const store = verificationStore(services)
  const token = input.params.token
  const email = typeof input.params.email === "string" ? input.params.email : undefined
  if (typeof token !== "string" || token === "") throw new Verification("The link has no token.")
  let invite: VerificationToken | null = null
  let hashed = ""
  // the bound token first; the plain one for links Auth.js mailed before the move
  const bound = boundToken(services, provider, token)
  const candidates = bound === token ? [token] : [bound, token]
  search: for (const secret of secretsFor(services, provider)) {
    for (const candidate of candidates) {
      hashed = hashToken(candidate, secret)
      invite = await store.use(email, hashed)
      if (invite) break search
    }
  }
  const expired = invite !== null && new Date(invite.expires).getTime() < services.now
  if (!invite || expired || (email !== undefined && invite.identifier !== email)) {
    throw new Verification("The sign-in link is invalid, used or expired.", { hasInvite: !!invite, expired })
  }
  // Single use whatever the store does (an adapter whose useVerificationToken does not delete, or two
  // clicks raced on instances): the first use claims the token for the rest of its lifetime.
  const lifetime = new Date(invite.expires).getTime() - services.now
  if (!(await services.serverState.claim(stateKey("email", invite.identifier, hashed), lifetime))) {
    throw new Verification("The sign-in link was already used.")
  }
  const identifier = invite.identifier
  const user = (await store.getUserByEmail(identifier)) ?? newEmailUser(services, provider, identifier)
  return {
    user: { ...user, id: String(user.id) },
    account: { providerAccountId: identifier, userId: String(user.id), type: "email", provider: provider.id },
  }
})
