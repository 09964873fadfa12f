/**
 * A provider's own `fetch` for its discovery, token, userinfo and refresh requests (a proxy, a custom CA,
 * a test double), as Auth.js' `customFetch`: `GitHub({ [customFetch]: proxiedFetch })`. The symbol
 * exported by `@auth/core` / `@auth/express` is honoured too.
 */
export const customFetch: unique symbol = Symbol("custom-fetch")
