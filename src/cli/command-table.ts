import type { Command } from "./command.ts";
import { accountCommands } from "./commands/account.commands.ts";
import { backupCommands } from "./commands/backup.commands.ts";
import { chatLogsCommands } from "./commands/chat-logs.commands.ts";
import { dbCommands } from "./commands/db.commands.ts";
import { deploymentCommands } from "./commands/deployment.commands.ts";
import { doctorCommand } from "./commands/doctor.command.ts";
import { documentsCommands } from "./commands/documents.commands.ts";
import { evalCommand } from "./commands/eval.command.ts";
import { internalCommands } from "./commands/internal.commands.ts";
import { mcpCommand } from "./commands/mcp.command.ts";
import { modelsCommand } from "./commands/models.command.ts";
import { privacyCommands } from "./commands/privacy.commands.ts";
import { serveCommand } from "./commands/serve.command.ts";
import { visitorCommands } from "./commands/visitor.commands.ts";

export const commands: Command[] = [
  serveCommand,
  ...accountCommands,
  ...deploymentCommands,
  ...documentsCommands,
  modelsCommand,
  ...visitorCommands,
  ...chatLogsCommands,
  evalCommand,
  ...privacyCommands,
  mcpCommand,
  doctorCommand,
  ...backupCommands,
  ...dbCommands,
  ...internalCommands,
];
