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

/**
 * The config of the provider a flow serves, checked: when its `type` is one of `types` (typed as that
 * provider's config), or when `is` accepts it (an application's own provider shape). Another provider
 * bound to the flow is an `InvalidProvider`, never a crash.
 *
 * @example
 * ```ts
 * import { effect, providerConfig } from "authchart/flow"
 * const isInvite = (c: unknown): c is InviteConfig => typeof c === "object" && c !== null && "invites" in c
 * const redeem = effect(async (services, input: { code: string }) => providerConfig(services, isInvite).invites.redeem(input.code))
 * const mailer = (services: FlowServices) => providerConfig(services, "email") // EmailConfig
 * ```
 */
export function providerConfig<C>(services: { readonly provider: ResolvedProvider | undefined }, is: (config: unknown) => config is C): C
export function providerConfig<T extends ProviderType>(
  services: { readonly provider: ResolvedProvider | undefined },
  ...types: readonly T[]
): ProviderConfigOf<T>
export function providerConfig(
  services: { readonly provider: ResolvedProvider | undefined },
  ...kinds: readonly (ProviderType | ((config: unknown) => boolean))[]
): unknown {
  const [first] = kinds
  const config: unknown = services.provider?.config
  if (typeof first === "function") {
    if (first(config)) return config
    throw new InvalidProvider(`The provider "${services.provider?.id ?? ""}" is not one this flow serves.`)
  }
  const provided = services.provider?.config
  if (provided && kinds.some((type) => type === provided.type)) return provided
  throw new InvalidProvider(`The provider "${services.provider?.id ?? ""}" is not of type ${kinds.join(" or ")}.`)
}
