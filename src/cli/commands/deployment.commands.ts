import { appError } from "../../errors/index.ts";
import { ownerDeploymentView } from "../../server/routes/owner/owner-views.ts";
import type { DeploymentPatch } from "../../store/contract/index.ts";
import { optionalString, requiredOption } from "../args.ts";
import { type Command, defineCommand, resultCommand } from "../command.ts";

/** What an owner sees of a deployment: the console's view (settings, status, key display prefix, never the key). */
export const deploymentView = ownerDeploymentView;

function positionalId(ctx: { positionals: string[] }): string {
  const id = ctx.positionals[0];
  if (!id) throw appError("bad_request", { message: "The deployment ID is required.", param: "id" });
  return id;
}

function parseQa(raw: string): { question: string; answer: string } {
  const at = raw.indexOf("=>");
  if (at < 0) throw appError("bad_request", { message: `--qa must look like "Question=>Answer": ${raw}`, param: "qa" });
  return { question: raw.slice(0, at).trim(), answer: raw.slice(at + 2).trim() };
}

/** A key push share: a whole number, or "default" (the service's DOCCHAT_PUSH_MAX_*); undefined when not given. */
function shareLimit(values: Record<string, unknown>, flag: string): number | null | undefined {
  const raw = values[flag];
  if (typeof raw !== "string") return undefined;
  if (raw.trim() === "default") return null;
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isInteger(n) || n < 0)
    throw appError("bad_request", { message: `--${flag} must be a whole number of at least 0, or default.`, param: flag });
  return n;
}

/** An allow-list flag: comma-separated CIDRs, or none (or nothing) for an empty list; undefined when not given. */
function cidrList(values: Record<string, unknown>, flag: string): string[] | undefined {
  const raw = values[flag];
  if (typeof raw !== "string") return undefined;
  const v = raw.trim();
  return v === "none" || v === ""
    ? []
    : v
        .split(",")
        .map((c) => c.trim())
        .filter(Boolean);
}

function patchFrom(values: Record<string, unknown>): DeploymentPatch {
  const patch: DeploymentPatch = {};
  if (values.publish && values.unpublish) throw appError("bad_request", { message: "Use --publish or --unpublish, not both." });
  if (values.publish) patch.published = true;
  if (values.unpublish) patch.published = false;
  if (typeof values.name === "string") patch.name = values.name;
  if (typeof values.persona === "string") patch.persona = values.persona;
  if (typeof values.description === "string") patch.description = values.description;
  if (typeof values.temperature === "string") {
    const t = Number(values.temperature);
    if (values.temperature.trim() === "" || !Number.isFinite(t))
      throw appError("bad_request", { message: "--temperature must be a number.", param: "temperature" });
    patch.temperature = t;
  }
  if (typeof values.handoff === "string") {
    if (values.handoff !== "on" && values.handoff !== "off")
      throw appError("bad_request", { message: "--handoff must be on or off.", param: "handoff" });
    patch.handoffEnabled = values.handoff === "on";
  }
  if (typeof values["refusal-threshold"] === "string") {
    const raw = values["refusal-threshold"].trim();
    const x = Number(raw);
    if (raw !== "default" && (raw === "" || !Number.isFinite(x)))
      throw appError("bad_request", {
        message: "--refusal-threshold must be a number from 0 to 1, or default.",
        param: "refusal_threshold",
      });
    patch.refusalThreshold = raw === "default" ? null : x;
  }
  patch.ipAllow = cidrList(values, "ip-allow");
  const onOff = (flag: string): boolean | undefined => {
    const v = values[flag];
    if (typeof v !== "string") return undefined;
    if (v !== "on" && v !== "off") throw appError("bad_request", { message: `--${flag} must be on or off.`, param: flag });
    return v === "on";
  };
  patch.keyManagesDocuments = onOff("key-manages-documents");
  patch.pushEnabled = onOff("push");
  patch.pushIpAllow = cidrList(values, "push-ip-allow");
  patch.pushMaxDocuments = shareLimit(values, "push-max-documents");
  patch.pushMaxBytes = shareLimit(values, "push-max-bytes");
  if (typeof values.languages === "string") {
    const v = values.languages.trim();
    patch.languages = v === "auto" || v === "" ? [] : v.split(",").map((c) => c.trim());
  }
  if (typeof values["refusal-text"] === "string") {
    const v = values["refusal-text"].trim();
    patch.refusalText = v === "default" || v === "" ? null : v;
  }
  const starters = values["starter-question"] as string[] | undefined;
  if (starters?.length) patch.starterQuestions = starters.length === 1 && starters[0] === "none" ? [] : starters;
  const qa = values.qa as string[] | undefined;
  if (qa?.length) patch.qaPairs = qa.length === 1 && qa[0] === "none" ? [] : qa.map(parseQa);
  return patch;
}

export const deploymentCommands: Command[] = [
  defineCommand({
    usage: "deployment create --account E --name NAME [--kind docs|private_gpt] [--publish]",
    summary: "Create a deployment and its API key (the key is shown once).",
    options: {
      account: { type: "string", doc: "owner email" },
      name: { type: "string", doc: "display name" },
      kind: { type: "string", doc: "docs (default) or private_gpt" },
      publish: { type: "boolean", doc: "publish immediately" },
    },
    async run(ctx) {
      const account = requiredOption(ctx, "account");
      const name = requiredOption(ctx, "name");
      const s = await ctx.services();
      const owner = await s.accounts.getByEmailOrThrow(account);
      const { deployment, apiKey } = await s.deployments.create({
        accountId: owner.id,
        name,
        kind: (ctx.values.kind as "docs" | "private_gpt" | undefined) ?? "docs",
        published: ctx.values.publish === true,
      });
      ctx.print({ id: deployment.id, name: deployment.name, kind: deployment.kind, published: deployment.published, api_key: apiKey });
      if (!ctx.json) ctx.progress("Store the API key now: it cannot be shown again.");
      return 0;
    },
  }),
  defineCommand({
    usage:
      'deployment update ID [--publish|--unpublish] [--persona T] [--description T] [--temperature X] [--handoff on|off] [--refusal-threshold X|default] [--languages de,en|auto] [--refusal-text T|default] [--ip-allow CIDR,...|none] [--push on|off] [--push-ip-allow CIDR,...|none] [--push-max-documents N|default] [--push-max-bytes N|default] [--key-manages-documents on|off] [--starter-question Q]... [--qa "Q=>A"]...',
    summary: "Change a deployment's settings (repeatable lists replace the previous list; 'none' clears).",
    options: {
      name: { type: "string", doc: "new display name" },
      publish: { type: "boolean", doc: "publish" },
      unpublish: { type: "boolean", doc: "unpublish" },
      persona: { type: "string", doc: "persona text that governs tone" },
      description: { type: "string", doc: "what the documents cover (agents read it in the MCP server's instructions)" },
      temperature: { type: "string", doc: "default temperature 0–2" },
      handoff: { type: "string", doc: "on|off" },
      "refusal-threshold": {
        type: "string",
        doc: "lowest grounding score 0–1 that is answered; default = the service default for the retrieval mode (see deployment show)",
      },
      languages: {
        type: "string",
        doc: "comma-separated language codes (de,en) the documents are written in; auto = detect per document (deployment show lists what was detected)",
      },
      "refusal-text": {
        type: "string",
        doc: "your own refusal, said in every language; default = docchat's, in the visitor's language",
      },
      "ip-allow": { type: "string", doc: "comma-separated CIDRs, or none" },
      push: { type: "string", doc: "on|off: the API key may push documents (POST /api/v1/documents)" },
      "push-ip-allow": { type: "string", doc: "comma-separated CIDRs allowed to push documents, or none (any allowed address)" },
      "push-max-documents": {
        type: "string",
        doc: "documents the API key may keep pushed in this deployment (its own share, apart from the account's quota), or default",
      },
      "push-max-bytes": { type: "string", doc: "bytes the API key may keep pushed in this deployment, or default" },
      "key-manages-documents": {
        type: "string",
        doc: "on|off: the API key may list and remove documents (the key is public in the widget: keep off unless needed)",
      },
      "starter-question": { type: "string", multiple: true, doc: "starter question shown by the widget" },
      qa: { type: "string", multiple: true, doc: 'pre-generated Q&A pair "Question=>Answer"' },
    },
    async run(ctx) {
      const id = positionalId(ctx);
      const s = await ctx.services();
      const d = await s.deployments.update(id, patchFrom(ctx.values));
      ctx.print(await deploymentView(s, d));
      return 0;
    },
  }),
  resultCommand({
    usage: "deployment show ID",
    summary: "Show settings, training status and the key's display prefix (never the key).",
    options: {},
    result: async (ctx, s) => deploymentView(s, await s.deployments.getOrThrow(positionalId(ctx))),
  }),
  resultCommand({
    usage: "deployment list [--account E]",
    summary: "List deployments, optionally of one account.",
    options: { account: { type: "string", doc: "owner email" } },
    async result(ctx, s) {
      const email = optionalString(ctx.values.account);
      const accountId = email === undefined ? undefined : (await s.accounts.getByEmailOrThrow(email)).id;
      return { deployments: await Promise.all((await s.repos.deployments.list(accountId)).map((d) => deploymentView(s, d))) };
    },
  }),
  resultCommand({
    usage: "key regenerate ID",
    summary: "Delete the deployment's key and create a new one (shown once).",
    options: {},
    result: async (ctx, s) => ({ id: positionalId(ctx), api_key: await s.deployments.regenerateKey(positionalId(ctx)) }),
  }),
  keyStateCommand("disable", "Disable the deployment's key (calls with it get 401)."),
  keyStateCommand("enable", "Re-enable a disabled key."),
];

/** `key disable ID` / `key enable ID`: switches the key off or on, keeping it. */
function keyStateCommand(verb: "disable" | "enable", summary: string): Command {
  return resultCommand({
    usage: `key ${verb} ID`,
    summary,
    options: {},
    async result(ctx, s) {
      const disabled = verb === "disable";
      await s.deployments.setKeyDisabled(positionalId(ctx), disabled);
      return { id: positionalId(ctx), key_disabled: disabled };
    },
  });
}
