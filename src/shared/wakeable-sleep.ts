/**
 * A background loop's pause between rounds that new work can cut short. A wake that comes while the loop is busy
 * (not sleeping) is kept, so the next sleep returns at once instead of missing it.
 */
export function createWakeableSleep() {
  let woken = false;
  let wakeUp: (() => void) | null = null;
  return {
    sleep(ms: number): Promise<void> {
      if (woken) {
        woken = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const timer = setTimeout(done, ms);
        function done() {
          clearTimeout(timer);
          wakeUp = null;
          woken = false;
          resolve();
        }
        wakeUp = done;
      });
    },
    wake(): void {
      woken = true;
      wakeUp?.();
    },
  };
}
