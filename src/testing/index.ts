/**
 * Test utilities for apps that use authchart: sign in from a test as a browser would, against your
 * real app, with an in-process mailbox and OpenID Provider; or skip the sign-in with a ready cookie.
 *
 * @example
 * ```ts
 * import { createTestClient, createTestIdP, createTestMailbox, getSessionFrom, sessionCookie } from "authchart/testing"
 * const client = await createTestClient(app)
 * await client.signIn.credentials({ email: "ada@example.test", password: "correct horse" })
 * const session = await getSessionFrom(client)
 * ```
 * `createTestMailbox()` needs the optional packages `smtp-server` and `mailparser` (dev dependencies of
 * your app); everything else needs nothing beyond authchart.
 * @packageDocumentation
 */
export {
  createTestClient,
  getSessionFrom,
  type SignInOptions,
  type SignInResult,
  type TestClient,
  type TestClientOptions,
} from "./client.js"
export { TestCookieJar } from "./cookie-jar.js"
export { createTestIdP, type TestIdP, type TestIdPAccount, type TestIdPOptions } from "./idp.js"
export { createTestMailbox, type MailWait, type TestMail, type TestMailbox } from "./mailbox.js"
export { sessionCookie, type SessionCookieOptions } from "./session-cookie.js"
