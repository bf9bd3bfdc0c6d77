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
import { type SmtpSink, startSmtpSink, waitUntil } from "../helpers/smtp-sink.ts";

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

  test("the rate limit holds across nodes: the 121st /api/v1/models call in a minute is refused wherever it lands", async () => {
    const codes: number[] = [];
    for (let i = 0; i < 121; i++) {
      const node = nodes[i % nodes.length] as ServeProcess;
      codes.push((await fetch(`${node.url}/api/v1/models`, { headers: auth() })).status);
    }
    expect(codes.slice(0, 120).every((c) => c === 200)).toBe(true);
    expect(codes[120]).toBe(429);
  });

  test("a key disabled through the CLI gets 401 on every node within one second", async () => {
    const models = (node: ServeProcess) =>
      fetch(`${node.url}/api/v1/widget/config`, { method: "POST", headers: auth() }).then((r) => r.status);
    for (const n of nodes) expect(await models(n)).toBe(200);
    const cli = await runCliProcess(["key", "disable", deploymentId, "--data", seederDir, "--json"], env);
    expect(`${cli.code} ${cli.stderr}`).toBe("0 ");
    const disabledAt = performance.now();
    const seenAt = await Promise.all(
      nodes.map(async (n) => {
        while (performance.now() - disabledAt < 5000) {
          if ((await models(n)) === 401) return performance.now() - disabledAt;
          await Bun.sleep(20);
        }
        return Number.POSITIVE_INFINITY;
      }),
    );
    expect(Math.max(...seenAt)).toBeLessThan(1000);
    expect((await runCliProcess(["key", "enable", deploymentId, "--data", seederDir, "--json"], env)).code).toBe(0);
    await waitUntil(
      async () => (await Promise.all(nodes.map(models))).every((c) => c === 200),
      "the key to work again on every node",
      5000,
    );
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
