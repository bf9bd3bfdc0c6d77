import type { Command } from "./command.ts";
import { accountCommands } from "./commands/account.commands.ts";
import { deploymentCommands } from "./commands/deployment.commands.ts";
import { documentsCommands } from "./commands/documents.commands.ts";
import { serveCommand } from "./commands/serve.command.ts";

export const commands: Command[] = [serveCommand, ...accountCommands, ...deploymentCommands, ...documentsCommands];
