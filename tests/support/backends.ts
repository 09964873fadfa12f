/**
 * The adapter backends the end-to-end suites run against, each started for real on loopback.
 */
import type { Adapter } from "../../src/adapters/types.js"
import { MemoryAdapter } from "../../src/adapters/memory.js"

export interface Backend {
  readonly name: string
  /** Starts what the backend needs and returns a fresh adapter. */
  setup(): Promise<{ adapter: Adapter; teardown(): Promise<void> }>
  /** A fresh adapter without setup (memory only). */
  make?(): Adapter
}

export const memoryBackend: Backend = {
  name: "memory",
  async setup() {
    return { adapter: MemoryAdapter(), teardown: async () => {} }
  },
  make: () => MemoryAdapter(),
}

export const backends: Backend[] = [memoryBackend]
