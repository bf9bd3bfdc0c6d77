import m001 from "./001_core.sql" with { type: "text" };
import m002 from "./002_documents.sql" with { type: "text" };
import m003 from "./003_training.sql" with { type: "text" };
import m004 from "./004_visitor.sql" with { type: "text" };
import m005 from "./005_answers.sql" with { type: "text" };
import m006 from "./006_owner_console.sql" with { type: "text" };
import m007 from "./007_per_deployment_keywords.sql" with { type: "text" };
import m008 from "./008_models.sql" with { type: "text" };
import m009 from "./009_ingest.sql" with { type: "text" };
import m010 from "./010_hardening.sql" with { type: "text" };
import m011 from "./011_owner_insight.sql" with { type: "text" };
import m012 from "./012_agents.sql" with { type: "text" };
import m013 from "./013_tenant_bounds.sql" with { type: "text" };
import m014 from "./014_languages.sql" with { type: "text" };
import m015 from "./015_status_counts.sql" with { type: "text" };

/** Imported as text so they ship inside the compiled binary. Append only; never edit a released one. */
export const migrations: { version: number; name: string; sql: string }[] = [
  { version: 1, name: "core", sql: m001 },
  { version: 2, name: "documents", sql: m002 },
  { version: 3, name: "training", sql: m003 },
  { version: 4, name: "visitor", sql: m004 },
  { version: 5, name: "answers", sql: m005 },
  { version: 6, name: "owner_console", sql: m006 },
  { version: 7, name: "per_deployment_keywords", sql: m007 },
  { version: 8, name: "models", sql: m008 },
  { version: 9, name: "ingest", sql: m009 },
  { version: 10, name: "hardening", sql: m010 },
  { version: 11, name: "owner_insight", sql: m011 },
  { version: 12, name: "agents", sql: m012 },
  { version: 13, name: "tenant_bounds", sql: m013 },
  { version: 14, name: "languages", sql: m014 },
  { version: 15, name: "status_counts", sql: m015 },
];
