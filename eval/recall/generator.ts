// A deterministic generator of multi-session chats for `pnpm eval recall`: two
// friends talk over many sessions; personal facts are planted at known turns amid
// small talk that reuses their vocabulary, and questions at the end ask for them,
// some in the fact's words ("overlap"), some in other words ("paraphrase").
import type { RecallConversation, RecallQuestion, RecallSource, RecallTurn } from "./types.js";

/** mulberry32: a small seeded PRNG, the same sequence on every machine. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rand = () => number;
function shuffle<T>(r: Rand, list: readonly T[]): T[] {
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}
const pick = <T>(r: Rand, list: readonly T[]): T => list[Math.floor(r() * list.length)] as T;

const PEOPLE = ["Maya", "Jonas", "Aisha", "Tomás", "Leila", "Viktor", "Priya", "Owen", "Nadia", "Kenji", "Rosa", "Elliot", "Farah", "Lukas", "Imani", "Dmitri", "Sofia", "Marcus", "Yara", "Henrik"];
const CITIES = ["Lisbon", "Montreal", "Osaka", "Tallinn", "Valparaíso", "Edinburgh", "Porto", "Nairobi", "Ljubljana", "Hobart", "Tucson", "Bergen"];

/** A fact: the turn that plants it (by the first or second speaker), an optional follow-up, and the questions about it. */
interface FactTemplate {
  plant: (v: Record<string, string>) => string;
  /** A second evidence turn, by the other speaker, right after the plant. */
  follow?: (v: Record<string, string>) => string;
  overlap: (v: Record<string, string>, who: string) => string;
  paraphrase: (v: Record<string, string>, who: string) => string;
  values: (r: Rand) => Record<string, string>;
}

const FACTS: readonly FactTemplate[] = [
  {
    values: (r) => ({ breed: pick(r, ["beagle", "corgi", "greyhound", "border collie"]), pet: pick(r, ["Biscuit", "Pickle", "Noodle", "Juniper", "Waffles"]) }),
    plant: (v) => `Big news at home: we finally adopted a ${v.breed} puppy last weekend, and we named him ${v.pet}.`,
    overlap: (_v, who) => `What did ${who} name the puppy they adopted?`,
    paraphrase: (_v, who) => `What is ${who}'s dog called?`,
  },
  {
    values: (r) => ({ sib: pick(r, PEOPLE), city: pick(r, CITIES) }),
    plant: (v) => `My sister ${v.sib} just signed a lease in ${v.city}, she moves there at the end of next month.`,
    overlap: (v) => `Where did ${v.sib} sign a lease?`,
    paraphrase: (_v, who) => `Which city is ${who}'s sibling relocating to?`,
  },
  {
    values: (r) => ({ company: pick(r, ["Halden Robotics", "Bluefin Analytics", "Corvid Labs", "Marlow & Finch"]), role: pick(r, ["data engineer", "product designer", "field technician", "account manager"]) }),
    plant: (v) => `I accepted the offer from ${v.company} today! I'll be starting as a ${v.role} in three weeks.`,
    overlap: (_v, who) => `Which offer did ${who} accept, and as what?`,
    paraphrase: (_v, who) => `Who is ${who}'s new employer and what position will they hold?`,
  },
  {
    values: (r) => ({ food: pick(r, ["shellfish", "sesame", "peanuts", "kiwi"]) }),
    plant: (v) => `Quick thing to remember for the dinner party: I'm seriously allergic to ${v.food}, even a trace sets me off.`,
    overlap: (_v, who) => `What is ${who} allergic to?`,
    paraphrase: (_v, who) => `Which ingredient must be kept off the menu when cooking for ${who}?`,
  },
  {
    values: (r) => ({ instrument: pick(r, ["cello", "banjo", "clarinet", "piano"]), day: pick(r, ["Tuesday", "Thursday", "Saturday"]) }),
    plant: (v) => `I've started taking ${v.instrument} lessons, every ${v.day} evening with a teacher from the conservatory.`,
    overlap: (_v, who) => `What lessons has ${who} started taking?`,
    paraphrase: (_v, who) => `Which musical instrument is ${who} learning to play?`,
  },
  {
    values: (r) => ({ color: pick(r, ["dark green", "silver", "burgundy"]), car: pick(r, ["station wagon", "hatchback", "pickup truck"]) }),
    plant: (v) => `We traded in the old sedan and came home with a ${v.color} ${v.car}, much better for the camping trips.`,
    overlap: (_v, who) => `What did ${who} trade the old sedan in for?`,
    paraphrase: (_v, who) => `What kind of vehicle does ${who}'s family drive now?`,
  },
  {
    values: (r) => ({ date: `${pick(r, ["3", "11", "19", "27"])} ${pick(r, ["March", "June", "September", "November"])}` }),
    plant: (v) => `Remind me to book somewhere nice, our wedding anniversary is on ${v.date} and I always leave it too late.`,
    overlap: (_v, who) => `When is ${who}'s wedding anniversary?`,
    paraphrase: (_v, who) => `On what date did ${who} and their spouse get married?`,
  },
  {
    values: (r) => ({ book: pick(r, ["The Remains of the Day", "Piranesi", "A Gentleman in Moscow", "Station Eleven"]) }),
    plant: (v) => `The book club picked ${v.book} for this month, so that's my evenings sorted.`,
    overlap: (_v, who) => `Which book did ${who}'s book club pick?`,
    paraphrase: (_v, who) => `What novel is ${who}'s reading group discussing?`,
  },
  {
    values: (r) => ({ city: pick(r, CITIES), month: pick(r, ["April", "October", "May"]) }),
    plant: (v) => `I signed up for the ${v.city} half marathon in ${v.month}, so the running shoes are coming back out.`,
    overlap: (_v, who) => `Which half marathon did ${who} sign up for?`,
    paraphrase: (_v, who) => `What race is ${who} training for, and when is it?`,
  },
  {
    values: (r) => ({ doc: pick(r, ["Okafor", "Lindqvist", "Barros", "Hayashi"]) }),
    plant: (v) => `My new physiotherapist is Dr. ${v.doc}; she's the first one who actually got my knee moving again.`,
    overlap: (_v, who) => `Who is ${who}'s new physiotherapist?`,
    paraphrase: (_v, who) => `Which doctor is treating ${who}'s injured joint?`,
  },
  {
    values: (r) => ({ dest: pick(r, ["Crete", "Hokkaido", "Patagonia", "the Dolomites"]), stay: pick(r, ["a farmhouse near the coast", "a cabin above the lake", "a guesthouse by the old harbour"]) }),
    plant: (v) => `We finally decided where to go this summer: ${v.dest}, two weeks, no laptops allowed.`,
    follow: (v) => `Two weeks in ${v.dest}, I'm jealous! Take ${v.stay} my cousin runs, I'll send you the link.`,
    overlap: (v, who) => `Which place was recommended for ${who}'s ${v.dest} trip?`,
    paraphrase: (_v, who) => `Where was ${who} told to sleep during the summer holiday, and in which region?`,
  },
  {
    values: (r) => ({ brother: pick(r, PEOPLE), shop: pick(r, ["bakery", "bike repair shop", "record store"]) }),
    plant: (v) => `My brother ${v.brother} is opening a ${v.shop} downtown; the lease starts in spring.`,
    overlap: (_v, who) => `What is ${who}'s brother opening downtown?`,
    paraphrase: (_v, who) => `What sort of business is ${who}'s sibling launching?`,
  },
];

// Small talk that shares the facts' vocabulary (dogs, cities, books, running, cars, doctors) without holding them.
const OPENERS = ["Honestly,", "So,", "Ha,", "Funny you say that,", "Well,", "Oh man,", "Right,", "Yeah,", ""];
const SMALL_TALK = [
  "the neighbour's dog barked all night again, I barely slept",
  "traffic in the city was a nightmare this morning",
  "I read a review of some new novel but it sounded dull",
  "work has been a lot of meetings and not much progress",
  "we tried that new noodle place, the broth was incredible",
  "the weather flipped from sunshine to hail in ten minutes",
  "I keep meaning to go running but the sofa keeps winning",
  "my car needed new tyres, which was an annoying expense",
  "the doctor's waiting room had magazines from 2015",
  "I watched a documentary about octopuses, they're so clever",
  "we spent Sunday repainting the hallway, it looks fresh now",
  "someone at the office brought homemade lemon cake",
  "the train was cancelled so I worked from a café",
  "I finally cleaned out the garage, found my old skateboard",
  "my phone screen cracked when I dropped it at the market",
  "the kids next door have discovered the drum kit",
  "we hosted a board game night and it ran until two",
  "I've been trying to cook more vegetables this month",
  "the gym was packed, everyone's new year resolutions",
  "I got lost in a podcast about medieval history",
  "the garden is full of tomatoes and I don't know what to do with them",
  "my cousin sent photos from a trip, the mountains looked unreal",
  "there's a street festival this weekend with live music",
  "I signed up for a newsletter and now I get ten emails a day",
  "the library had a book sale, I came home with a stack",
  "I think I'm finally getting the hang of the new job's software",
  "the heating broke and the landlord is taking his time",
  "I tried a pottery class, my bowl looks like a hat",
];
const FOLLOWUPS = ["How about you?", "Anything new on your side?", "What have you been up to?", "How was your week?", "", "", "Did you ever sort that out?", "Tell me something good."];
const REPLIES = ["That sounds great, congratulations!", "Oh wow, I didn't see that coming.", "Nice, good for you.", "Ha, I love that.", "That's a big step!", "Makes sense to me.", "Oh no, that sounds rough.", "Keep me posted on that."];

function smallTalk(r: Rand): string {
  const first = SMALL_TALK[Math.floor(r() * SMALL_TALK.length)] as string;
  const second = r() < 0.5 ? ` Also ${pick(r, SMALL_TALK)}.` : "";
  const opener = pick(r, OPENERS);
  const text = `${opener ? `${opener} ` : ""}${first}.${second} ${pick(r, FOLLOWUPS)}`.trim();
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const DAY = 86_400_000;
const dateText = (ms: number) => new Date(ms).toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

/** One conversation: `length` turns in sessions of 12–40, with about one fact per 40 turns, the first at turn 3. */
export function generateConversation(seed: number, length: number): RecallConversation {
  const r = rng(seed);
  const [a, b] = [PEOPLE[seed % PEOPLE.length] as string, PEOPLE[(seed * 7 + 3) % PEOPLE.length] as string];
  const factCount = Math.min(FACTS.length, Math.max(2, Math.round(length / 40)));
  const slots = new Set<number>([2]);
  while (slots.size < factCount) slots.add(4 + Math.floor(r() * (length - 8)));
  const facts = shuffle(r, FACTS).slice(0, factCount);
  const plants = new Map([...slots].sort((x, y) => x - y).map((turn, i) => [turn, facts[i % facts.length] as FactTemplate]));
  const turns: RecallTurn[] = [];
  const questions: RecallQuestion[] = [];
  let session = 1;
  let inSession = 0;
  let sessionLength = 12 + Math.floor(r() * 29);
  let day = Date.UTC(2023, 0, 5) + Math.floor(r() * 30) * DAY;
  let follow: { text: string; evidence: string[] } | undefined;
  for (let i = 0; i < length; i++) {
    if (inSession >= sessionLength && !follow) {
      session += 1;
      inSession = 0;
      sessionLength = 12 + Math.floor(r() * 29);
      day += (2 + Math.floor(r() * 12)) * DAY;
    }
    const role = (i % 2) as 0 | 1;
    const id = `D${session}:${inSession + 1}`;
    const speaker = role === 0 ? a : b;
    let text: string;
    const fact = plants.get(i);
    if (follow) {
      text = follow.text;
      follow.evidence.push(id);
      follow = undefined;
    } else if (fact) {
      const values = fact.values(r);
      text = fact.plant(values);
      const evidence = [id];
      const ask = (kind: "overlap" | "paraphrase", words: string) => questions.push({ id: `${seed}-${questions.length + 1}`, text: words, evidence, category: kind });
      ask("overlap", fact.overlap(values, speaker));
      ask("paraphrase", fact.paraphrase(values, speaker));
      if (fact.follow) follow = { text: fact.follow(values), evidence };
    } else {
      text = plants.has(i - 1) ? pick(r, REPLIES) : smallTalk(r);
    }
    turns.push({ id, role, speaker, text, session, date: dateText(day) });
    inSession += 1;
  }
  return { id: `generated-${seed}`, turns, questions };
}

/** The generated source: `conversations` chats of 300–600 turns, from one seed. */
export function generatedSource(conversations = 10, seed = 26): RecallSource {
  const r = rng(seed);
  const list = Array.from({ length: conversations }, (_, i) => generateConversation(seed * 1000 + i, 300 + Math.floor(r() * 301)));
  return { name: "generated", description: `generator (seed ${seed}): ${conversations} two-person chats, 300–600 turns, facts planted at known turns, questions in the fact's words and in other words`, conversations: list };
}
