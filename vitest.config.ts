import { defineConfig } from "vitest/config"
import { publicModules } from "./scripts/exports.mjs"

// Tests may import the package by name (`authchart/testing`, as an app does): each public subpath
// resolves to its source file.
const selfReference = publicModules(import.meta.dirname).map(([subpath, module]) => ({
  find: new RegExp(`^authchart${subpath === "." ? "" : subpath.slice(1)}$`),
  replacement: `${import.meta.dirname}/src/${module}.ts`,
}))

export default defineConfig({
  resolve: { alias: selfReference },
  test: {
    include: ["tests/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // A browser or a child process answers late on a loaded machine: polls wait for the page, not a clock.
    expect: { poll: { timeout: 8_000 } },
    pool: "forks",
    setupFiles: ["tests/setup/loopback-only.ts"],
  },
})
