import { expect, test } from "bun:test";
import { useTestServer } from "../helpers/server.ts";
import { sqliteDb } from "../helpers/test-sql.ts";

const srv = useTestServer("sqlite");

// A SQLite trigger spoils the stored prepared chunks: the failure is staged in SQLite, the code under test is the edge's.
test("a push whose training fails after a successful parse is not reported as 200 stored and trained", async () => {
  const { apiKey, deploymentId } = await srv.seed();
  // Training reads the chunks prepared at upload; spoiling them right after the insert makes training (not parsing) fail.
  sqliteDb(srv.services).run(
    "CREATE TRIGGER spoil_parse AFTER INSERT ON document_parts WHEN NEW.part = 'chunks' BEGIN UPDATE document_parts SET data = CAST('{broken' AS BLOB) WHERE document_id = NEW.document_id AND part = 'chunks'; END",
  );
  try {
    const r = await fetch(`${srv.url}/api/v1/documents`, {
      method: "POST",
      headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "hours.txt", content: "The shop opens at nine and closes at six." }),
    });
    expect(r.status).toBe(500);
    const body = (await r.json()) as { error: { code: string; param?: string; message: string } };
    expect(body.error).toMatchObject({ code: "training_failed", param: "document" });
    const [doc] = await srv.services.documents.list(deploymentId);
    expect(doc?.status).toBe("failed");
    expect(body.error.message).toContain(doc?.id as string);
    expect((await srv.services.repos.deployments.findById(deploymentId))?.trainingStatus).not.toBe("completed");
  } finally {
    sqliteDb(srv.services).run("DROP TRIGGER spoil_parse");
  }
});
