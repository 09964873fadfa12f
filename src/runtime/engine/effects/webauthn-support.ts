/**
 * What the WebAuthn effects share: the optional `@simplewebauthn/server` peer (loaded on first use),
 * the relying party, base64 conversions (credential ids are stored as standard base64, as Auth.js does;
 * the WebAuthn JSON uses base64url), and the record of challenges already answered.
 */
import { AuthError, MissingAdapter, MissingDependency } from "../../../errors.js"
import type { RelayingParty, WebAuthnConfig } from "../../../providers/webauthn-types.js"
import type { RequestServices } from "../../../types/flow.js"
import { stateKey } from "../../limits/server-state.js"

/** The adapter as the services hand it: every call wrapped. */
type ServicesAdapter = NonNullable<RequestServices["adapter"]>

type SimpleWebAuthnServer = typeof import("@simplewebauthn/server")

/** How long an issued challenge may be answered: the flow's lifetime (5 minutes). */
export const CHALLENGE_TTL_S = 5 * 60

const PEER = "@simplewebauthn/server"

let loading: Promise<SimpleWebAuthnServer> | undefined

/**
 * `@simplewebauthn/server`, imported once; a `MissingDependency` naming the package when it cannot be
 * loaded (the next call tries again).
 */
export function simpleWebAuthn(): Promise<SimpleWebAuthnServer> {
  loading ??= import("@simplewebauthn/server").catch((error: unknown) => {
    loading = undefined
    throw new MissingDependency(`Passkeys are verified by the "${PEER}" package, which could not be loaded: npm install ${PEER}`, {
      packages: [PEER],
      err: error,
    })
  })
  return loading
}

export function providerOf(services: RequestServices): WebAuthnConfig {
  const config = services.provider?.config
  if (config?.type !== "webauthn") throw new AuthError("Provider must be WebAuthn.")
  return config
}

export function requireAdapter(services: RequestServices): ServicesAdapter {
  const adapter = services.adapter
  if (!adapter) throw new MissingAdapter("WebAuthn needs an adapter to keep users and passkeys.")
  return adapter
}

const first = (value: string | string[] | undefined): string | undefined => (Array.isArray(value) ? value[0] : value)

/** Each provider's relying party for the auth URL it was last worked out for. */
const relyingParties = new WeakMap<WebAuthnConfig, { authUrl: string; rp: Readonly<RelayingParty> }>()

/** The provider's relying party; by default the auth URL's hostname (RP ID), host (name) and origin. */
export function relyingParty(services: RequestServices, provider: WebAuthnConfig): Readonly<RelayingParty> {
  const known = relyingParties.get(provider)
  if (known?.authUrl === services.authUrl) return known.rp
  const url = new URL(services.authUrl)
  const given = provider.relayingParty
  const rp = { id: first(given?.id) ?? url.hostname, name: first(given?.name) ?? url.host, origin: first(given?.origin) ?? url.origin }
  relyingParties.set(provider, { authUrl: services.authUrl, rp })
  return rp
}

/** Standard base64 (with padding) of base64 or base64url input: the form Auth.js stores ids in. */
export const toStoredId = (id: string): string => Buffer.from(id, "base64").toString("base64")
/** base64url of a stored (standard base64) value, as the WebAuthn JSON wants it. */
export const toJsonId = (stored: string): string => Buffer.from(stored, "base64").toString("base64url")

export const transportList = (stored: string | null | undefined): string[] | undefined => (stored ? stored.split(",") : undefined)

/**
 * User verification is checked when the provider says so, else when it asked the authenticator for it
 * (`required`); a provider that only prefers it accepts authenticators that cannot verify users.
 */
export function requireUserVerification(explicit: boolean | undefined, requested: string | undefined): boolean {
  return explicit ?? requested === "required"
}

/**
 * Marks a challenge answered in the config's server-state port; false when it already was (on any
 * instance sharing the port). The flow snapshot that carries the challenge resumes once already; this
 * keeps each challenge single use on its own too, for authenticators whose signature counter stays 0.
 * The claim lives as long as a challenge can be answered.
 */
export function consumeChallenge(services: RequestServices, challenge: string): Promise<boolean> {
  return services.serverState.claim(stateKey("webauthn", challenge), CHALLENGE_TTL_S * 1000)
}
