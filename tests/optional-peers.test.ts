/**
 * Start-up check of the optional packages the configured providers need. A missing package is
 * simulated with an injected resolver; the real resolver is checked against this repository's
 * node_modules (tests/package.test.ts runs the whole check in a project without nodemailer).
 */
import { describe, expect, it } from "vitest"
import { MissingDependency } from "../src/index.js"
import { MemoryAdapter } from "../src/adapters/memory.js"
import Credentials from "../src/providers/credentials.js"
import Nodemailer from "../src/providers/nodemailer.js"
import Passkey from "../src/providers/passkey.js"
import { resolveConfig } from "../src/runtime/front/resolve.js"
import { missingOptionalPeers, resolvePackage } from "../src/runtime/front/optional-peers.js"
import type { AuthConfig } from "../src/types.js"
import { SECRET, captureLogger } from "./helpers.js"

const smtp = "smtp://127.0.0.1:2525"
const providersOf = (config: Omit<AuthConfig, "secret">) => {
  const { logger } = captureLogger()
  return resolveConfig({ ...config, logger, adapter: MemoryAdapter(), trustHost: true }, { AUTH_SECRET: SECRET }).providers.values()
}
const without =
  (...absent: string[]) =>
  (name: string) =>
    !absent.includes(name)

describe("optional packages of the configured providers", () => {
  it("an email provider sending through nodemailer without nodemailer installed is a MissingDependency naming it", () => {
    const error = missingOptionalPeers(providersOf({ providers: [Nodemailer({ server: smtp })] }), without("nodemailer"))
    expect(error).toBeInstanceOf(MissingDependency)
    expect(error?.type).toBe("MissingDependency")
    expect(error?.message).toBe(
      'The email provider "nodemailer" needs the package "nodemailer", which is not installed: npm install nodemailer',
    )
    expect(error?.cause).toEqual({ packages: ["nodemailer"] })
  })

  it("an email provider with the app's own sendVerificationRequest needs no nodemailer", () => {
    const providers = providersOf({ providers: [Nodemailer({ server: smtp, sendVerificationRequest: async () => {} })] })
    expect(missingOptionalPeers(providers, without("nodemailer"))).toBeNull()
  })

  it("a passkey provider names both SimpleWebAuthn packages that are missing, in one install command", () => {
    const providers = providersOf({ providers: [Passkey()], experimental: { enableWebAuthn: true } })
    const both = missingOptionalPeers(providers, without("@simplewebauthn/server", "@simplewebauthn/browser"))
    expect(both?.message).toBe(
      'The webauthn provider "passkey" needs the packages "@simplewebauthn/server" and "@simplewebauthn/browser", ' +
        "which are not installed: npm install @simplewebauthn/server @simplewebauthn/browser",
    )
    const browserOnly = missingOptionalPeers(
      providersOf({ providers: [Passkey()], experimental: { enableWebAuthn: true } }),
      without("@simplewebauthn/browser"),
    )
    expect(browserOnly?.message).toContain("npm install @simplewebauthn/browser")
  })

  it("credentials and OAuth providers need no optional package", () => {
    expect(missingOptionalPeers(providersOf({ providers: [Credentials({ authorize: () => null })] }), () => false)).toBeNull()
  })

  it("the real resolver finds installed packages and not absent ones", () => {
    expect(resolvePackage("nodemailer")).toBe(true)
    expect(resolvePackage("@simplewebauthn/server")).toBe(true)
    expect(resolvePackage("@simplewebauthn/browser")).toBe(true)
    expect(resolvePackage("authchart-no-such-package")).toBe(false)
  })

  it("with every package installed, the configuration resolves without error", () => {
    const { logger, errors } = captureLogger()
    const resolved = resolveConfig(
      {
        providers: [Nodemailer({ server: smtp }), Passkey()],
        experimental: { enableWebAuthn: true },
        adapter: MemoryAdapter(),
        logger,
        trustHost: true,
      },
      { AUTH_SECRET: SECRET },
    )
    expect(resolved.configError).toBeNull()
    expect(errors).toEqual([])
  })
})
