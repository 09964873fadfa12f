/**
 * Sign-in with anything your app can check: a username and password, a one-time code, …
 *
 * @example
 * ```ts
 * import Credentials from "authchart/providers/credentials"
 * Credentials({
 *   credentials: { username: { label: "Username" }, password: { label: "Password", type: "password" } },
 *   async authorize({ username, password }) {
 *     const user = await db.findUser(String(username))
 *     return user && (await verify(user.hash, String(password))) ? user : null
 *   },
 * })
 * ```
 * `authorize` returns the user, or `null` for a wrong login (`?error=CredentialsSignin&code=credentials`).
 * Throw a subclass of `CredentialsSignin` with your own `code` to tell the sign-in page why.
 */
import type { CredentialInput, CredentialsConfig } from "../types.js"

export type { CredentialInput, CredentialsConfig }

/** What `Credentials()` takes: the form's fields (`credentials`) and `authorize`. */
export type CredentialsOptions<C extends Record<string, CredentialInput> = Record<string, CredentialInput>> = Partial<
  Omit<CredentialsConfig<C>, "type">
>

export default function Credentials<C extends Record<string, CredentialInput> = Record<string, CredentialInput>>(
  options: CredentialsOptions<C> = {},
): CredentialsConfig<C> {
  return {
    id: "credentials",
    name: "Credentials",
    credentials: {} as C,
    authorize: () => null,
    ...options,
    type: "credentials",
  }
}
