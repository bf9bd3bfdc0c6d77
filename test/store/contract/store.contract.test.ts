import { expect, test } from "bun:test";
import { describeStores } from "../../helpers/stores.ts";

describeStores("a store", (ctx) => {
  test("answers a ping and starts with no chunks", async () => {
    await ctx.store().ping();
    expect(await ctx.store().hasChunks()).toBe(false);
    expect(ctx.store().engine).toBe(ctx.engine);
  });
});
