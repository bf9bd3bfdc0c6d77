/** The baseline for the HTTP benchmarks: Elysia with one JSON route and nothing else, in its own process. */
import { Elysia } from "elysia";

const app = new Elysia().get("/", () => ({ hello: "world" })).listen({ port: 0, hostname: "127.0.0.1" });
process.stdout.write(`${app.server?.port}\n`);
process.on("SIGTERM", () => process.exit(0));
