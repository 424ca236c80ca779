// The user side of the example conversation: deterministic requests, each tagged
// with a marker `[rN]` so that tests and benchmarks can follow it.

const MONTHS = ["2026-01", "2026-02", "2026-03", "2026-04", "2026-05", "2026-06"];
const CATEGORIES = ["groceries", "dining", "transport", "utilities", "entertainment"];

const TEMPLATES: ((i: number) => string)[] = [
  (i) => `How much did I spend on ${CATEGORIES[i % 5]} in ${MONTHS[i % 6]}?`,
  (i) => `Please read my budget note, line ${1 + ((i * 7) % 120)} onwards.`,
  (i) => `Remember: I never want to spend more than ${300 + (i % 5) * 25} EUR on groceries in a month.`,
  (i) => `What did I spend on dining in ${MONTHS[(i + 2) % 6]}, and what does the lisbon trip note say?`,
  (i) => `Show my ${CATEGORIES[(i + 1) % 5]} transactions.`,
  () => "Thanks, that helps. Let's decide to review subscriptions every quarter.",
  () => "Read the tax checklist note please.",
  (i) => `Compare with ${CATEGORIES[(i + 3) % 5]} spending in ${MONTHS[(i + 4) % 6]}.`,
];

/** The n-th user request of the scripted conversation. */
export function userRequest(i: number): string {
  const template = TEMPLATES[i % TEMPLATES.length] as (i: number) => string;
  return `[r${i}] ${template(i)}`;
}

/** The marker of the n-th request. */
export function requestMarker(i: number): string {
  return `[r${i}]`;
}
