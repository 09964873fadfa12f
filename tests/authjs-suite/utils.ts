/**
 * From Auth.js: https://github.com/nextauthjs/next-auth/blob/main/packages/core/test/utils.ts
 * ISC License, Copyright (c) 2022-2024, Balázs Orbán (the Auth.js authors); see
 * tests/authjs-suite/README.md for the license text.
 *
 * Changed for authchart: the imports (authchart instead of `../src`); `callbacks` is Auth.js'
 * `defaultCallbacks` (from `src/lib/init.ts`, not exported by either package) written out here; and the
 * test secret is 32 characters long, because authchart refuses shorter secrets (README "Where authchart
 * differs from Auth.js on purpose").
 */
import { vi } from "vitest"
import { Auth, createActionURL } from "../../src/index.js"

import type { Adapter } from "../../src/index.js"
import type { AuthAction, AuthConfig, LoggerInstance } from "../../src/index.js"

export const AUTH_SECRET = "secret-of-the-authjs-suite-32-chars"
export const SESSION_COOKIE_NAME = "__Secure-authjs.session-token"
export const CSRF_COOKIE_NAME = "__Host-authjs.csrf-token"

export function TestAdapter(): Adapter {
  return {
    createUser: vi.fn(),
    getUser: vi.fn(),
    getUserByEmail: vi.fn(),
    getUserByAccount: vi.fn(),
    updateUser: vi.fn(),
    deleteUser: vi.fn(),
    linkAccount: vi.fn(),
    unlinkAccount: vi.fn(),
    createSession: vi.fn(),
    getSessionAndUser: vi.fn(),
    updateSession: vi.fn(),
    deleteSession: vi.fn(),
    createVerificationToken: vi.fn(),
    useVerificationToken: vi.fn(),
  }
}

export const logger: LoggerInstance = {
  debug: vi.fn(),
  warn: vi.fn(),
  error: vi.fn(),
}

export const events = {
  signIn: vi.fn(),
  signOut: vi.fn(),
  createUser: vi.fn(),
  updateUser: vi.fn(),
  linkAccount: vi.fn(),
  session: vi.fn(),
} satisfies AuthConfig["events"]

/** Auth.js' `defaultCallbacks` (`packages/core/src/lib/init.ts`). */
export const callbacks: Required<NonNullable<AuthConfig["callbacks"]>> = {
  signIn() {
    return true
  },
  redirect({ url, baseUrl }) {
    if (url.startsWith("/")) return `${baseUrl}${url}`
    else if (new URL(url).origin === baseUrl) return url
    return baseUrl
  },
  session({ session }) {
    return {
      user: {
        name: session.user?.name,
        email: session.user?.email,
        image: session.user?.image,
      },
      expires: session.expires?.toISOString?.() ?? session.expires,
    }
  },
  jwt({ token }) {
    return token
  },
}

export const getExpires = (maxAge = 30 * 24 * 60 * 60 * 1000) => {
  const now = Date.now()
  vi.setSystemTime(now)
  return new Date(now + maxAge)
}

export function testConfig(overrides?: Partial<AuthConfig>): AuthConfig {
  return {
    secret: AUTH_SECRET,
    trustHost: true,
    logger,
    events,
    callbacks,
    basePath: "/auth",
    providers: [],
    ...overrides,
  }
}

export async function makeAuthRequest(params: {
  action: AuthAction
  cookies?: Record<string, string>
  host?: string
  path?: string
  query?: Record<string, string>
  body?: BodyInit
  config?: Partial<AuthConfig>
}) {
  const { action, body, cookies = {}, host = "authjs.test" } = params
  const config = testConfig(params.config)
  const headers = new Headers({ host: host })
  for (const [name, value] of Object.entries(cookies)) headers.append("cookie", `${name}=${value}`)

  let url: string | URL = createActionURL(action, "https", headers, {}, config)
  if (params.path) url = `${url}${params.path}`
  if (params.query) url = `${url}?${new URLSearchParams(params.query)}`
  const request = new Request(url, {
    method: body ? "POST" : "GET",
    headers,
    body,
  })
  const response = (await Auth(request, config)) as Response
  return {
    response,
    logger: config.logger,
  }
}
