import { afterEach, describe, expect, it, vi } from "vitest";

// server.ts and Next's bundle each load their own copy of lib's modules; two vitest module registries stand for the
// two copies.
describe("process singletons", () => {
  afterEach(async () => {
    const { forgetProcessSingleton } = await import("../../lib/process-singletons");
    forgetProcessSingleton("test:counter");
  });

  it("gives a second copy of a module the instance the first made", async () => {
    const first = await import("../../lib/api/envelope");
    vi.resetModules();
    const second = await import("../../lib/api/envelope");
    expect(second).not.toBe(first);
    expect(second.responseText).toBe(first.responseText);
  });

  it("makes each value once per key, across copies of the holder itself", async () => {
    const a = await import("../../lib/process-singletons");
    vi.resetModules();
    const b = await import("../../lib/process-singletons");
    expect(b).not.toBe(a);
    const create = vi.fn(() => ({ count: 0 }));
    const one = a.processSingleton("test:counter", create);
    const two = b.processSingleton("test:counter", create);
    expect(two).toBe(one);
    expect(create).toHaveBeenCalledTimes(1);
  });

  it("makes a new value after it was forgotten", async () => {
    const { processSingleton, forgetProcessSingleton } = await import("../../lib/process-singletons");
    const one = processSingleton("test:counter", () => ({ count: 0 }));
    forgetProcessSingleton("test:counter");
    expect(processSingleton("test:counter", () => ({ count: 1 }))).not.toBe(one);
  });
});
