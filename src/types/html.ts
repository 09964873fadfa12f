/** Escaped markup, as the pages and a flow's sign-in block are written with (`html` makes it). */

declare const safe: unique symbol

/**
 * Markup that is already escaped. Only `html` and `attr` make one, so a plain string can never reach
 * the page unescaped.
 * @example const greeting: SafeHtml = html`<p>Hello, ${user.name}</p>` // the name is escaped
 */
export interface SafeHtml {
  readonly [safe]: true
  toString(): string
}
