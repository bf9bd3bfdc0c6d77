import { appError } from "../errors/index.ts";
import type { ChatLogFeedbackStore } from "../store/contract/index.ts";

/** Visitor ratings. The latest rating wins; 0 puts the answer on the corrections list, 1 takes it off. */
export function createFeedbackService(deps: { chatLogs: ChatLogFeedbackStore }) {
  return {
    /** Rates one of the deployment's own chat logs; any other id (another deployment's included) is not found. */
    async rate(deploymentId: string, chatLogId: number, rating: 0 | 1): Promise<void> {
      if (!(await deps.chatLogs.rate(deploymentId, chatLogId, rating))) {
        throw appError("not_found", { message: "No such chat log.", param: "chat_log_id" });
      }
    },
  };
}

export type FeedbackService = ReturnType<typeof createFeedbackService>;
