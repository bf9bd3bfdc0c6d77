import { type VisitorMessages, visitorMessages } from "../../shared/visitor-messages.ts";
/** The widget's calls to docchat: widget config, the GET SSE stream (EventSource), feedback and handoff. */
export interface WidgetConfig {
  id: string;
  name: string;
  starter_questions: string[];
  qa_pairs: { question: string; answer: string }[];
  handoff_enabled: boolean;
  /** false when the owner's mail is off: the handoff is listed for the owner, nobody is mailed */
  handoff_mail?: boolean;
}

/** A cited passage the visitor may open (only when the owner allows it): a signed, short-lived link. */
export interface CitationLink {
  source: string;
  page: number | null;
  /** the last page the passage runs onto */
  pageEnd: number | null;
  row: number | null;
  url: string;
}

export interface TurnEnd {
  chatLogId: number | null;
  conversationId: string | null;
  sources: string[];
  citations: CitationLink[];
  refused: boolean;
}

export interface StreamHandlers {
  onDelta(text: string): void;
  onDone(end: TurnEnd): void;
  onError(message: string): void;
}

interface Frame {
  error?: { message?: string };
  conversation_id?: string;
  chat_log_id?: number;
  sources?: unknown;
  refused?: boolean;
  citations?: unknown;
  choices?: { delta?: { content?: string }; finish_reason?: string | null }[];
}

/** Only links to this docchat's own /cite/ pages are shown. */
function citationsOf(raw: unknown, base: string): CitationLink[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((c: Partial<CitationLink>) =>
    typeof c?.url === "string" && c.url.startsWith("/cite/") && typeof c.source === "string"
      ? [
          {
            source: c.source,
            page: typeof c.page === "number" ? c.page : null,
            pageEnd: typeof (c as { page_end?: unknown }).page_end === "number" ? (c as { page_end: number }).page_end : null,
            row: typeof c.row === "number" ? c.row : null,
            url: `${base}${c.url}`,
          },
        ]
      : [],
  );
}

export function createWidgetClient(base: string, key: string, t: VisitorMessages = visitorMessages("en")) {
  const UNAVAILABLE = t.temporarilyUnavailable;
  async function post<T>(path: string, body: unknown = {}): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
    } catch {
      throw new Error(t.widget.unreachable);
    }
    const data = (await res.json().catch(() => null)) as (T & { error?: { message?: string } }) | null;
    if (!res.ok || !data) throw new Error(typeof data?.error?.message === "string" ? data.error.message : UNAVAILABLE);
    return data;
  }

  return {
    config: () => post<WidgetConfig>("/api/v1/widget/config"),
    feedback: (chatLogId: number, rating: 0 | 1) => post("/api/v1/widget/feedback", { chat_log_id: chatLogId, feedback: rating }),
    handoff: (body: { email: string; name: string; message: string; conversation_id?: string; chat_log_id?: number }) =>
      post("/api/v1/widget/handoff", body),

    /** Streams one answer. EventSource cannot read an HTTP error body, so a failure before any frame asks the (free) config endpoint why. */
    ask(message: string, conversationId: string | null, h: StreamHandlers): () => void {
      const q = new URLSearchParams({ stream: "true", api_key: key, message });
      if (conversationId) q.set("conversation_id", conversationId);
      const es = new EventSource(`${base}/api/v1/chat/completions?${q}`);
      let received = false;
      let finished = false;
      let end: TurnEnd | null = null;
      const finish = (fn: () => void) => {
        if (finished) return;
        finished = true;
        es.close();
        fn();
      };
      es.onmessage = (ev: MessageEvent<string>) => {
        received = true;
        if (ev.data === "[DONE]")
          return finish(() => h.onDone(end ?? { chatLogId: null, conversationId, sources: [], citations: [], refused: false }));
        let f: Frame;
        try {
          f = JSON.parse(ev.data) as Frame;
        } catch {
          return;
        }
        if (f.error) return finish(() => h.onError(typeof f.error?.message === "string" ? f.error.message : UNAVAILABLE));
        const choice = f.choices?.[0];
        if (choice?.delta?.content) h.onDelta(choice.delta.content);
        if (choice?.finish_reason) {
          const sources = Array.isArray(f.sources) ? f.sources.filter((s): s is string => typeof s === "string") : [];
          end = {
            chatLogId: typeof f.chat_log_id === "number" ? f.chat_log_id : null,
            conversationId: f.conversation_id ?? conversationId,
            sources,
            citations: citationsOf(f.citations, base),
            refused: f.refused === true,
          };
        }
      };
      es.onerror = () => {
        if (finished) return;
        if (end) return finish(() => h.onDone(end as TurnEnd));
        if (received) return finish(() => h.onError(t.widget.interrupted));
        finish(() => {
          post("/api/v1/widget/config").then(
            () => h.onError(UNAVAILABLE),
            (e: Error) => h.onError(e.message),
          );
        });
      };
      return () => finish(() => {});
    },
  };
}

export type WidgetClient = ReturnType<typeof createWidgetClient>;
