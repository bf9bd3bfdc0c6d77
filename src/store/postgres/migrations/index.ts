import m001 from "./001_retrieval.sql" with { type: "text" };
import m002 from "./002_core.sql" with { type: "text" };
import m003 from "./003_rate_limits.sql" with { type: "text" };
import m004 from "./004_owner_insight.sql" with { type: "text" };
import m005 from "./005_agents.sql" with { type: "text" };
import m006 from "./006_tenant_bounds.sql" with { type: "text" };
import m007 from "./007_languages.sql" with { type: "text" };
import m008 from "./008_status_counts.sql" with { type: "text" };
import m009 from "./009_vector_codes.sql" with { type: "text" };

/** PostgreSQL's own migrations (numbered apart from SQLite's). Imported as text so they ship inside the binary. Append only. */
export const pgMigrations: { version: number; name: string; sql: string }[] = [
  { version: 1, name: "retrieval", sql: m001 },
  { version: 2, name: "core", sql: m002 },
  { version: 3, name: "rate_limits", sql: m003 },
  { version: 4, name: "owner_insight", sql: m004 },
  { version: 5, name: "agents", sql: m005 },
  { version: 6, name: "tenant_bounds", sql: m006 },
  { version: 7, name: "languages", sql: m007 },
  { version: 8, name: "status_counts", sql: m008 },
  { version: 9, name: "vector_codes", sql: m009 },
];
