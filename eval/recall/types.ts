/** One turn of a multi-session chat: a LoCoMo dialogue turn or a generated one. */
export interface RecallTurn {
  /** Stable id (LoCoMo's dia_id, "D<session>:<n>"); the message id in every view. */
  id: string;
  /** 0: the first speaker (a HumanMessage), 1: the second (an AIMessage). */
  role: 0 | 1;
  speaker: string;
  text: string;
  /** 1-based session number and its date as the source gives it. */
  session: number;
  date: string;
}

/** A question asked after the whole conversation, with the turns that hold its answer. */
export interface RecallQuestion {
  id: string;
  text: string;
  /** Ids of the gold evidence turns. */
  evidence: string[];
  /** LoCoMo's category (1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop), or the generator's kind. */
  category: string;
}

export interface RecallConversation {
  id: string;
  turns: RecallTurn[];
  questions: RecallQuestion[];
}

/** A data source of `pnpm eval recall`. */
export interface RecallSource {
  name: string;
  description: string;
  conversations: RecallConversation[];
}
