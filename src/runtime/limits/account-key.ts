/**
 * The account a sign-in names, as its flow resolves it: the one function the flow and the rate limiter
 * both call, so a limit counts exactly what the flow signs in with (docs/security.md "Limits"). Credentials: the
 * provider's identifying field (`accountField`, or the default below) in the submitted body, Unicode
 * NFKC, trimmed and lower-cased. Email (magic links and codes): the `email` field of the body,
 * normalised as the address that will be mailed (`normalizeIdentifier`, else {@link normalizeEmail}).
 */
import type { CredentialInput } from "../../types.js"

/** The fields a credentials provider may be identified by when it declares several and names none. */
const USUAL_ACCOUNT_FIELDS: ReadonlySet<string> = new Set(["email", "username", "identifier", "login", "user"])

/** What the key functions read of a credentials provider. */
export interface CredentialsAccountSource {
  readonly id?: string
  readonly credentials?: Readonly<Record<string, CredentialInput>>
  readonly accountField?: string | false
}

/** A field that holds a secret, not a name: `type: "password"`, or a field named `password`. */
const isSecretField = (name: string, input: CredentialInput | undefined) => input?.type === "password" || name === "password"

/**
 * The credentials field that names the account: `accountField` when given (`false`: none); else the only
 * declared field that is not a password; else the only one of those with a usual login name (`email`,
 * `username`, `identifier`, `login`, `user`); undefined when no field is declared. Throws a `TypeError`
 * (a start-up configuration error) when `accountField` is not a declared field or the choice is ambiguous.
 *
 * @example accountFieldOf({ credentials: { username: {}, password: { type: "password" } } }) // "username"
 */
export function accountFieldOf(provider: CredentialsAccountSource): string | undefined {
  const declared = Object.entries(provider.credentials ?? {})
  const id = provider.id ?? "credentials"
  if (provider.accountField === false) return undefined
  if (provider.accountField !== undefined) {
    if (declared.length > 0 && !declared.some(([name]) => name === provider.accountField)) {
      throw new TypeError(`Credentials provider "${id}": accountField "${provider.accountField}" is not one of its credentials fields.`)
    }
    return provider.accountField
  }
  const names = declared.filter(([name, input]) => !isSecretField(name, input)).map(([name]) => name)
  if (names.length <= 1) return names[0]
  const usual = names.filter((name) => USUAL_ACCOUNT_FIELDS.has(name))
  if (usual.length === 1) return usual[0]
  throw new TypeError(
    `Credentials provider "${id}": its fields ${names.map((n) => `"${n}"`).join(", ")} could each name the account. Set \`accountField\` to the one \`authorize\` looks the user up by (or false for none), so the per-account limits count it.`,
  )
}

const fields = new WeakMap<object, string | undefined>()

/** `accountFieldOf`, resolved once per provider object (a config error was raised at start-up). */
function accountFieldCached(provider: CredentialsAccountSource): string | undefined {
  if (fields.has(provider)) return fields.get(provider)
  let field: string | undefined
  try {
    field = accountFieldOf(provider)
  } catch {
    field = undefined
  }
  fields.set(provider, field)
  return field
}

/** An identifier as it is counted: Unicode NFKC (full-width and compatibility forms folded), trimmed, lower-cased. */
export const normalizeAccount = (identifier: string): string => identifier.normalize("NFKC").trim().toLowerCase()

/**
 * The account a credentials submission names (`accountFieldOf`'s field of `params`, normalised),
 * or undefined when the provider has no such field or the submission leaves it out or empty. Throws a
 * `TypeError` when the field is there but not a string (a JSON array or object): the flow refuses such a
 * submission without calling `authorize`, so no spelling of the field escapes the count.
 *
 * @example credentialsAccount(provider, { username: " Ada ", password: "…" }) // "ada"
 */
export function credentialsAccount(
  provider: CredentialsAccountSource,
  params: Readonly<Record<string, unknown>> | undefined,
): string | undefined {
  const field = accountFieldCached(provider)
  if (field === undefined || !params || !Object.hasOwn(params, field)) return undefined
  const value = params[field]
  if (typeof value !== "string") throw new TypeError(`The "${field}" field is not a string.`)
  const account = normalizeAccount(value)
  return account === "" ? undefined : account
}

/**
 * The default address normaliser: Unicode NFKC first (so look-alike `＠` or full-width letters cannot
 * slip past the checks), trimmed and lower-cased; exactly one `@` with text on both sides; no quotes,
 * commas, whitespace or control characters. Throws a `TypeError` for an address it refuses.
 * @example normalizeEmail(" Ada@Example.COM ") // "ada@example.com"
 */
export function normalizeEmail(input: string): string {
  const email = input.normalize("NFKC").trim().toLowerCase()
  const at = email.indexOf("@")
  const valid =
    at > 0 &&
    at === email.lastIndexOf("@") &&
    at < email.length - 1 &&
    email.length <= 320 &&
    !/["',;<>()\\[\]\s\p{Cc}]/u.test(email) &&
    !email.endsWith(".")
  if (!valid) throw new TypeError("Invalid email address format.")
  return email
}

/**
 * The address an email sign-in request mails: the body's `email` (never the query string, as in
 * Auth.js), through the provider's `normalizeIdentifier` or {@link normalizeEmail}. Throws a `TypeError`
 * when it is missing or refused.
 *
 * @example emailAccount(provider, { email: "Ａda@Example.com" }) // "ada@example.com"
 */
export function emailAccount(
  provider: { readonly normalizeIdentifier?: (identifier: string) => string },
  body: Readonly<Record<string, unknown>> | undefined,
): string {
  const raw = body?.email
  if (typeof raw !== "string" || raw === "") throw new TypeError("Missing email from request body.")
  return (provider.normalizeIdentifier ?? normalizeEmail)(raw)
}
