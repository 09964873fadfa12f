/**
 * Applications extend `Session` and `JWT` by module augmentation, as with Auth.js. This file is checked
 * by `tsc` in `npm test`: if augmentation stopped working, the expectations below would not compile.
 */
import { describe, expectTypeOf, it } from "vitest"
import type { AuthConfig, DefaultSession, Session } from "authchart"
import type { JWT } from "authchart/jwt"

declare module "authchart" {
  interface Session {
    tenant?: string
  }
}

declare module "authchart/jwt" {
  interface JWT {
    role?: "admin" | "member"
  }
}

describe("module augmentation", () => {
  it("adds fields to Session and JWT, seen by the callbacks", () => {
    expectTypeOf<Session["tenant"]>().toEqualTypeOf<string | undefined>()
    expectTypeOf<JWT["role"]>().toEqualTypeOf<"admin" | "member" | undefined>()
    expectTypeOf<Session["user"]>().toEqualTypeOf<DefaultSession["user"]>()
    const callbacks: NonNullable<AuthConfig["callbacks"]> = {
      jwt: ({ token }) => ({ ...token, role: "admin" }),
      session: ({ session, token }) => {
        expectTypeOf(token.role).toEqualTypeOf<"admin" | "member" | undefined>()
        return { ...session, tenant: "acme" }
      },
    }
    expectTypeOf(callbacks.session).not.toBeUndefined()
  })
})
