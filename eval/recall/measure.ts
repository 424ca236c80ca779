// Evidence recall: for each question, the share of its gold evidence turns visible in
// the view each system builds for the conversation followed by the question.
import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import { lineId } from "../../packages/core/src/view/line-id.js";
import type { RecallConversation, RecallQuestion, RecallTurn } from "./types.js";

/** Characters of a turn's text looked for in the view text. */
export const KEY_CHARS = 40;

/**
 * The conversation as checkpoint messages: the first speaker's turns are
 * HumanMessages, the second's AIMessages, each with id = the turn's id, content
 * "<speaker>: <text>", and the session's date in `additional_kwargs.session_date`
 * and, on the first turn of each session, before the text as "(session n, <date>)".
 */
export function conversationMessages(conversation: RecallConversation): BaseMessage[] {
  return conversation.turns.map((turn, i) => {
    const header = i === 0 || conversation.turns[i - 1]?.session !== turn.session ? `(session ${turn.session}, ${turn.date}) ` : "";
    const fields = { id: turn.id, content: `${header}${turn.speaker}: ${turn.text}`, additional_kwargs: { session_date: turn.date, dia_id: turn.id } };
    return turn.role === 0 ? new HumanMessage(fields) : new AIMessage(fields);
  });
}

export function questionMessage(question: RecallQuestion): HumanMessage {
  return new HumanMessage({ id: `question-${question.id}`, content: question.text });
}

const normalize = (text: string) => text.replace(/\s+/g, " ").trim();

/** Text of a message's content (strings and text blocks), whitespace collapsed. */
export function messageText(message: BaseMessage): string {
  const content = message.content as unknown;
  if (typeof content === "string") return normalize(content);
  if (!Array.isArray(content)) return "";
  return normalize(content.map((block: unknown) => (typeof block === "string" ? block : typeof (block as { text?: unknown }).text === "string" ? (block as { text: string }).text : "")).join(" "));
}

/** What a view shows, indexed once for the visibility rule. */
export interface ViewText {
  byId: Map<string, string>;
  all: string;
  /**
   * Every line of every message, whitespace collapsed (a recalled block has a line per
   * message), with the `[date …]` heading above it in its message, if any.
   */
  lines: { text: string; heading: string | undefined }[];
}

export function viewText(view: readonly BaseMessage[]): ViewText {
  const byId = new Map<string, string>();
  const lines: ViewText["lines"] = [];
  const texts = view.map((m) => {
    const text = messageText(m);
    if (m.id) byId.set(m.id, `${byId.get(m.id) ?? ""}\n${text}`);
    let heading: string | undefined;
    if (typeof m.content === "string") {
      for (const raw of m.content.split("\n")) {
        const line = normalize(raw);
        const date = /^\[date (.+)\]$/.exec(line)?.[1];
        if (date !== undefined) heading = date;
        else lines.push({ text: line, heading });
      }
    }
    return text;
  });
  return { byId, all: texts.join("\n"), lines };
}

/**
 * How a line of a block that quotes several messages names one of them: `id <id>]`
 * at the end of its header, the id whole or as contextview's recalled lines show it
 * (`lineId`: "…" and the last characters of a long one).
 */
export function lineNames(line: string, id: string): boolean {
  return line.includes(`id ${id}]`) || line.includes(`id ${lineId(id)}]`);
}

/**
 * The visibility rule. The key is the first KEY_CHARS characters of the turn's own
 * text (whitespace collapsed). A turn is visible when a view message with the turn's
 * id contains the key, or a line of the view names the turn's id in its header (see
 * {@link lineNames}) and holds the key, or — for turns whose text is at least KEY_CHARS
 * long, so the key is specific — when the key appears anywhere in the view's text (an
 * evidence excerpt, a rewritten or relabelled copy). A shorter turn ("Thanks!") counts
 * only by its id.
 */
export function turnVisible(turn: Pick<RecallTurn, "id" | "text">, view: ViewText): boolean {
  const text = normalize(turn.text);
  const key = text.slice(0, KEY_CHARS);
  if (view.byId.get(turn.id)?.includes(key)) return true;
  if (text.length >= KEY_CHARS) return view.all.includes(key);
  return view.lines.some((line) => line.text.includes(key) && lineNames(line.text, turn.id));
}

/** Share of the question's evidence turns visible in the view. */
export function evidenceRecall(question: RecallQuestion, turns: ReadonlyMap<string, RecallTurn>, view: ViewText): number {
  const gold = question.evidence.map((id) => turns.get(id)).filter((t): t is RecallTurn => t !== undefined);
  if (gold.length === 0) return 0;
  return gold.filter((t) => turnVisible(t, view)).length / gold.length;
}

/**
 * The dating rule: a visible turn is dated when the model can tell when it was said —
 * a line of the view that holds the turn's key also holds its session's date (the
 * session's first turn with its header, a line that names it), or sits under a
 * `[date <its date>]` heading of the same message (contextview's recalled block with
 * `messageDate`), or the first turn of its session, which opens with
 * "(session n, <date>)", is in the view by id (the view keeps conversation order, so
 * the turns after it are that day's).
 */
export function turnDated(turn: RecallTurn, view: ViewText, sessionStart: string): boolean {
  if (!turnVisible(turn, view)) return false;
  if (view.byId.has(sessionStart)) return true;
  const key = normalize(turn.text).slice(0, KEY_CHARS);
  return view.lines.some((line) => line.text.includes(key) && (line.text.includes(turn.date) || line.heading === turn.date));
}

/** Share of the question's evidence turns visible with their date (see {@link turnDated}). */
export function datedRecall(question: RecallQuestion, turns: ReadonlyMap<string, RecallTurn>, view: ViewText, sessionStarts: ReadonlyMap<number, string>): number {
  const gold = question.evidence.map((id) => turns.get(id)).filter((t): t is RecallTurn => t !== undefined);
  if (gold.length === 0) return 0;
  return gold.filter((t) => turnDated(t, view, sessionStarts.get(t.session) ?? "")).length / gold.length;
}
