/**
 * Applications extend `Session` and `JWT` by module augmentation, as with Auth.js. This file is checked
 * by `tsc` in `npm test`: if augmentation stopped working, the expectations below would not compile.
 */
import { describe, expect, expectTypeOf, it } from "vitest"
import * as errors from "authchart"
import { AccessDenied, AuthError, CredentialsSignin, EmailSignInError, isAuthError, StepFailed, Verification } from "authchart"
import type { AnyAuthError, AuthConfig, DefaultSession, ErrorType, Session } from "authchart"
import type { JWT } from "authchart/jwt"
import { type FlowPageProps, renderStepPage } from "authchart/flow"

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

describe("errors: a union discriminated by type", () => {
  /** What a handler can read once `switch (err.type)` has narrowed. */
  function describeError(err: AnyAuthError): string {
    switch (err.type) {
      case "CredentialsSignin":
        expectTypeOf(err).toEqualTypeOf<CredentialsSignin>()
        return `credentials:${err.code}`
      case "EmailSignInError":
        expectTypeOf(err.code).toEqualTypeOf<"invalid_email" | "send_failed">()
        return `email:${err.code}`
      case "AccessDenied":
        expectTypeOf(err).toEqualTypeOf<AccessDenied>()
        // @ts-expect-error: AccessDenied has no code
        return `denied:${err.code}`
      default:
        return err.type
    }
  }

  it("narrows on type to the class, with its own fields", () => {
    class InvalidLogin extends CredentialsSignin {
      override code = "invalid_login"
    }
    expect(describeError(new InvalidLogin())).toBe("credentials:invalid_login")
    expect(describeError(Object.assign(new EmailSignInError(), { code: "send_failed" as const }))).toBe("email:send_failed")
    expect(describeError(new StepFailed())).toBe("denied:undefined")
    expect(describeError(new Verification())).toBe("Verification")
  })

  it("gives each class the literal of its static type, and covers every ErrorType", () => {
    expectTypeOf<AnyAuthError["type"]>().toEqualTypeOf<ErrorType>()
    expectTypeOf(Verification.type).toEqualTypeOf<"Verification">()
    expectTypeOf<Verification["type"]>().toEqualTypeOf<"Verification">()
    expectTypeOf<AuthError["type"]>().toEqualTypeOf<ErrorType>()
    const classes = Object.values(errors).filter(
      (value): value is typeof AuthError => typeof value === "function" && value.prototype instanceof AuthError,
    )
    for (const ErrorClass of classes) expect([ErrorClass.name, new ErrorClass().type]).toEqual([ErrorClass.name, ErrorClass.type])
    expect(new Set(classes.map((ErrorClass) => ErrorClass.type)).size).toBeGreaterThan(35)
  })

  it("keeps one constructor shape: a message, an Error as cause, or the cause alone", () => {
    const cause = new Error("socket closed")
    expect([new AuthError("Shown.").message, new AuthError(cause).cause, new Verification({ token: "x" }).cause]).toEqual([
      "Shown.",
      { err: cause },
      { token: "x" },
    ])
    expect([new Verification().message, new Verification().kind, new CredentialsSignin().kind]).toEqual(["Verification", "error", "signIn"])
    expect([isAuthError(new StepFailed()), isAuthError(cause), new StepFailed() instanceof AccessDenied]).toEqual([true, false, true])
  })
})

describe("a flow's own pages", () => {
  it("renderStepPage takes the FlowPageProps a page renderer is given, with no attempt cap to invent", () => {
    const codePage = (props: FlowPageProps) => renderStepPage(props, { title: "Check your email", fields: `<input name="code">` })
    expectTypeOf(codePage).returns.toEqualTypeOf<string>()
    const props: FlowPageProps = {
      step: "code",
      action: "/auth/callback/sms",
      csrfToken: "t",
      attempt: 1,
      data: {},
      theme: {},
      nonce: "n",
      cancelUrl: "/auth/signin",
    }
    // without a cap the card says nothing of attempts left; a step's props (with `maxAttempts`) do
    expect(codePage(props)).not.toContain("attempts left")
    expect(renderStepPage({ ...props, maxAttempts: 3 }, "<input name=code>")).toContain("2 attempts left.")
  })
})
