import { availableParallelism } from "node:os"
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
    // vitest's default is one worker fewer than the cores: a single worker on CI's 2 cores, which then
    // spends much of the run waiting on Chromium, servers and child processes with the second core idle.
    // A worker per core (at least two) keeps both busy.
    maxWorkers: Math.max(2, availableParallelism()),
    setupFiles: ["tests/setup/loopback-only.ts"],
  },
})
