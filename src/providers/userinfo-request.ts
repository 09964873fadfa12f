/**
 * One userinfo request with a bounded timeout, for presets whose provider wants something the standard
 * Bearer GET does not give (a POST, an extra header, the token in the path). Throws on an error status,
 * keeping the status as evidence in `cause`.
 *
 * @example
 * ```ts
 * const me = await requestJson("https://api.dropboxapi.com/2/users/get_current_account", {
 *   method: "POST",
 *   accessToken: tokens.access_token,
 *   timeout: 10_000,
 * })
 * ```
 */
export interface UserinfoRequestOptions {
  /** Sent as `Authorization: Bearer <token>` when given. */
  accessToken?: string
  method?: "GET" | "POST"
  headers?: Record<string, string>
  /** A request body (sent as is; set its `Content-Type` in `headers`). */
  body?: string
  /** Milliseconds; default 10 000. */
  timeout?: number
}

export async function requestJson(url: string, options: UserinfoRequestOptions = {}): Promise<Record<string, unknown>> {
  const headers: Record<string, string> = { Accept: "application/json", ...(options.headers ?? {}) }
  if (options.accessToken !== undefined) headers.Authorization = `Bearer ${options.accessToken}`
  const response = await fetch(url, {
    method: options.method ?? "GET",
    headers,
    ...(options.body === undefined ? {} : { body: options.body }),
    signal: AbortSignal.timeout(options.timeout ?? 10_000),
  })
  if (!response.ok) throw new Error("The userinfo request failed", { cause: { status: response.status, url } })
  return (await response.json()) as Record<string, unknown>
}
