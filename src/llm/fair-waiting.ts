import type { Tenant } from "./backend.ts";

export interface Waiter {
  tenant: Tenant;
  grant(): void;
  refuse(e: unknown): void;
}

/**
 * The waiting requests, grouped by account and then by deployment, handed out round-robin: each account in
 * turn, and within an account each of its deployments in turn. One busy tenant's backlog therefore never
 * sits in front of another tenant's single question.
 */
export function createFairWaiting() {
  const byDeployment = new Map<string, Waiter[]>();
  const deploymentsOf = new Map<string, string[]>();
  const accountOrder: string[] = [];
  let total = 0;

  const depKey = (t: Tenant) => `${t.accountId}|${t.deploymentId}`;
  const acctKey = (t: Tenant) => String(t.accountId);

  function forget(dep: string, acct: string) {
    byDeployment.delete(dep);
    const deps = deploymentsOf.get(acct);
    if (!deps) return;
    deps.splice(deps.indexOf(dep), 1);
    if (deps.length > 0) return;
    deploymentsOf.delete(acct);
    accountOrder.splice(accountOrder.indexOf(acct), 1);
  }

  return {
    get size() {
      return total;
    },
    waitingFor(t: Tenant): { deployment: number; account: number } {
      const deps = deploymentsOf.get(acctKey(t)) ?? [];
      const account = deps.reduce((n, d) => n + (byDeployment.get(d)?.length ?? 0), 0);
      return { deployment: byDeployment.get(depKey(t))?.length ?? 0, account };
    },
    push(w: Waiter): void {
      const dep = depKey(w.tenant);
      const acct = acctKey(w.tenant);
      let q = byDeployment.get(dep);
      if (!q) {
        q = [];
        byDeployment.set(dep, q);
        let deps = deploymentsOf.get(acct);
        if (!deps) {
          deps = [];
          deploymentsOf.set(acct, deps);
          accountOrder.push(acct);
        }
        deps.push(dep);
      }
      q.push(w);
      total++;
    },
    /** The next waiter in round-robin order, or undefined. */
    shift(): Waiter | undefined {
      const acct = accountOrder.shift();
      if (acct === undefined) return undefined;
      const deps = deploymentsOf.get(acct) as string[];
      const dep = deps.shift() as string;
      const q = byDeployment.get(dep) as Waiter[];
      const w = q.shift() as Waiter;
      total--;
      if (q.length > 0) deps.push(dep);
      else byDeployment.delete(dep);
      if (deps.length > 0) accountOrder.push(acct);
      else deploymentsOf.delete(acct);
      return w;
    },
    remove(w: Waiter): boolean {
      const dep = depKey(w.tenant);
      const q = byDeployment.get(dep);
      const at = q?.indexOf(w) ?? -1;
      if (!q || at < 0) return false;
      q.splice(at, 1);
      total--;
      if (q.length === 0) forget(dep, acctKey(w.tenant));
      return true;
    },
    /** The newest waiter of the deployment with the longest wait line, and that line's length. */
    heaviest(): { waiter: Waiter; length: number } | null {
      let best: Waiter[] | null = null;
      for (const q of byDeployment.values()) if (!best || q.length > best.length) best = q;
      const last = best?.at(-1);
      return best && last ? { waiter: last, length: best.length } : null;
    },
  };
}
