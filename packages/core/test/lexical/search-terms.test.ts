import fc from "fast-check";
import { searchTerms, termOf, unicodeSearchTerms } from "../../src/lexical/search-terms.js";

// The ASCII scan is a second reading of the one tokenization: it must give the very terms,
// in the same order, that the regular expressions give.
const ALPHABET = [..."aAbBeEdDgGiInNsSzZ019", ..."-_./:@#", " ", ",", "!", "'", "\n", "--", "..", "ing", "ed", "es", "s", "the", "RES-42", "2023-05-08"];

describe("searchTerms on ASCII text", () => {
  it("gives the terms of the regular-expression definition on random ASCII text", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...ALPHABET), { maxLength: 60 }), (parts) => {
        const text = parts.join("");
        expect(searchTerms(text)).toEqual(unicodeSearchTerms(text));
      }),
      { numRuns: 3000, seed: 26 },
    );
  });

  it("gives the same terms on real shapes: JSON rows, identifiers, dates, prose with endings", () => {
    const texts = [
      JSON.stringify({ rows: [{ id: "TX-2026-0042", date: "2026-05-08T10:00:00Z", amount: 12.5, note: "Booked flights for the bookings" }] }),
      "v1.2.3 a_b c::d e.-f user@example.com #tag -x- ..y.. q12.3 q12.3.",
      "Ceasing bookings: booked, books, buses, sings, things, s, es, ed, ing, 42ing, 2023-05-08.",
      "a".repeat(20_000) + "-b",
    ];
    for (const text of texts) expect(searchTerms(text)).toEqual(unicodeSearchTerms(text));
  });

  it("folds endings as termOf does and keeps numbers whole", () => {
    expect(searchTerms("bookings things sings 007 bed")).toEqual(["book", "thing", "sing", "007", "bed"]);
    for (const word of ["bookings", "teses", "needs", "sing", "ceding", "bussed", "ss", "ings"]) expect(searchTerms(word)).toEqual([termOf(word)]);
  });

  it("gives the forms of one word one term, and words that differ their own", () => {
    const forms = [
      ["hike", "hikes", "hiked", "hiking"],
      ["like", "likes", "liked", "liking"],
      ["dance", "dances", "danced", "dancing"],
      ["horse", "horses"],
      ["activity", "activities"],
      ["study", "studies", "studied", "studying"],
      ["play", "plays", "played", "playing"],
      ["book", "books", "booked", "booking", "bookings"],
    ];
    for (const group of forms) expect(new Set(group.map(termOf))).toEqual(new Set([termOf(group[0] as string)]));
    expect(new Set(forms.map((group) => termOf(group[0] as string))).size).toBe(forms.length);
    // Three letters stay: a short word keeps its final e, and its y is only written i.
    expect(["eye", "one", "use", "day"].map(termOf)).toEqual(["eye", "one", "use", "dai"]);
    expect(searchTerms("Went hiking; she hikes.")).toEqual(searchTerms("went hike; she hike"));
  });

  it("reads non-ASCII text by the definition", () => {
    expect(searchTerms("Café RÉS-42 ｆｕｌｌ")).toEqual(unicodeSearchTerms("Café RÉS-42 ｆｕｌｌ"));
    expect(searchTerms("Café RÉS-42")).toEqual(["café", "rés", "42", "rés-42"]);
  });
});

describe("searchTerms on text written without spaces (Chinese, Japanese, Korean)", () => {
  it.each([
    ["我的狗叫饼干", ["我的", "的狗", "狗叫", "叫饼", "饼干"]],
    ["東京2020オリンピック", ["東京", "2020", "オリ", "リン", "ンピ", "ピッ", "ック"]],
    ["コーヒーを飲みたい", ["コー", "ーヒ", "ヒー", "ーを", "を飲", "飲み", "みた", "たい"]],
    ["저는 커피를 좋아해요", ["저는", "커피", "피를", "좋아", "아해", "해요"]],
    ["犬 and 𠀋𠀌 ok", ["犬", "𠀋𠀌"]],
    ["Café 東 RES-42", ["café", "東", "res", "42", "res-42"]],
    ["ฉันชอบกาแฟ", ["ฉั", "ัน", "นช", "ชอ", "อบ", "บก", "กา", "าแ", "แฟ"]],
  ])("%s", (text, expected) => {
    expect(searchTerms(text)).toEqual(expected);
  });

  it("lets a question find a sentence that shares words but no spaces with it", () => {
    const fact = new Set(searchTerms("我们去年领养了一只小狗，我的狗叫饼干。"));
    const shared = searchTerms("我的狗叫什么名字？").filter((term) => fact.has(term));
    expect(shared).toEqual(["我的", "的狗", "狗叫"]);
  });
});

describe("searchTerms keeps the combining marks of a word", () => {
  it("reads a Hindi word whole, vowel signs and all, where it was cut into letters", () => {
    expect(searchTerms("मेरे कुत्ते का नाम बिस्कुट है")).toEqual(["मेरे", "कुत्ते", "का", "नाम", "बिस्कुट", "है"]);
    const fact = new Set(searchTerms("मेरे कुत्ते का नाम बिस्कुट है"));
    expect(searchTerms("मेरे कुत्ते का नाम क्या है?").filter((term) => fact.has(term))).toEqual(["मेरे", "कुत्ते", "का", "नाम", "है"]);
  });

  it("keeps an identifier with marks whole besides its parts", () => {
    expect(searchTerms("कोड-42")).toEqual(["कोड", "42", "कोड-42"]);
  });
});
