import type { DocumentsStore } from "../store/contract/index.ts";

/**
 * Resolves true when every document has left queued/processing, false when `ms` has passed first. The training
 * worker's change events answer at once; the poll covers training done elsewhere (another node on PostgreSQL,
 * another process on the data dir). One check at a time: a burst of change events never stacks up queries.
 */
export async function waitUntilSettled(
  documents: Pick<DocumentsStore, "get">,
  onChange: (listener: () => void) => () => void,
  ids: string[],
  ms: number,
): Promise<boolean> {
  const settled = async () => {
    for (const id of ids) {
      const d = await documents.get(id);
      if (d && d.status !== "completed" && d.status !== "failed" && d.status !== "stored") return false;
    }
    return true;
  };
  if (await settled()) return true;
  return await new Promise<boolean>((resolve) => {
    let done = false;
    let checking = false;
    const check = () => {
      if (checking || done) return;
      checking = true;
      settled()
        .then((ok) => ok && finish(true))
        .catch(() => {})
        .finally(() => {
          checking = false;
        });
    };
    const timer = setTimeout(() => finish(false), ms);
    const poll = setInterval(check, 100);
    const off = onChange(check);
    function finish(v: boolean) {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearInterval(poll);
      off();
      resolve(v);
    }
  });
}
