/**
 * Start-up checks of a resolved config: Auth.js' `assertConfig`, in its order, plus the checks authchart
 * adds (short secrets, unparsable endpoint URLs, every adapter method a flow calls). The first failure is
 * the configuration error every request answers with; it is logged once.
 *
 * Where Auth.js has the same check, the error's type and message are Auth.js' (apps and log alerts compare
 * them); the default logger adds how to fix it on a line of its own.
 */
import {
  type AuthError,
  DuplicateConditionalUI,
  ExperimentalFeatureNotEnabled,
  InvalidEndpoints,
  InvalidProvider,
  MissingAdapter,
  MissingAdapterMethods,
  MissingAuthorize,
  MissingSecret,
  MissingWebAuthnAutocomplete,
  UnsupportedStrategy,
  UntrustedHost,
} from "../../errors.js"
import type { WebAuthnConfig } from "../../providers/webauthn-types.js"
import type { AuthConfig } from "../../types.js"
import { DATABASE_SESSION_METHODS, missingMethods } from "../sessions/adapter.js"
import { declarationOf } from "../config/declarations.js"
import type { FlowRequirements } from "../../types/flow-declarations.js"
import type { ResolvedConfig, ResolvedProvider } from "./resolve.js"
import { MIN_SECRET_LENGTH, configMessages } from "../config/hints.js"
import { isPlainObject } from "../config/plain-object.js"
import { accountFieldOf } from "../limits/account-key.js"

export { MIN_SECRET_LENGTH, configMessages } from "../config/hints.js"

type Endpoint = "authorization" | "token" | "userinfo"
const ENDPOINTS: readonly Endpoint[] = ["authorization", "token", "userinfo"]

/** An endpoint's URL as configured: the string itself, or an object's `url`. */
function endpointUrl(value: unknown): string | undefined {
  if (typeof value === "string") return value
  if (typeof value === "object" && value !== null) {
    const url = "url" in value ? value.url : undefined
    if (typeof url === "string") return url
    if (url instanceof URL) return url.href
  }
  return undefined
}

function isHttpUrl(value: string): boolean {
  try {
    return /^https?:$/.test(new URL(value).protocol)
  } catch {
    return false
  }
}

/** OAuth / OIDC endpoints: Auth.js' rule (no issuer ⇒ all three URLs), and every URL given must parse. */
function assertEndpoints(provider: ResolvedProvider): AuthError | null {
  const p: Record<string, unknown> = { ...provider.config }
  const options = isPlainObject(p.options) ? p.options : undefined
  const issuer = p.issuer ?? options?.issuer
  if (!issuer) {
    const missing = ENDPOINTS.find((key) => endpointUrl(p[key]) === undefined)
    if (missing) return new InvalidEndpoints(configMessages.invalidEndpoints(provider.id, missing))
  }
  const urls: [string, unknown][] = [
    ...ENDPOINTS.map((k) => [k, endpointUrl(p[k])] as [string, unknown]),
    ["issuer", issuer],
    ["wellKnown", p.wellKnown],
  ]
  for (const [key, value] of urls) {
    if (value === undefined) continue
    if (typeof value !== "string" || !isHttpUrl(value)) {
      return new InvalidEndpoints(configMessages.invalidEndpointUrl(provider.id, key, String(value)))
    }
  }
  return null
}

/** At most one WebAuthn provider offers conditional UI, and it has a field with `webauthn` autocomplete. */
function assertConditionalUI(providers: readonly ResolvedProvider[]): AuthError | null {
  const conditional = providers
    .map((p) => p.config)
    .filter((c): c is WebAuthnConfig => c.type === "webauthn" && c.enableConditionalUI === true)
  if (conditional.length > 1) return new DuplicateConditionalUI(configMessages.duplicateConditionalUI())
  const [provider] = conditional
  const fields = Object.values(provider?.formFields ?? {})
  if (provider && !fields.some((f) => String(f.autocomplete ?? "").includes("webauthn"))) {
    return new MissingWebAuthnAutocomplete(configMessages.missingWebAuthnAutocomplete(provider.id))
  }
  return null
}

/**
 * Credentials: an `authorize`, a database strategy only when the app opted in (Auth.js refuses it), and
 * one field that names the account (`accountField`, for the per-account limits).
 */
function assertCredentials(config: AuthConfig, providers: readonly ResolvedProvider[]): AuthError | null {
  const credentials = providers.filter((p) => p.type === "credentials")
  if (credentials.length === 0) return null
  const onlyCredentials = credentials.length === providers.length
  if (config.session?.strategy === "database" && onlyCredentials && config.session.allowCredentials !== true) {
    return new UnsupportedStrategy(configMessages.unsupportedStrategy())
  }
  // a provider of a flow of its own (a form's fields, FormProviderConfig) is checked by that flow, not `authorize`
  const noAuthorize = credentials.find(
    (p) =>
      p.config.type === "credentials" &&
      flowIdOf(p.config.flow, "credentials") === "credentials" &&
      typeof p.config.authorize !== "function",
  )
  if (noAuthorize) return new MissingAuthorize(configMessages.missingAuthorize())
  for (const provider of credentials) {
    if (provider.config.type !== "credentials") continue
    try {
      accountFieldOf({ ...provider.config, id: provider.id })
    } catch (err) {
      return new InvalidProvider(err instanceof Error ? err.message : String(err))
    }
  }
  return null
}

/** The id of the flow a provider names, or the default flow of its type. */
function flowIdOf(flow: string | { id: string } | undefined, byType: string): string {
  return typeof flow === "object" ? flow.id : (flow ?? byType)
}

/**
 * The adapter each provider's flow requires (`requires.adapter`, in provider order; a flow that needs an
 * `experimental` switch is checked after the database strategy, switch first), and every method the
 * flows call (`requires.adapterMethods`).
 */
function assertAdapter(resolved: Omit<ResolvedConfig, "configError">): AuthError | null {
  const { adapter } = resolved
  const requirements = [...resolved.providers.values()].map((p) => declarationOf(resolved, p, "requires") ?? {})
  const missingAdapter = (requires: FlowRequirements): AuthError | null => {
    const message = typeof requires.adapter === "function" ? requires.adapter(resolved) : requires.adapter
    return message !== undefined && !adapter ? new MissingAdapter(message) : null
  }
  for (const requires of requirements) {
    const error = requires.experimental ? null : missingAdapter(requires)
    if (error) return error
  }
  if (resolved.session.strategy === "database" && !adapter) return new MissingAdapter(configMessages.databaseAdapter())
  for (const requires of requirements) {
    if (!requires.experimental) continue
    if (!resolved.experimental[requires.experimental]) return new ExperimentalFeatureNotEnabled(configMessages.experimentalWebAuthn())
    const error = missingAdapter(requires)
    if (error) return error
  }
  if (!adapter) return null
  const required = new Set<string>()
  const add = (methods: Iterable<string>) => {
    for (const m of methods) required.add(m)
  }
  if (resolved.session.strategy === "database") add(DATABASE_SESSION_METHODS)
  for (const requires of requirements) add(requires.adapterMethods ?? [])
  const missing = missingMethods(adapter, required)
  return missing.length > 0 ? new MissingAdapterMethods(configMessages.missingAdapterMethods(missing)) : null
}

/** The first configuration error of a resolved config, in Auth.js' order, or null. */
export function assertConfig(config: AuthConfig, resolved: Omit<ResolvedConfig, "configError">): AuthError | null {
  if (!resolved.trustHost) return new UntrustedHost(configMessages.untrustedHost())
  if (resolved.secrets.length === 0) return new MissingSecret(configMessages.missingSecret())
  if (resolved.secrets.some((s) => s.length < MIN_SECRET_LENGTH)) return new MissingSecret(configMessages.shortSecret())
  const providers = [...resolved.providers.values()]
  for (const provider of providers) {
    if (provider.type !== "oauth" && provider.type !== "oidc") continue
    const error = assertEndpoints(provider)
    if (error) return error
  }
  const logoutAt = resolved.logout.provider
  if (logoutAt !== undefined && resolved.providers.get(logoutAt)?.type !== "oidc") {
    return new InvalidProvider(configMessages.logoutProvider(logoutAt))
  }
  return assertConditionalUI(providers) ?? assertCredentials(config, providers) ?? assertAdapter(resolved)
}
