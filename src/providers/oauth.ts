/**
 * A custom OAuth 2 provider, for a service that has no preset.
 *
 * @example
 * ```ts
 * import OAuth from "authchart/providers/oauth"
 * OAuth({
 *   id: "acme",
 *   name: "Acme",
 *   clientId: process.env.AUTH_ACME_ID,
 *   clientSecret: process.env.AUTH_ACME_SECRET,
 *   authorization: { url: "https://id.acme.example/authorize", params: { scope: "profile email" } },
 *   token: "https://id.acme.example/token",
 *   userinfo: "https://api.acme.example/me",
 * })
 * ```
 * authchart sends PKCE (S256) and `state`, and never adds an `openid` scope to a plain OAuth 2
 * provider. Without a `profile` mapping, {@link defaultProfile} reads the usual claim names.
 */
import type { Profile, User } from "../types.js"
import type { OAuthConfig, OAuthUserConfig, OIDCConfig } from "./oauth-types.js"
import { isPlainObject } from "../runtime/config/plain-object.js"

export type {
  EndpointSetting,
  OAuthCheck,
  OAuthConfig,
  OAuthUserConfig,
  OIDCConfig,
  UserinfoRequestContext,
} from "./oauth-types.js"

/** Options of {@link OAuth}: a provider config that names itself. */
export type OAuthOptions = OAuthUserConfig & { id: string; name?: string }

export default function OAuth(options: OAuthOptions): OAuthConfig {
  return {
    ...options,
    name: options.name ?? options.id,
    type: "oauth",
    profile: options.profile ?? defaultProfile,
  }
}

/**
 * Maps a profile with the usual OpenID Connect claim names to a user. The `id` is always a string,
 * taken from `sub`, else `id`.
 *
 * @example
 * ```ts
 * defaultProfile({ id: 42, login: "octo", email: "o@example.com" })
 * // → { id: "42", email: "o@example.com" }
 * ```
 * @throws TypeError when the profile has neither `sub` nor `id`.
 */
export function defaultProfile(profile: Profile): User {
  const id: unknown = profile.sub ?? profile.id
  if (id === undefined || id === null || id === "") {
    throw new TypeError("The profile has no `sub` or `id`")
  }
  // as Auth.js' default profile: a claim the profile lacks is left out, not null
  const user: User = { id: String(id) }
  const name = profile.name ?? profile.nickname ?? profile.preferred_username
  if (name !== undefined) user.name = name
  if (profile.email !== undefined) user.email = profile.email
  if (typeof profile.picture === "string") user.image = profile.picture
  return user
}

/**
 * A preset's final config: the user's options merged over it (see {@link mergeOptions}), and kept
 * as `options`, as Auth.js presets do.
 *
 * @example
 * ```ts
 * export default function Acme(options: OAuthUserConfig<AcmeProfile> = {}) {
 *   return presetWith({ id: "acme", name: "Acme", type: "oauth", authorization: "https://acme.example/authorize" }, options)
 * }
 * ```
 */
export function presetWith<P extends object>(preset: OIDCConfig<P>, options: OAuthUserConfig<P>): OIDCConfig<P>
export function presetWith<P extends object>(preset: OAuthConfig<P>, options: OAuthUserConfig<P>): OAuthConfig<P>
export function presetWith<P extends object>(preset: OAuthConfig<P>, options: OAuthUserConfig<P>): OAuthConfig<P> {
  return { ...mergeOptions(preset, options), options }
}

/**
 * Applies a user's options over a preset: plain objects merge key by key, anything else the user
 * gives (a string, a function, an array) replaces the preset's value, and `undefined` is skipped.
 * Arrays are replaced, never merged index by index, so `checks: ["pkce"]` means exactly PKCE.
 *
 * @example
 * ```ts
 * mergeOptions(
 *   { authorization: { url: "https://x.example/auth", params: { scope: "a" } }, checks: ["pkce", "state"] },
 *   { authorization: { params: { prompt: "consent" } }, checks: ["pkce"] },
 * )
 * // → { authorization: { url: "https://x.example/auth", params: { scope: "a", prompt: "consent" } }, checks: ["pkce"] }
 * ```
 */
export function mergeOptions<T extends object>(preset: T, options: Partial<T>): T {
  return mergeRecords(preset as Record<string, unknown>, options as Record<string, unknown>) as T
}

const ENDPOINT_KEYS: ReadonlySet<string> = new Set(["authorization", "token", "userinfo"])

function mergeRecords(base: Record<string, unknown>, override: Record<string, unknown>, depth = 0): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(override)) {
    if (value === undefined || key === "__proto__") continue
    let current = merged[key]
    // An endpoint given as a URL string still takes `{ params }` (or `{ url }`) from the user's options.
    if (depth === 0 && ENDPOINT_KEYS.has(key) && typeof current === "string" && isPlainObject(value)) current = { url: current }
    merged[key] = isPlainObject(current) && isPlainObject(value) ? mergeRecords(current, value, depth + 1) : value
  }
  return merged
}
