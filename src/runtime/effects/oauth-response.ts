/**
 * A provider's answer as a web `Response`, for oauth4webapi, without a web stream: the body is already
 * in memory (oauth-http.ts reads it whole), so `text()`, `json()` and `clone()` answer from the string.
 */
import type { ProviderAnswer } from "./oauth-http.js"

/**
 * A web `Response` whose body is already in memory (read whole and bounded above): `text()`, `json()`,
 * `arrayBuffer()` and `clone()` answer from it without a web stream, which would cost more than the
 * rest of reading the answer. Whoever reads `body` (or `blob()`, `formData()`) gets a real `Response`'s
 * stream, and from then on every method is that `Response`'s. The class is made on first use: `extends
 * Response` at import would load Node's fetch implementation (undici, about 3 MB of RSS) in every app,
 * also in one that never calls a provider.
 */
function defineReadResponse() {
  return class ReadResponse extends Response {
    readonly #text: string | null
    #used = false
    #real: Response | undefined

    constructor(text: string | null, init: ResponseInit) {
      super(null, init)
      this.#text = text
    }

    #realized(): Response {
      if (!this.#real) {
        if (this.#used) throw new TypeError("Body is unusable: Body has already been read")
        this.#real = new Response(this.#text, { status: this.status, statusText: this.statusText, headers: this.headers })
      }
      return this.#real
    }

    #take(): string {
      if (this.#used) throw new TypeError("Body is unusable: Body has already been read")
      this.#used = true
      return this.#text ?? ""
    }

    override get body(): Response["body"] {
      return this.#text === null ? null : this.#realized().body
    }

    override get bodyUsed(): boolean {
      return this.#real ? this.#real.bodyUsed : this.#used
    }

    override async text(): Promise<string> {
      return this.#real ? this.#real.text() : this.#take()
    }

    override async json(): Promise<unknown> {
      return this.#real ? this.#real.json() : JSON.parse(this.#take())
    }

    override async arrayBuffer(): Promise<ArrayBuffer> {
      if (this.#real) return this.#real.arrayBuffer()
      return new TextEncoder().encode(this.#take()).buffer
    }

    override blob(): Promise<Blob> {
      return this.#realized().blob()
    }

    override formData(): Promise<FormData> {
      return this.#realized().formData()
    }

    override clone(): Response {
      if (this.#real) return this.#real.clone()
      if (this.#used) throw new TypeError("Response.clone: Body has already been consumed.")
      return new ReadResponse(this.#text, { status: this.status, statusText: this.statusText, headers: this.headers })
    }
  }
}
let ReadResponse: ReturnType<typeof defineReadResponse> | undefined

/**
 * A provider's answer as a web `Response` (for oauth4webapi): its headers without the wire's
 * `content-length` and `content-encoding` (the body handed on is decoded), its body text in memory.
 * @example const tokens = await o.processAuthorizationCodeResponse(as, client, answerResponse(answer), options)
 */
export function answerResponse(answer: ProviderAnswer): Response {
  const headers = new Headers()
  const raw = answer.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = raw[i]
    const value = raw[i + 1]
    const lower = name?.toLowerCase()
    // the body handed on is decoded: its length and coding are no longer the wire's
    if (name === undefined || value === undefined || lower === "content-encoding" || lower === "content-length") continue
    headers.append(name, value)
  }
  ReadResponse ??= defineReadResponse()
  return new ReadResponse(answer.text, { status: answer.status, statusText: answer.statusText, headers })
}
