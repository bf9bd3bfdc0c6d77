/** Polls until `check` is true; fails with `what` if that takes longer than `timeoutMs` (a hang guard, not a timing assertion). */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await Bun.sleep(20);
  }
}
