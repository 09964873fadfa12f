/**
 * Answers worked out from a string key alone, kept for the next request that asks (a flow's requests
 * name the same callback URL, a config the same auth URL). One policy for every such map in the
 * runtime: it starts again (cleared) once it holds `limit` keys, and keeps nothing for a key longer
 * than `maxKeyLength`, so keys a client chooses cannot make it hold more than `limit` × `maxKeyLength`
 * characters.
 */
export class KeptAnswers<V> {
  readonly #answers = new Map<string, V>()

  constructor(
    readonly limit: number,
    readonly maxKeyLength: number = Number.POSITIVE_INFINITY,
  ) {}

  /** The answer kept for `key`, or undefined. */
  get(key: string): V | undefined {
    return this.#answers.get(key)
  }

  /** Keeps `answer` for `key` (unless the key is too long to keep) and returns it. */
  keep(key: string, answer: V): V {
    if (key.length <= this.maxKeyLength) {
      if (this.#answers.size >= this.limit) this.#answers.clear()
      this.#answers.set(key, answer)
    }
    return answer
  }

  /** How many answers are kept (for tests: the bound holds). */
  get size(): number {
    return this.#answers.size
  }
}
