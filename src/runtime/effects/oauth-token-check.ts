/**
 * The common token endpoint answer of an authorization-code sign-in, judged without a web `Response`:
 * `acceptTokenAnswer` accepts an answer only when oauth4webapi's `processAuthorizationCodeResponse`
 * would accept it, with the same result, and declines (undefined) everything else, which then goes to
 * oauth4webapi unread, so every refusal and its error stay oauth4webapi's. The checks are the ones it
 * makes for this flow (RFC 6749 §5.1, OpenID Connect Core §3.1.3.3 and §3.1.3.7): a 200 answer with a
 * JSON object, `access_token` and `token_type` (Bearer or DPoP), `expires_in`, `refresh_token` and
 * `scope` of their types, and an ID token (required for OIDC) whose claims have `iss` = the issuer, `aud`
 * naming the client (`azp` = the client when there are other audiences), `exp` not past and `nbf` not
 * ahead (30 s tolerance), `iat` and `sub`, `auth_time` a number when present, and the expected `nonce`
 * (none when none was sent). Like oauth4webapi in this flow and Auth.js, the ID token's signature is
 * not checked: it comes straight from the token endpoint (OpenID Connect Core §3.1.3.7, item 6).
 */
import { isAscii } from "node:buffer"
import * as o from "oauth4webapi"
import type { ProviderAnswer } from "./oauth-http.js"

/** What an answer is judged against: the server and client as oauth4webapi sees them, the sign-in's nonce. */
export interface TokenExpectations {
  readonly server: o.AuthorizationServer
  readonly client: o.Client
  /** The nonce sent with the authorization request; null when none was. */
  readonly nonce: string | null
  /** OIDC: the answer must carry an ID token. */
  readonly requireIdToken: boolean
}

/** The token endpoint's answer and the claims of its ID token, as oauth4webapi returns them. */
export interface Redeemed {
  readonly tokens: o.TokenEndpointResponse
  readonly claims: o.IDToken | undefined
}

/** oauth4webapi's default clock tolerance, seconds (its `clockTolerance` option, which we never set). */
const CLOCK_TOLERANCE = 30
const BASE64URL = /^[A-Za-z0-9_-]*$/
/** Decodes as oauth4webapi does (UTF-8, invalid bytes replaced, a leading BOM dropped). */
const utf8 = new TextDecoder()

/** A parsed JSON value that is an object (what oauth4webapi calls a top-level JSON object). */
function isJsonObject(value: unknown): value is o.JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value)
}

/** JSON text parsed, or undefined when it is not JSON. */
function parsed(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

const nonEmpty = (value: unknown): value is string => typeof value === "string" && value.length > 0
const absentOr = (value: unknown, check: (v: unknown) => boolean): boolean => value === undefined || check(value)
const nonNegative = (value: unknown): boolean => typeof value === "number" && Number.isFinite(value) && value >= 0

/** A JWT part's JSON object, or undefined when oauth4webapi could read it otherwise or not at all. */
function jsonPart(part: string | undefined): o.JsonObject | undefined {
  if (part === undefined || !BASE64URL.test(part) || part.length % 4 === 1) return undefined
  const bytes = Buffer.from(part, "base64url")
  // ASCII reads the same as Latin-1 and as UTF-8 (and has no BOM to drop)
  const value = parsed(isAscii(bytes) ? bytes.toString("latin1") : utf8.decode(bytes))
  return isJsonObject(value) ? value : undefined
}

/** The `alg` oauth4webapi allows: the client's registered one, else the server's list, else RS256. */
function algAllowed(alg: unknown, { server, client }: TokenExpectations): boolean {
  const registered = client.id_token_signed_response_alg
  if (registered !== undefined) return alg === registered
  const supported = server.id_token_signing_alg_values_supported
  if (Array.isArray(supported)) return supported.some((name) => name === alg)
  return alg === "RS256"
}

/** Whether the ID token's claims pass every check oauth4webapi makes on them in this flow. */
function validClaims(claims: o.JsonObject, expect: TokenExpectations): claims is o.IDToken {
  const now = Math.floor(Date.now() / 1000)
  const { aud, exp, nbf } = claims
  // a lone `aud` of another type than a string never names the client
  const audiences = Array.isArray(aud) ? aud : [aud]
  return (
    typeof exp === "number" &&
    exp > now - CLOCK_TOLERANCE &&
    absentOr(nbf, (v) => typeof v === "number" && v <= now + CLOCK_TOLERANCE) &&
    typeof claims.iat === "number" &&
    claims.iss === expect.server.issuer &&
    audiences.includes(expect.client.client_id) &&
    (audiences.length === 1 || claims.azp === expect.client.client_id) &&
    typeof claims.sub === "string" &&
    absentOr(claims.auth_time, nonNegative) &&
    claims.nonce === (expect.nonce ?? undefined)
  )
}

/** The ID token's claims when it is a JWS whose header and claims pass every check; undefined otherwise. */
function idTokenClaims(idToken: string, expect: TokenExpectations): o.IDToken | undefined {
  const parts = idToken.split(".")
  if (parts.length !== 3) return undefined
  const header = jsonPart(parts[0])
  if (!header || header.crit !== undefined || !algAllowed(header.alg, expect)) return undefined
  const claims = jsonPart(parts[1])
  return claims && validClaims(claims, expect) ? claims : undefined
}

/**
 * The token answer and ID token claims, when oauth4webapi would accept `answer` with this result;
 * undefined when it is anything else (hand it to oauth4webapi).
 * @example const redeemed = acceptTokenAnswer(answer, { server, client, nonce, requireIdToken: true }) ?? (await viaLibrary())
 */
export function acceptTokenAnswer(answer: ProviderAnswer, expect: TokenExpectations): Redeemed | undefined {
  const { client } = expect
  // settings of the client that change what oauth4webapi checks: none of authchart's clients has them
  if (client.require_auth_time !== undefined || client.default_max_age !== undefined) return undefined
  if (client[o.clockSkew] !== undefined || client[o.clockTolerance] !== undefined) return undefined
  if (answer.status !== 200 || answer.text === null) return undefined
  const body = parsed(answer.text)
  if (!isJsonObject(body) || !nonEmpty(body.access_token) || !nonEmpty(body.token_type)) return undefined
  const tokenType = body.token_type.toLowerCase()
  if (tokenType !== "bearer" && tokenType !== "dpop") return undefined
  if (!absentOr(body.expires_in, nonNegative) || !absentOr(body.refresh_token, nonEmpty)) return undefined
  if (!absentOr(body.scope, (v) => typeof v === "string")) return undefined
  const idToken = body.id_token
  // an OIDC sign-in (or one that sent a nonce) needs the ID token
  if (idToken === undefined && (expect.requireIdToken || expect.nonce !== null)) return undefined
  // an empty ID token has no three parts
  const claims = typeof idToken === "string" ? idTokenClaims(idToken, expect) : undefined
  if (idToken !== undefined && !claims) return undefined
  return { tokens: { ...body, access_token: body.access_token, token_type: tokenType }, claims }
}
