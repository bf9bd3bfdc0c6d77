import { appError } from "../../errors/index.ts";
import { erasureSubject } from "../../owner/privacy.service.ts";
import { erasureView, policyView } from "../../server/routes/owner/owner-insight-views.ts";
import { optionalString } from "../args.ts";
import { type Command, defineCommand } from "../command.ts";

export const privacyCommands: Command[] = [
  defineCommand({
    usage: "visitor erase (--email EMAIL | --conversation ID) [--account EMAIL] [--deployment ID]",
    summary:
      "Erase one visitor's chat logs, leads and lead mails (every deployment of every account, or of one account or deployment), and record it.",
    options: {
      email: { type: "string", doc: "the visitor's email (chat logs and leads that carry it, and their conversations)" },
      conversation: { type: "string", doc: "a conversation id (conv-…)" },
      account: { type: "string", doc: "only this owner account's deployments" },
      deployment: { type: "string", doc: "only this deployment" },
    },
    async run(ctx) {
      const subject = erasureSubject({ email: optionalString(ctx.values.email), conversationId: optionalString(ctx.values.conversation) });
      const s = await ctx.services();
      const only = optionalString(ctx.values.deployment);
      const accountEmail = optionalString(ctx.values.account);
      let scopes: { accountId: number; deploymentIds?: string[] }[];
      if (only) {
        const d = await s.deployments.getOrThrow(only);
        scopes = [{ accountId: d.accountId, deploymentIds: [d.id] }];
      } else if (accountEmail) {
        const a = await s.repos.accounts.findByEmail(accountEmail);
        if (!a) throw appError("not_found", { param: "account", message: `No account ${accountEmail}.` });
        scopes = [{ accountId: a.id }];
      } else {
        const owners = new Set((await s.repos.deployments.list()).map((d) => d.accountId));
        scopes = [...owners].map((accountId) => ({ accountId }));
      }
      const erasures = [];
      for (const scope of scopes) erasures.push(erasureView(await s.privacy.erase({ ...scope, subject, via: "cli" })));
      ctx.print({ erasures });
      return 0;
    },
  }),
  defineCommand({
    usage: "deployment policy ID [--retention-days N|off] [--transcripts on|off] [--widget-citations off|page|document]",
    summary: "Show or change how long chat logs are kept, whether transcripts are kept, and what visitors may open from a citation.",
    options: {
      "retention-days": { type: "string", doc: "purge chat logs older than N days (1-3650); off keeps them" },
      transcripts: { type: "string", doc: "off: a conversation's text is erased 30 minutes after its last turn" },
      "widget-citations": { type: "string", doc: "off, page (the cited page, by a signed short-lived link) or document" },
    },
    async run(ctx) {
      const id = ctx.positionals[0];
      if (!id) throw appError("bad_request", { param: "id", message: "The deployment ID is required." });
      const s = await ctx.services();
      const d = await s.deployments.getOrThrow(id);
      const days = optionalString(ctx.values["retention-days"]);
      const transcripts = optionalString(ctx.values.transcripts);
      const citations = optionalString(ctx.values["widget-citations"]);
      if (transcripts !== undefined && transcripts !== "on" && transcripts !== "off")
        throw appError("bad_request", { param: "transcripts", message: "--transcripts is on or off." });
      if (citations !== undefined && !["off", "page", "document"].includes(citations))
        throw appError("bad_request", { param: "widget_citations", message: "--widget-citations is off, page or document." });
      if (days !== undefined && days !== "off" && !/^\d{1,4}$/.test(days))
        throw appError("bad_request", { param: "retention_days", message: "--retention-days is a number of days or off." });
      const changed = days !== undefined || transcripts !== undefined || citations !== undefined;
      const p = changed
        ? await s.privacy.setPolicy(d.id, {
            retentionDays: days === undefined ? undefined : days === "off" ? null : Number(days),
            transcripts: transcripts === undefined ? undefined : transcripts === "on",
            widgetCitations: citations as "off" | "page" | "document" | undefined,
          })
        : await s.privacy.policy(d.id);
      ctx.print({ deployment_id: d.id, ...policyView(p) });
      return 0;
    },
  }),
];
