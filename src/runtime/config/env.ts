/**
 * Environment defaults (`AUTH_*` variables) and action URLs. Pure functions over an env record; the
 * exported `setEnvDefaults` keeps Auth.js' mutate-in-place signature for compatibility.
 */
import { InvalidProvider } from "../../errors.js"
import type { AuthConfig, LoggerInstance, Provider, ProviderConfig, ProviderLike } from "../../types.js"
import type { AuthAction } from "../../types/request.js"
export type { AuthAction }
import { createLogger } from "./logger.js"

export type Env = Readonly<Record<string, string | undefined>>

/** The Auth.js v5 action names. */
export const authActions = [
  "providers",
  "session",
  "csrf",
  "signin",
  "signout",
  "callback",
  "verify-request",
  "error",
  "webauthn-options",
] as const satisfies readonly AuthAction[]

const actionSet: ReadonlySet<string> = new Set(authActions)

/**
 * True when `action` names one of the nine Auth.js actions.
 * @example isAuthAction("signin") // true
 */
export function isAuthAction(action: string): action is AuthAction {
  return actionSet.has(action)
}

/** basePath from `AUTH_URL`'s path; a bare origin gives `/auth`, never `/`. */
function basePathFromUrl(url: string | undefined): string | undefined {
  if (!url) return undefined
  try {
    const path = new URL(url).pathname.replace(/\/+$/, "")
    return path === "" ? undefined : path
  } catch {
    return undefined
  }
}

/** Secrets from the environment, newest first: `AUTH_SECRET_3, _2, _1, AUTH_SECRET`. */
export function secretsFromEnv(env: Env): string[] {
  return [env.AUTH_SECRET_3, env.AUTH_SECRET_2, env.AUTH_SECRET_1, env.AUTH_SECRET].filter(
    (s): s is string => typeof s === "string" && s.length > 0,
  )
}

type PresetFunction = (options: Record<string, string>) => ProviderConfig | ProviderLike

/** Calls a preset passed uncalled; a throw becomes `InvalidProvider` naming the preset. */
function callPreset(preset: Provider & ((options: never) => unknown), options: Record<string, string>): ProviderConfig | ProviderLike {
  try {
    return (preset as unknown as PresetFunction)(options)
  } catch (err) {
    const given = Object.keys(options)
    throw new InvalidProvider(
      `The provider preset ${preset.name || "(anonymous)"} threw when called with ${given.length ? `{ ${given.join(", ")} }` : "{}"}: pass it called, with the options it needs.`,
      { err },
    )
  }
}

/** The provider with its `AUTH_<ID>_*` values; a preset function is called with `{}` for its id, then with them. */
function providerWithEnv(provider: Provider, env: Env): ProviderConfig | ProviderLike {
  const id = typeof provider === "function" ? callPreset(provider, {}).id : provider.id
  const key = id.toUpperCase().replace(/-/g, "_")
  const fromEnv = {
    clientId: env[`AUTH_${key}_ID`],
    clientSecret: env[`AUTH_${key}_SECRET`],
    issuer: env[`AUTH_${key}_ISSUER`],
    apiKey: env[`AUTH_${key}_KEY`],
  }
  const resolved: Record<string, unknown> & ProviderLike = {
    ...(typeof provider === "function" ? callPreset(provider, stripUndefined(fromEnv)) : provider),
  }
  if (resolved.type === "oauth" || resolved.type === "oidc") {
    const own = (resolved.options ?? {}) as Record<string, unknown>
    resolved.clientId ??= fromEnv.clientId
    resolved.clientSecret ??= fromEnv.clientSecret
    // A preset's default issuer gives way to AUTH_<ID>_ISSUER; an issuer the app passed does not.
    if (fromEnv.issuer && own.issuer === undefined) resolved.issuer = fromEnv.issuer
  } else if (resolved.type === "email") {
    resolved.apiKey ??= fromEnv.apiKey
  }
  return resolved
}

function stripUndefined(o: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v
  return out
}

/**
 * The config with environment defaults applied, as a new object (the input is not touched).
 * basePath, secret, redirectProxyUrl, trustHost and per-provider `AUTH_<ID>_*` values. `config.url`
 * stands in for `AUTH_URL` when given. `AUTH_TRUST_HOST` is `true`/`false` (`0`, `no`, `off`) or a
 * comma-separated allow-list of hosts.
 */
export function withEnvDefaults(
  env: Env,
  config: AuthConfig,
  logger?: Pick<LoggerInstance, "warn">,
): AuthConfig & { providers: (ProviderConfig | ProviderLike)[] } {
  const out: AuthConfig & { providers: (ProviderConfig | ProviderLike)[] } = { ...config, providers: [] }
  const envUrl = config.url ?? env.AUTH_URL
  if (envUrl) {
    if (config.basePath) logger?.warn("env-url-basepath-redundant")
    else out.basePath = basePathFromUrl(envUrl)
  }
  out.basePath ??= "/auth"
  const secret = config.secret
  if (!secret || (Array.isArray(secret) && secret.length === 0)) {
    const fromEnv = secretsFromEnv(env)
    if (fromEnv.length > 0) out.secret = fromEnv
  }
  out.redirectProxyUrl ??= env.AUTH_REDIRECT_PROXY_URL
  out.trustHost ??=
    envUrl !== undefined && envUrl !== ""
      ? true
      : (trustFromEnv(env.AUTH_TRUST_HOST) ?? (!!env.VERCEL || !!env.CF_PAGES || env.NODE_ENV !== "production"))
  out.providers = config.providers.map((p) => providerWithEnv(p, env))
  return out
}

/**
 * Applies the `AUTH_*` environment defaults to `config` in place (the Auth.js signature). authchart's own
 * entry points resolve a frozen copy instead and never mutate your config.
 *
 * @example setEnvDefaults(process.env, config)
 */
export function setEnvDefaults(env: Env, config: AuthConfig, suppressBasePathWarning = false): void {
  Object.assign(config, withEnvDefaults(env, config, suppressBasePathWarning ? undefined : createLogger(config.logger, !!config.debug)))
}

/**
 * The absolute URL of an action: from `AUTH_URL` when set, else from the forwarded or plain host headers.
 *
 * @example createActionURL("signin", "https", new Headers({ host: "app.test" }), {}, { basePath: "/auth" })
 * // → https://app.test/auth/signin
 */
export function createActionURL(
  action: AuthAction,
  protocol: string,
  headers: Headers,
  env: Env,
  config: Pick<AuthConfig, "basePath" | "logger">,
): URL {
  const basePath = config.basePath
  const envUrl = env.AUTH_URL ?? env.NEXTAUTH_URL
  let url: URL
  if (envUrl) {
    url = new URL(envUrl)
    if (basePath && basePath !== "/" && url.pathname !== "/") {
      if (url.pathname !== basePath) config.logger?.warn?.("env-url-basepath-mismatch")
      url.pathname = "/"
    }
  } else {
    const host = headers.get("x-forwarded-host") ?? headers.get("host")
    const proto = headers.get("x-forwarded-proto") ?? protocol ?? "https"
    url = new URL(`${proto.replace(/:$/, "")}://${host}`)
  }
  const root = url.toString().replace(/\/$/, "")
  const path = (basePath ?? "").replace(/(^\/+|\/+$)/g, "")
  return new URL(path ? `${root}/${path}/${action}` : `${root}/${action}`)
}

const TRUE = /^(true|1|yes|on)$/i
const FALSE = /^(false|0|no|off)$/i

/**
 * `AUTH_TRUST_HOST` read as a trust setting: `true`/`1`/`yes`/`on`, `false`/`0`/`no`/`off`, or a
 * comma-separated allow-list of hosts (`app.example.com,*.example.org`). Empty or unset: undefined.
 */
export function trustFromEnv(value: string | undefined): boolean | string[] | undefined {
  const v = value?.trim()
  if (!v) return undefined
  if (TRUE.test(v)) return true
  if (FALSE.test(v)) return false
  return v
    .split(",")
    .map((h) => h.trim())
    .filter(Boolean)
}
