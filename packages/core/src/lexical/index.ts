export { wordsOf, sameWord, containsPhrase, contentWords, STOPWORDS } from "./words.js";
export { messageText, requestText, currentRequestIndex } from "./request-text.js";
