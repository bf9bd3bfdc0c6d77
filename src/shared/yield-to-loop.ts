/** Lets the event loop serve requests between two bounded pieces of work. */
export const yieldToLoop = (): Promise<void> => new Promise<void>((r) => setImmediate(r));
