/**
 * The suite runs the dependencies' production builds, as an app's Node resolves them (vitest.config.ts
 * drops the `development` export condition vitest adds). xstate's development build throws where its
 * production build answers quietly: a runtime that leaned on the throw passed here and failed for users.
 */
import { createRequire } from "node:module"
import { describe, expect, it } from "vitest"
import { not } from "xstate"

describe("the dependencies the tests load", () => {
  it("xstate is its production build: a builtin guard called as a function answers false instead of throwing", () => {
    const guard = not(() => true) as unknown as () => unknown
    expect(guard()).toBe(false)
  })

  it("xstate resolves to the file Node gives an app", () => {
    expect(import.meta.resolve("xstate")).not.toMatch(/development/)
    expect(createRequire(import.meta.url).resolve("xstate")).not.toMatch(/development/)
  })
})
