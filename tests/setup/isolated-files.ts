/**
 * Test files that need a module graph of their own (vitest's `isolated` project; every other file shares
 * its worker's modules). They mock a package for the whole file (`vi.mock`, `vi.doMock` with
 * `vi.resetModules`), or run `@auth/core`'s `Auth` beside authchart: `@auth/core` keeps what its config
 * check has seen in module-level flags (`hasEmail`, `hasCredentials`, `hasWebAuthn` in
 * `lib/utils/assert.js`), so one file's configs change the answers Auth.js gives another's. Auth.js' own
 * suite (tests/authjs-suite) sets the clock and leaves it set.
 * `tests/isolation.test.ts` finds such files and fails when one is missing here.
 */
export const ISOLATED: readonly string[] = [
  "tests/authjs-parity-account.test.ts",
  "tests/authjs-parity-jwt-sliding.test.ts",
  "tests/authjs-parity-return-redirect.test.ts",
  "tests/authjs-parity-statements.test.ts",
  "tests/authjs-presets.test.ts",
  "tests/authjs-suite/actions/session.test.ts",
  "tests/config-assertions.test.ts",
  "tests/email-provider.test.ts",
  "tests/migration-inflight.test.ts",
  "tests/session-callback.test.ts",
  "tests/session-decrypt-once.test.ts",
  "tests/webauthn-peer.test.ts",
]
