import { EventError } from "../../errors.js"
import type { EventCallbacks } from "../../types.js"
import type { RequestContext } from "../../types/request.js"

/** Fires an event handler; a throw is logged as `EventError` and never breaks the request. */
export async function fireEvent<K extends keyof EventCallbacks>(
  ctx: Pick<RequestContext, "config">,
  name: K,
  message: Parameters<NonNullable<EventCallbacks[K]>>[0],
): Promise<void> {
  const handler = ctx.config.events[name] as ((m: typeof message) => unknown) | undefined
  if (!handler) return
  try {
    await handler(message)
  } catch (err) {
    ctx.config.logger.error(new EventError(`The ${name} event handler threw.`, { err }))
  }
}
