// @contextview/core/estimators: token estimators beside the default one (`createEstimator`,
// at the root): a tokenizer's counts (js-tiktoken), a caller's `tokenCounter`, and the text
// estimate the default one uses.

export { estimateTextTokens } from "./estimators/text-tokens.js";
export { createTiktokenEstimator, type TiktokenEncoding, type TiktokenEstimatorOptions } from "./estimators/tiktoken.js";
export { estimatorFromTokenCounter } from "./estimators/token-counter.js";
