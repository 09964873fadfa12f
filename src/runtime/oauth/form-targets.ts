/**
 * The OAuth/OIDC flow's form targets (`FlowDeclarations.formTargets`): signing in POSTs to
 * `/signin/<id>`, which redirects to the authorization server, so the pages' CSP `form-action` names
 * each provider's configured authorization endpoint and issuer, and every server discovered so far.
 */
import type { DeclaredProvider, RequestContext } from "../../flow/index.js"
import type { OAuthConfig } from "../../providers/oauth-types.js"
import { discoveryCache, endpoint } from "./server.js"

/** The origin of an absolute http(s) URL, else undefined. */
function originOf(url: string | URL | undefined): string | undefined {
  if (!url) return undefined
  try {
    const { origin, protocol } = typeof url === "string" ? new URL(url) : url
    return protocol === "https:" || protocol === "http:" ? origin : undefined
  } catch {
    return undefined
  }
}

/** A provider's configured authorization origins, per provider object (configured once). */
const configured = new WeakMap<object, readonly string[]>()

function authorizationOrigins(provider: OAuthConfig): readonly string[] {
  let origins = configured.get(provider)
  if (!origins) {
    try {
      origins = [originOf(endpoint(provider.authorization).url), originOf(provider.issuer)].filter((o): o is string => !!o)
    } catch {
      origins = []
    }
    configured.set(provider, origins)
  }
  return origins
}

/** The origin of a discovered server's authorization endpoint, per discovery document (the cache replaces a document when it refreshes it). */
const discoveredOrigins = new WeakMap<object, string | null>()

function discoveredOrigin(server: { authorization_endpoint?: string }): string | null {
  let origin = discoveredOrigins.get(server)
  if (origin === undefined) discoveredOrigins.set(server, (origin = originOf(server.authorization_endpoint) ?? null))
  return origin
}

/** The configured providers' authorization origins, then those of the servers discovered so far. */
export function oauthFormTargets(ctx: RequestContext, providers: readonly DeclaredProvider[]): string[] {
  const out: string[] = []
  for (const { config } of providers) if (config.type === "oauth" || config.type === "oidc") out.push(...authorizationOrigins(config))
  for (const { server } of discoveryCache(ctx.config).values()) {
    const origin = discoveredOrigin(server)
    if (origin) out.push(origin)
  }
  return out
}
