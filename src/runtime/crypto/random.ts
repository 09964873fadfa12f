/**
 * Random bytes in batches: one `randomFillSync` call fills a pool that many small draws (nonces, IVs,
 * CSRF tokens, UUIDv7 tails) are cut from. Every byte is handed out once and copied out, so no two
 * draws share bytes and no caller can see or change another's.
 */
import { randomFillSync } from "node:crypto"

const POOL_SIZE = 4096
const pool = Buffer.allocUnsafeSlow(POOL_SIZE)
let offset = POOL_SIZE

/**
 * `size` fresh random bytes from the CSPRNG, as a new Buffer (like `crypto.randomBytes(size)`).
 * @example const iv = randomBytes(16)
 */
export function randomBytes(size: number): Buffer {
  if (size > POOL_SIZE / 4) return randomFillSync(Buffer.allocUnsafe(size))
  const out = Buffer.allocUnsafe(size)
  randomInto(out, 0, size)
  return out
}

/**
 * Writes `size` fresh random bytes (at most a quarter of the pool) into `target` at `at`, so a caller
 * that has a buffer makes no other.
 * @example randomInto(macInput, ivAt, 16)
 */
export function randomInto(target: Buffer, at: number, size: number): void {
  if (size > POOL_SIZE / 4) throw new RangeError("randomInto takes at most a quarter of the pool")
  if (offset + size > POOL_SIZE) {
    randomFillSync(pool)
    offset = 0
  }
  pool.copy(target, at, offset, offset + size)
  // the pool's used bytes are overwritten, so a later reader of the pool memory finds nothing handed out
  pool.fill(0, offset, offset + size)
  offset += size
}
