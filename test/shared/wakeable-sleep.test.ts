import { expect, test } from "bun:test";
import { createWakeableSleep } from "../../src/shared/wakeable-sleep.ts";

test("a wake cuts a sleep short, and a wake that comes while nobody sleeps makes the next sleep return at once", async () => {
  const pause = createWakeableSleep();
  const t0 = performance.now();
  const sleeping = pause.sleep(60_000);
  setTimeout(() => pause.wake(), 10);
  await sleeping;
  // woken while busy (not sleeping): kept for the next sleep, once
  pause.wake();
  await pause.sleep(60_000);
  expect(performance.now() - t0).toBeLessThan(30_000);
  // the kept wake was used up: this sleep runs its course
  let done = false;
  void pause.sleep(50).then(() => {
    done = true;
  });
  await Bun.sleep(5);
  expect(done).toBe(false);
  await Bun.sleep(100);
  expect(done).toBe(true);
});
