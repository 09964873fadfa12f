/**
 * The request's provider config, narrowed to the shape a flow serves. `ProviderConfig` is a union
 * discriminated by `type`, so the check here is the one place a flow's effects learn the shape of their
 * provider, and a provider of another kind bound to the flow is an `InvalidProvider`, never a crash.
 */
import { InvalidProvider } from "../../errors.js"
import type { ProviderConfig, ProviderType } from "../../types.js"
import type { ResolvedProvider } from "../../types/resolved.js"

/**
 * The built-in provider shape of each provider `type`.
 * @example type Mailer = ProviderConfigOf<"email"> // EmailConfig
 */
export type ProviderConfigOf<T extends ProviderType> = Extract<ProviderConfig, { type: T }>

function isOfType<T extends ProviderType>(config: ProviderConfig, types: readonly T[]): config is ProviderConfigOf<T> {
  return types.some((type) => type === config.type)
}

/**
 * The provider config of `ctx`, when its type is one of `types`.
 * @example const provider = providerConfig(ctx, "oauth", "oidc") // OAuthConfig
 */
export function providerConfig<T extends ProviderType>(
  ctx: { readonly provider: ResolvedProvider | undefined },
  ...types: readonly T[]
): ProviderConfigOf<T> {
  const config = ctx.provider?.config
  if (config && isOfType(config, types)) return config
  throw new InvalidProvider(`The provider "${ctx.provider?.id ?? ""}" is not of type ${types.join(" or ")}.`)
}

/**
 * The provider config of `ctx` in the shape of an application's own flow, as its `is` check accepts it
 * (a provider of another shape bound to the flow is an `InvalidProvider`, never a crash).
 * @example const provider = flowProviderConfig(ctx, (c): c is InviteConfig => isPlainObject(c) && typeof c.invites === "function")
 */
export function flowProviderConfig<C>(ctx: { readonly provider: ResolvedProvider | undefined }, is: (config: unknown) => config is C): C {
  const config: unknown = ctx.provider?.config
  if (is(config)) return config
  throw new InvalidProvider(`The provider "${ctx.provider?.id ?? ""}" is not one this flow serves.`)
}
