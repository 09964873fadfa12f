/**
 * `session.providerTokens` resolved once: off (null), or the refresh margin and the bounded wait for a
 * refresh another instance runs.
 */
import type { SessionOptions } from "../../../types.js"
import type { ResolvedProviderTokens } from "../../../types/resolved.js"
export type { ResolvedProviderTokens }

const DEFAULT_MARGIN_S = 60

/** The resolved option, or null when provider tokens are not kept. */
export function resolveProviderTokens(option: SessionOptions["providerTokens"]): ResolvedProviderTokens | null {
  if (option === undefined) return null
  const options = option === "server" ? {} : option
  const margin = options.refreshMargin ?? DEFAULT_MARGIN_S
  const wait = options.refreshWait
  return Object.freeze({
    refreshMarginMs: Math.max(0, Number.isFinite(margin) ? margin : DEFAULT_MARGIN_S) * 1000,
    refreshWaitMs: wait !== undefined && Number.isFinite(wait) ? Math.max(0, wait) : undefined,
  })
}
