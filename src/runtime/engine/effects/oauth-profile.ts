/**
 * From a redeemed code to the sign-in's identity: the profile read (the ID token's claims, or the userinfo
 * answer), mapped by the provider's `profile()` or the default, and the user and account made of it (a
 * user id stable per provider and account without an adapter, the account the raw token response with
 * provider, type and providerAccountId, as Auth.js passes it to the callbacks). What an adapter stores
 * is {@link storedAccount}: the provider's `account()` (or Auth.js' default) applied at linking only.
 */
import * as o from "oauth4webapi"
import { CallbackRouteError, OAuthProfileParseError } from "../../../errors.js"
import type { FlowAccount, Identity } from "../../../flow/index.js"
import { defaultProfile } from "../../../providers/oauth.js"
import type { OAuthConfig } from "../../../providers/oauth-types.js"
import type { Account, Profile, TokenSet, User } from "../../../types.js"
import { clientOf, endpoint, httpOptions } from "../../oauth/server.js"
import { stableUserId } from "../../sessions/user-id.js"

/** The profile: the ID token's claims when they are it (at once), else the userinfo answer. */
export function readProfile(
  provider: OAuthConfig,
  server: o.AuthorizationServer,
  tokens: o.TokenEndpointResponse,
  claims: o.IDToken | undefined,
): Profile | Promise<Profile> {
  const custom = typeof provider.userinfo === "object" && provider.userinfo.request !== undefined
  if (!custom && claims && provider.idToken !== false) return { ...claims }
  return fetchedProfile(provider, server, tokens, claims)
}

async function fetchedProfile(
  provider: OAuthConfig,
  server: o.AuthorizationServer,
  tokens: o.TokenEndpointResponse,
  claims: o.IDToken | undefined,
): Promise<Profile> {
  const { client } = clientOf(provider)
  const userinfo = endpoint(provider.userinfo)
  if (typeof provider.userinfo === "object" && provider.userinfo.request) {
    const context = {
      tokens: { ...tokens },
      provider: { id: provider.id, userinfo: { url: userinfo.url?.href }, clientId: provider.clientId },
    }
    return { ...(await provider.userinfo.request(context)) }
  }
  if (!server.userinfo_endpoint) throw new CallbackRouteError(`Provider "${provider.id}" has no userinfo endpoint.`)
  const response = await o.userInfoRequest(server, client, tokens.access_token, httpOptions(provider, new URL(server.userinfo_endpoint)))
  if (claims) return { ...(await o.processUserInfoResponse(server, client, claims.sub, response)) }
  // a plain OAuth 2 userinfo answer is no OIDC UserInfo response (GitHub's has no `sub`): read as Auth.js reads it
  if (!response.ok) throw new CallbackRouteError(`The userinfo endpoint answered ${response.status}.`)
  const body: unknown = await response.json()
  if (typeof body !== "object" || body === null) throw new CallbackRouteError("The userinfo endpoint answered no JSON object.")
  return { ...body }
}

/** The token fields an account keeps (Auth.js' default `account()`), those present, in this order; named, so every account has one shape per set of fields. */
function storedTokens(tokens: TokenSet): Partial<Account> {
  const { access_token, token_type, id_token, refresh_token, scope, expires_at, session_state } = tokens
  const stored: Partial<Account> = {}
  if (access_token !== undefined) stored.access_token = access_token
  if (token_type !== undefined) stored.token_type = token_type
  if (id_token !== undefined) stored.id_token = id_token
  if (refresh_token !== undefined) stored.refresh_token = refresh_token
  if (scope !== undefined) stored.scope = scope
  if (expires_at !== undefined) stored.expires_at = expires_at
  if (session_state !== undefined) stored.session_state = session_state
  return stored
}

/** The sign-in's identity: the profile mapped (by the provider's `profile()`, else at once by the default), the user and account. */
export function identityOf(provider: OAuthConfig, profile: Profile, tokens: TokenSet): Identity | Promise<Identity> {
  if (provider.profile)
    return customProfile(provider, provider.profile, profile, tokens).then((mapped) => identityFrom(provider, profile, tokens, mapped))
  let mapped: User
  try {
    mapped = defaultProfile(profile)
  } catch (err) {
    throw new OAuthProfileParseError(`The profile of "${provider.id}" could not be mapped.`, { err })
  }
  return identityFrom(provider, profile, tokens, mapped)
}

async function customProfile(
  provider: OAuthConfig,
  map: NonNullable<OAuthConfig["profile"]>,
  profile: Profile,
  tokens: TokenSet,
): Promise<User> {
  try {
    return await map(profile, tokens)
  } catch (err) {
    throw new OAuthProfileParseError(`The profile of "${provider.id}" could not be mapped.`, { err })
  }
}

function identityFrom(provider: OAuthConfig, profile: Profile, tokens: TokenSet, mapped: User): Identity {
  if (mapped.id === undefined || mapped.id === null) throw new OAuthProfileParseError("profile() returned no id.")
  const providerAccountId = String(mapped.id)
  const id = stableUserId(provider.id, providerAccountId)
  // as Auth.js' getUserAndAccount: a profile without an email gives a user without one, not null
  const email = mapped.email?.toLowerCase()
  const user = email === undefined ? { ...mapped, id } : { ...mapped, id, email }
  // Auth.js' `getUserAndAccount`: the whole token response (its extras such as `expires_in` or
  // `refresh_token_expires_in` too) reaches the `signIn` and `jwt` callbacks and the `signIn` event
  const account: Account = { ...tokens, provider: provider.id, type: provider.type, providerAccountId }
  return { user, account, profile }
}

/**
 * The account an adapter stores (`linkAccount` and its event; provider tokens kept): the provider's
 * `account()` of the token set, else Auth.js' default fields, with provider, type and providerAccountId
 * (Auth.js' `handleLoginOrRegister`, the only place its `defaultAccount` filtering applies).
 * @example storedAccount(github, { access_token, expires_in: 3600, provider: "github", type: "oauth", providerAccountId: "1" }) // no expires_in
 */
export function storedAccount<T extends FlowAccount["type"]>(
  provider: OAuthConfig | undefined,
  account: FlowAccount & { type: T },
): FlowAccount & { type: T } {
  const { provider: id, type, providerAccountId, userId: _userId, ...tokens } = account
  const custom = provider?.account?.(tokens)
  const stored = custom === undefined || custom === null ? storedTokens(tokens) : custom
  return { ...stored, provider: id, type, providerAccountId }
}
