// The example app's test servers, as an app's test setup would start them: a mailbox and an OpenID
// provider, started before a test file's tests and stopped after them.
import { afterAll, beforeAll } from "vitest"
import { createTestIdP, createTestMailbox } from "authchart/testing"
import type { TestIdP, TestMailbox } from "authchart/testing"

export interface TestServers {
  mailbox: TestMailbox
  idp: TestIdP
}

/** Registers the hooks; the returned object is filled before the first test runs. */
export function useTestServers(): TestServers {
  const servers: Partial<TestServers> = {}
  beforeAll(async () => {
    ;[servers.mailbox, servers.idp] = await Promise.all([createTestMailbox(), createTestIdP()])
  })
  afterAll(async () => {
    await Promise.all([servers.mailbox?.close(), servers.idp?.close()])
  })
  return servers as TestServers
}
