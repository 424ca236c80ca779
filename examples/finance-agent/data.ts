// Fixture data of the example: a deterministic ledger and a few markdown notes.

export interface Transaction {
  id: string;
  date: string;
  payee: string;
  category: string;
  amount: number;
  memo: string;
}

const CATEGORIES: Record<string, string[]> = {
  groceries: ["Fresh Market", "Corner Grocer", "BioCoop"],
  dining: ["Café Lumière", "Noodle Bar", "Pizzeria Roma"],
  transport: ["Metro Pass", "City Bikes", "Rail Europe"],
  utilities: ["Power & Light", "Water Board", "FiberNet"],
  rent: ["Maple Lettings"],
  entertainment: ["Cinema Paradiso", "StreamFlix", "Book Nook"],
};

/** mulberry32: a tiny deterministic PRNG, so every run sees the same ledger. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function buildLedger(): Transaction[] {
  const next = random(2026);
  const out: Transaction[] = [];
  const names = Object.keys(CATEGORIES);
  for (let i = 0; i < 480; i++) {
    const month = 1 + (i % 6);
    const day = 1 + Math.floor(next() * 28);
    const category = names[Math.floor(next() * names.length)] as string;
    const payees = CATEGORIES[category] as string[];
    const payee = payees[Math.floor(next() * payees.length)] as string;
    const amount = category === "rent" ? 1250 : Math.round((5 + next() * (category === "utilities" ? 120 : 80)) * 100) / 100;
    out.push({
      id: `tx-${String(i + 1).padStart(4, "0")}`,
      date: `2026-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`,
      payee,
      category,
      amount,
      memo: `${payee} ${category} purchase, card ending 4242`,
    });
  }
  return out.sort((a, b) => a.date.localeCompare(b.date) || a.id.localeCompare(b.id));
}

/** 480 transactions over January–June 2026. */
export const LEDGER: readonly Transaction[] = Object.freeze(buildLedger());

/** Markdown notes with YAML frontmatter and headings. */
export const NOTES: Readonly<Record<string, string>> = Object.freeze({
  "budget-2026.md": [
    "---",
    "title: Budget 2026",
    "tags: [finance, budget]",
    "updated: 2026-03-01",
    "---",
    "# Budget 2026",
    "",
    "## Monthly limits",
    "- Groceries: 400 EUR",
    "- Dining: 150 EUR",
    "- Transport: 90 EUR",
    "- Entertainment: 60 EUR",
    "",
    "## Rules",
    "Never move money out of the emergency fund without a written reason.",
    "Review subscriptions every quarter.",
    "",
    ...Array.from({ length: 120 }, (_, i) => `Line ${i + 1}: reflections on spending habits, week ${i + 1}, keep receipts and categorize them on Sundays.`),
    "",
    "## Open questions",
    "- Should the dining limit rise during the Lisbon trip?",
  ].join("\n"),
  "trip-lisbon.md": [
    "---",
    "title: Lisbon trip",
    "dates: 2026-05-10 to 2026-05-17",
    "---",
    "# Lisbon trip",
    "## Bookings",
    "Flight booked, confirmation LX-88421. Hotel Alfama, booking HA-2291.",
    "## Budget",
    "Total budget 1400 EUR, of which dining 350 EUR.",
    ...Array.from({ length: 60 }, (_, i) => `Day plan item ${i + 1}: museum, tram 28, pastel de nata at Manteigaria.`),
  ].join("\n"),
  "tax-checklist.md": [
    "---",
    "title: Tax checklist",
    "deadline: 2026-06-30",
    "---",
    "# Tax checklist",
    "## Documents",
    "- Employer statement",
    "- Rent receipts (Maple Lettings)",
    "- Charitable donations",
    "## Deductions",
    "Home office: 15% of utilities.",
  ].join("\n"),
  "savings-goals.md": [
    "---",
    "title: Savings goals",
    "---",
    "# Savings goals",
    "## Emergency fund",
    "Target 6 months of expenses: 12000 EUR.",
    "## New laptop",
    "Target 1800 EUR by September.",
  ].join("\n"),
});
