/**
 * The tokens-debited counter counts what each turn's debit took, on both engines, even when turns of one account
 * are recorded at the same time and the balance runs out part-way.
 */
import { expect, test } from "bun:test";
import { observeDebits } from "../../src/chat/observe-chat.ts";
import { createMetrics } from "../../src/metrics/metrics.ts";
import { describeStores } from "../helpers/stores.ts";
import { seedOwner, turn } from "../helpers/visitor-seed.ts";

const debitedTotal = async (metrics: ReturnType<typeof createMetrics>) =>
  Number(/^docchat_tokens_debited_total (\S+)$/m.exec(await metrics.scrape())?.[1] ?? 0);

describeStores("the tokens-debited counter", (ctx) => {
  test("twelve turns of one account recorded at once count exactly what left the balance", async () => {
    const store = ctx.store();
    const o = await seedOwner(store, 1000);
    const metrics = createMetrics({ depths: store.repos.queueDepths });
    const chatLogs = observeDebits(store.repos.chatLogs, metrics);
    // 12 × 100 tokens against a balance of 1000: the last ones are charged what is left, then nothing
    const recorded = await Promise.all(
      Array.from({ length: 12 }, () => chatLogs.record(turn({ ...o, promptTokens: 60, completionTokens: 40 }))),
    );
    expect((await store.repos.accounts.findById(o.accountId))?.tokens).toBe(0);
    expect(recorded.reduce((n, r) => n + r.debited, 0)).toBe(1000);
    expect(await debitedTotal(metrics)).toBe(1000);
  });
});
