/**
 * Reads the first POST form of an HTML page the way a browser submits it: its `action`, its hidden
 * fields, and its named buttons (a button's name and value are sent when it is the one pressed).
 */

/** A page's form, ready to be posted. */
export interface PageForm {
  action: string
  /** Hidden inputs by name (`csrfToken`, `step`, …). */
  hidden: Record<string, string>
  /** Buttons that carry a name, with their value and text. */
  buttons: { name: string; value: string; label: string }[]
}

const ATTRIBUTE = /([\w:-]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g

function attributes(tag: string): Record<string, string> {
  const found: Record<string, string> = {}
  for (const m of tag.replace(/^<\w+/, "").matchAll(ATTRIBUTE)) {
    const name = (m[1] ?? "").toLowerCase()
    found[name] = unescapeHtml(m[2] ?? m[3] ?? m[4] ?? "")
  }
  return found
}

/** The first `<form method="post">` of `html`, or null. */
export function postFormIn(html: string): PageForm | null {
  for (const form of html.matchAll(/<form\b[^>]*>([\s\S]*?)<\/form>/gi)) {
    const attrs = attributes(/^<form\b[^>]*>/i.exec(form[0])?.[0] ?? "")
    if ((attrs.method ?? "get").toLowerCase() !== "post") continue
    const body = form[1] ?? ""
    const hidden: Record<string, string> = {}
    for (const input of body.matchAll(/<input\b[^>]*>/gi)) {
      const a = attributes(input[0])
      if ((a.type ?? "").toLowerCase() === "hidden" && a.name) hidden[a.name] = a.value ?? ""
    }
    const buttons = [...body.matchAll(/<button\b([^>]*)>([\s\S]*?)<\/button>/gi)].flatMap((b) => {
      const a = attributes(`<button${b[1] ?? ""}>`)
      return a.name ? [{ name: a.name, value: a.value ?? "", label: unescapeHtml((b[2] ?? "").replace(/<[^>]*>/g, "").trim()) }] : []
    })
    return { action: attrs.action ?? "", hidden, buttons }
  }
  return null
}

function unescapeHtml(value: string): string {
  return value
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&#x([0-9a-f]+);/gi, (_, code: string) => String.fromCharCode(Number.parseInt(code, 16)))
    .replaceAll("&quot;", '"')
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&")
}
