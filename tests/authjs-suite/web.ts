/**
 * From Auth.js: `randomString` of https://github.com/nextauthjs/next-auth/blob/main/packages/core/src/lib/utils/web.ts
 * (the suite imports it from Auth.js' source, which authchart does not export). ISC License, Copyright
 * (c) 2022-2024, Balázs Orbán (the Auth.js authors); see tests/authjs-suite/README.md.
 */
export function randomString(size: number) {
  const i2hex = (i: number) => `0${i.toString(16)}`.slice(-2)
  const r = (a: string, i: number): string => a + i2hex(i)
  const bytes = crypto.getRandomValues(new Uint8Array(size))
  return Array.from(bytes).reduce(r, "")
}
