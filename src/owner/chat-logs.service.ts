import { appError } from "../errors/index.ts";
import type { OwnerChatLog, OwnerChatLogsStore } from "../store/contract/index.ts";

/** The owner's reading of a deployment's chat logs. */
export function createChatLogsService(deps: { chatLogs: OwnerChatLogsStore }) {
  return {
    /** Newest first; `beforeId` continues after the last id of a page. */
    list(deploymentId: string, page: { limit: number; beforeId?: number }): Promise<OwnerChatLog[]> {
      return deps.chatLogs.list(deploymentId, page);
    },
    async getOrThrow(deploymentId: string, id: number): Promise<OwnerChatLog> {
      const log = await deps.chatLogs.find(deploymentId, id);
      if (!log) throw appError("not_found", { message: "No such chat log.", param: "chat_log_id" });
      return log;
    },
  };
}

export type ChatLogsService = ReturnType<typeof createChatLogsService>;
