import type { EvaluationResult } from "./run.js";
import type { CacheModel } from "./cache.js";
import { cacheRows, comparisonRows, detailRows, priceRows, resentRows, tokenizerRows } from "./tables.js";
import type { TokenizerReport } from "./tokenizer-check.js";

const COLORS = ["#1f6feb", "#0a8a5f", "#d97706", "#b42318", "#7c3aed", "#6b7280", "#0e7490"];

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function htmlTable(rows: Record<string, string>[]): string {
  const keys = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return `<table><thead><tr>${keys.map((k) => `<th>${escape(k)}</th>`).join("")}</tr></thead><tbody>${rows.map((r) => `<tr>${keys.map((k) => `<td>${escape(r[k] ?? "")}</td>`).join("")}</tr>`).join("")}</tbody></table>`;
}

function legend(systems: readonly string[]): string {
  return `<div class="legend">${systems.map((s, i) => `<span><i style="background:${COLORS[i % COLORS.length]}"></i>${escape(s)}</span>`).join("")}<span><i class="limit"></i>prompt limit</span></div>`;
}

/**
 * Estimated input tokens per model call, one line per system, against the prompt
 * limit. The y axis stops at 4× the limit; points above it sit on the top edge.
 */
function tokensChart(result: EvaluationResult, fixture: string): string {
  const rows = result.results.filter((r) => r.fixture === fixture);
  const limit = rows[0]?.limit ?? 1;
  const calls = Math.max(1, ...rows.map((r) => r.tokens.perCall.length));
  const top = Math.min(4 * limit, Math.max(limit, ...rows.map((r) => r.tokens.maxInput))) * 1.08;
  const [w, h, left, bottom, pad] = [760, 260, 58, 28, 10];
  const x = (i: number) => left + (calls <= 1 ? 0 : (i / (calls - 1)) * (w - left - pad));
  const y = (v: number) => pad + (1 - Math.min(v, top) / top) * (h - bottom - pad);
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => Math.round(f * top));
  const grid = ticks.map((t) => `<line x1="${left}" x2="${w - pad}" y1="${y(t)}" y2="${y(t)}" class="grid"/><text x="${left - 6}" y="${y(t) + 4}" class="tick" text-anchor="end">${t.toLocaleString("en-US")}</text>`).join("");
  const lines = rows
    .map((r, s) => {
      const points = r.tokens.perCall.flatMap((v, i) => (v === null ? [] : [`${x(i).toFixed(1)},${y(v).toFixed(1)}`])).join(" ");
      return `<polyline points="${points}" fill="none" stroke="${COLORS[s % COLORS.length]}" stroke-width="1.6" opacity="0.85"><title>${escape(r.system)}</title></polyline>`;
    })
    .join("");
  const limitLine = `<line x1="${left}" x2="${w - pad}" y1="${y(limit)}" y2="${y(limit)}" class="limit"/>`;
  const axis = `<text x="${(left + w) / 2}" y="${h - 6}" class="tick" text-anchor="middle">model call (1–${calls})</text>`;
  return `<svg viewBox="0 0 ${w} ${h}" role="img" aria-label="tokens per model call, ${escape(fixture)}">${grid}${limitLine}${lines}${axis}</svg>`;
}

/**
 * Cached against uncached prompt tokens per model call under one cache model: a
 * strip of stacked bars per system (dark: served from the cache; light: shown before
 * and paid again after the prefix moved; mid: new, no cache could serve it).
 */
function cacheChart(result: EvaluationResult, fixture: string, model: CacheModel): string {
  const rows = result.results.filter((r) => r.fixture === fixture);
  const calls = Math.max(1, ...rows.map((r) => r.cache[model].perCall.length));
  const top = Math.max(1, ...rows.flatMap((r) => r.cache[model].perCall.map((c) => c?.prompt ?? 0)));
  const [w, stripH, gap, left, pad] = [760, 46, 16, 178, 10];
  const barW = (w - left - pad) / calls;
  const strips = rows
    .map((r, s) => {
      const y0 = s * (stripH + gap) + 6;
      const color = COLORS[s % COLORS.length] as string;
      const bars = r.cache[model].perCall
        .map((c, i) => {
          if (!c) return "";
          const x = left + i * barW;
          const total = (c.prompt / top) * stripH;
          const cached = (c.cached / top) * stripH;
          const freshTokens = Math.min(r.cache[model].freshPerCall[i] ?? 0, c.prompt - c.cached);
          const fresh = (freshTokens / top) * stripH;
          const title = escape(`${r.system}, call ${i + 1}: ${c.cached} of ${c.prompt} tokens cached, ${freshTokens} new`);
          const rect = (yTop: number, height: number, opacity: string) => `<rect x="${x.toFixed(1)}" y="${yTop.toFixed(1)}" width="${Math.max(0.6, barW - 0.6).toFixed(1)}" height="${height.toFixed(1)}" fill="${color}"${opacity}/>`;
          return `<g><title>${title}</title>${rect(y0 + stripH - total, fresh, ' opacity="0.6"')}${rect(y0 + stripH - total + fresh, total - cached - fresh, ' opacity="0.28"')}${rect(y0 + stripH - cached, cached, "")}</g>`;
        })
        .join("");
      const label = `<text x="${left - 8}" y="${y0 + stripH / 2}" text-anchor="end" class="label">${escape(r.system)}</text><text x="${left - 8}" y="${y0 + stripH / 2 + 13}" text-anchor="end" class="tick">${(r.cache[model].share * 100).toFixed(1)}% cached, ${((r.cache[model].fresh / Math.max(1, r.cache[model].prompt)) * 100).toFixed(1)}% new</text>`;
      return `${label}<line x1="${left}" x2="${w - pad}" y1="${y0 + stripH}" y2="${y0 + stripH}" class="grid"/>${bars}`;
    })
    .join("");
  const h = rows.length * (stripH + gap) + 22;
  const axis = `<text x="${(left + w) / 2}" y="${h - 4}" class="tick" text-anchor="middle">model call (1–${calls}); bar height: prompt tokens (tallest ${top.toLocaleString("en-US")}); dark: cached, light: re-sent after the prefix moved, mid: new</text>`;
  return `<svg viewBox="0 0 ${w} ${h}" role="img" aria-label="cached and uncached prompt tokens per model call, ${escape(fixture)}, ${model}">${strips}${axis}</svg>`;
}

/** Required-fact retention per fixture and system, as grouped bars. */
function retentionChart(result: EvaluationResult): string {
  const systems = result.systems.map((s) => s.name);
  const fixtures = result.fixtures.map((f) => f.name);
  const [w, barH, gap, left, right] = [760, 11, 14, 150, 60];
  const groupH = systems.length * barH + gap;
  const h = fixtures.length * groupH + 20;
  const scale = (ratio: number) => ratio * (w - left - right);
  const bars = fixtures
    .map((fixture, f) => {
      const y0 = f * groupH + 10;
      const label = `<text x="${left - 8}" y="${y0 + (systems.length * barH) / 2 + 4}" text-anchor="end" class="label">${escape(fixture)}</text>`;
      return (
        label +
        systems
          .map((system, s) => {
            const r = result.results.find((x) => x.fixture === fixture && x.system === system);
            if (!r) return "";
            const y = y0 + s * barH;
            return `<rect x="${left}" y="${y}" width="${Math.max(1, scale(r.retention.ratio)).toFixed(1)}" height="${barH - 2}" fill="${COLORS[s % COLORS.length]}"><title>${escape(`${system}: ${r.retention.kept}/${r.retention.required}`)}</title></rect><text x="${left + scale(r.retention.ratio) + 4}" y="${y + barH - 3}" class="tick">${r.retention.kept}/${r.retention.required}</text>`;
          })
          .join("")
      );
    })
    .join("");
  return `<svg viewBox="0 0 ${w} ${h}" role="img" aria-label="required-fact retention per fixture">${bars}<line x1="${left}" x2="${left}" y1="4" y2="${h - 6}" class="grid"/></svg>`;
}

function factMatrix(result: EvaluationResult): string {
  return result.fixtures
    .map((fixture) => {
      const rows = result.results.filter((r) => r.fixture === fixture.name);
      const header = `<tr><th>fact</th><th>kind</th>${rows.map((r) => `<th>${escape(r.system)}</th>`).join("")}</tr>`;
      const body = fixture.facts
        .map((fact) => `<tr><td><code>${escape(fact.text)}</code><br><small>${escape(fact.note)}</small></td><td>${fact.kind}</td>${rows.map((r) => (r.retention.lost.some((l) => l.text === fact.text) ? `<td class="lost">lost</td>` : `<td class="kept">kept</td>`)).join("")}</tr>`)
        .join("");
      return `<h3>${escape(fixture.name)}</h3><table>${header}${body}</table>`;
    })
    .join("");
}

/**
 * The evaluation as one self-contained HTML page: inline CSS and inline SVG
 * charts, no scripts, no external assets, so it opens from disk without a network.
 */
export function renderHtml(result: EvaluationResult, tokenizer: TokenizerReport | undefined, command: string): string {
  const systems = result.systems.map((s) => s.name);
  const fixtures = result.fixtures
    .map((f) => {
      const settings = result.results.filter((r) => r.fixture === f.name).map((r) => `<li><b>${escape(r.system)}</b> (${escape(r.harness)}): ${escape(r.settings)}${r.error ? ` — <span class="lost">${escape(r.error)}</span>` : ""}</li>`).join("");
      return `<section><h3>${escape(f.name)}</h3><p>${escape(f.description)}</p><p class="meta">${f.turns} turns, ${f.messages} messages, ${f.modelCalls} model calls, ${f.conversationTokens.toLocaleString("en-US")} estimated tokens in the whole conversation; prompt limit ${f.limit.toLocaleString("en-US")}.</p>${tokensChart(result, f.name)}<details><summary>settings</summary><ul>${settings}</ul></details></section>`;
    })
    .join("");
  const caches = result.fixtures
    .map((f) => `<section><h3>${escape(f.name)}</h3><p class="meta">OpenAI-style automatic prefix cache</p>${cacheChart(result, f.name, "openai")}<details><summary>Anthropic-style, breakpoints</summary>${cacheChart(result, f.name, "anthropic")}</details></section>`)
    .join("");
  const tokenizerSection = tokenizer
    ? `<h2>Default estimator against a real tokenizer</h2><p>Ratio estimated/actual (below 1 is an under-estimate) with js-tiktoken; the safety reserve is ${tokenizer.safetyReserve} tokens. “Max shortfall” is the largest actual − estimated over contextview's views.</p>${htmlTable(tokenizerRows(tokenizer))}`
    : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>contextview offline context evaluation</title>
<style>
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,sans-serif;margin:24px auto;max-width:1100px;color:#1f2328;padding:0 16px}
h1{font-size:22px}h2{font-size:18px;margin-top:32px;border-bottom:1px solid #d0d7de;padding-bottom:4px}h3{font-size:15px;margin:20px 0 6px}
table{border-collapse:collapse;margin:8px 0;font-size:12.5px}th,td{border:1px solid #d0d7de;padding:3px 7px;text-align:right}th{background:#f6f8fa}td:first-child,th:first-child{text-align:left}
svg{width:100%;height:auto;max-width:760px;display:block;background:#fff}.grid{stroke:#e5e7eb}.limit{stroke:#111;stroke-dasharray:5 4;stroke-width:1.2}
.tick{font-size:10px;fill:#57606a}.label{font-size:11px;fill:#1f2328}.meta{color:#57606a}.lost{color:#b42318}.kept{color:#0a8a5f}
.legend span{margin-right:14px;font-size:12px;white-space:nowrap}.legend i{display:inline-block;width:12px;height:3px;margin-right:5px;vertical-align:middle}.legend i.limit{border-top:2px dashed #111;height:0}
code{font-size:12px}small{color:#57606a}
</style></head><body>
<h1>contextview — offline context evaluation</h1>
<p class="meta">Generated ${escape(result.generatedAt)} by <code>${escape(command)}</code>. Counter for every system: ${escape(result.estimator)}. These are context-retention checks on replayed conversations, not measurements of answer quality or backend latency.</p>
<h2>Comparison (all fixtures, same budget, counter and fake summarizer)</h2>
${htmlTable(comparisonRows(result))}
<h2>Required-fact retention</h2>${legend(systems)}${retentionChart(result)}
<h2>Tokens per model call against the limit</h2>${legend(systems)}${fixtures}
<h2>Per fixture</h2>${htmlTable(detailRows(result))}
<h2>Prompt cache and cost</h2><p>The share of each call's prompt tokens a provider's prefix cache would serve given the previous call's prompt (OpenAI-style: longest common prefix, from 1,024 tokens in 128-token steps; Anthropic-style: up to a breakpoint the previous call wrote, the request-level breakpoint on the last block given to every system), and the cost of the whole conversation at each price list. Estimated tokens; see docs/evaluation.md.</p>${htmlTable(cacheRows(result))}<h3>Re-sent after the prefix moved, by cause</h3><p>What was shown before and not served after the prefix moved in front of it (OpenAI-style cache), by what moved it, as shares of each system's prompt tokens over all fixtures; <code>eval/trace-cache.ts</code> lists the breaks call by call.</p>${htmlTable(resentRows(result))}<h3>Price lists</h3><p>Check them before quoting a cost.</p>${htmlTable(priceRows(result))}
<h2>Cached and uncached tokens per model call</h2>${caches}
<h2>Facts</h2><p>A fact is kept when its exact text appears whole in the text of the last model call's view (message text and tool-call arguments).</p>${factMatrix(result)}
${tokenizerSection}
</body></html>
`;
}
