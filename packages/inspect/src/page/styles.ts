/** The page's own CSS, inlined: the page loads nothing from the network. */
export const STYLES = `
:root{--bg:#f7f8fa;--panel:#fff;--ink:#1f2937;--muted:#6b7280;--line:#e5e7eb;--accent:#2563eb;--bad:#b91c1c;--warn:#b45309;--ok:#047857}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--ink);background:var(--bg)}
code,pre{font:12px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
a{color:var(--accent)}
.top{padding:16px 24px;background:#111827;color:#f9fafb;display:flex;gap:24px;align-items:baseline;flex-wrap:wrap}
.top h1{font-size:18px;margin:0;font-weight:600}
.top .sub{color:#cbd5e1}
.top .sum b{color:#fff}
.pill{display:inline-block;padding:1px 8px;border-radius:999px;font-size:12px;font-weight:600}
.pill-match{background:#d1fae5;color:var(--ok)}.pill-mismatch{background:#fee2e2;color:var(--bad)}.pill-unverifiable{background:#fef3c7;color:var(--warn)}
main{padding:16px 24px;display:grid;grid-template-columns:minmax(260px,340px) 1fr;gap:16px;align-items:start}
.panel{background:var(--panel);border:1px solid var(--line);border-radius:10px;padding:14px 16px}
.overview{grid-column:1/-1}
.overview h2,.calls h2{font-size:15px;margin:0 0 8px}
.chart{width:100%;height:auto;display:block}
.chart .tick line{stroke:var(--line)}.chart .tick text{font-size:10px;fill:var(--muted);text-anchor:end}
.chart .xlabel{font-size:10px;fill:var(--muted);text-anchor:middle}
.chart .limitline{fill:none;stroke:#111827;stroke-width:1.5;stroke-dasharray:5 3}
.chart .hit{fill:transparent}.chart .col{cursor:pointer}.chart .col:hover .hit{fill:#eef2ff}.chart .col.active .hit{fill:#dbeafe}
.chart .usage{fill:#111827;stroke:#fff;stroke-width:1}
.chart .mark{font-size:10px;font-weight:700;text-anchor:middle}.chart .mark-s{fill:#047857}.chart .mark-e{fill:#7c3aed}.chart .mark-x{fill:var(--bad)}
.keys{display:flex;gap:14px;flex-wrap:wrap;margin:8px 0 0;padding:0;list-style:none;color:var(--muted);font-size:12px}
.keys .swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px;vertical-align:-1px}
.calls{position:sticky;top:12px;max-height:calc(100vh - 24px);overflow:auto;padding:10px}
.calls ol{list-style:none;margin:0;padding:0}
.row{display:grid;grid-template-columns:34px 1fr auto;gap:8px;align-items:center;padding:6px 8px;border-radius:8px;text-decoration:none;color:inherit;border:1px solid transparent}
.row:hover{background:#f3f4f6}.row.active{background:#eff6ff;border-color:#bfdbfe}
.row .n{font-weight:600;color:var(--muted);text-align:right}
.missing-row{padding:4px 8px 4px 50px;font-size:12px;color:var(--bad);border-left:3px solid #fecaca;margin:2px 0}
.row .info{min-width:0}.row .line{display:flex;justify-content:space-between;font-size:12px;color:var(--muted);margin-top:3px}
.budget{position:relative;display:flex;background:#eef0f3;border-radius:4px;overflow:visible}
.budget-small{height:8px}.budget-large{height:26px;border-radius:6px;margin:6px 0 8px}
.budget .seg{height:100%}.budget .seg:first-child{border-radius:4px 0 0 4px}
.budget .limit{position:absolute;top:-3px;bottom:-3px;width:2px;margin-left:-1px;background:#111827}
.legend{display:flex;flex-wrap:wrap;gap:6px 16px;list-style:none;margin:0;padding:0;font-size:12.5px}
.legend li{display:flex;align-items:center;gap:5px}.legend b{font-weight:600}.legend small{color:var(--muted)}
.legend .swatch{width:11px;height:11px;border-radius:3px;display:inline-block}
.legend .total{margin-left:auto}
.call{display:none}.call.active{display:block}
.call-head{display:flex;gap:12px;align-items:baseline;flex-wrap:wrap}.call-head h2{margin:0;font-size:18px}.call-head .meta{color:var(--muted);font-size:12.5px}
.call h3{font-size:13px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin:18px 0 6px}
.status{margin-top:10px;padding:10px 12px;border-radius:8px;font-size:13px}
.status-match{background:#ecfdf5;border:1px solid #a7f3d0}.status-mismatch{background:#fef2f2;border:1px solid #fecaca}.status-unverifiable{background:#fffbeb;border:1px solid #fde68a}
.problems{margin:6px 0 0;padding-left:18px}
.facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:6px;margin:0}
.fact{background:#f9fafb;border:1px solid var(--line);border-radius:8px;padding:6px 9px}
.fact dt{font-size:11.5px;color:var(--muted)}.fact dd{margin:0;font-weight:600}
.facts.small .fact dd{font-weight:500;font-size:12.5px}
.markers{border-collapse:collapse;width:100%;font-size:12.5px}.markers th,.markers td{text-align:left;padding:4px 8px;border-bottom:1px solid var(--line)}
.inputs{display:grid;grid-template-columns:1fr 1fr;gap:12px}
.options{margin-top:14px}.options summary{cursor:pointer;color:var(--muted)}
.content{white-space:pre-wrap;word-break:break-word;margin:6px 0 0;max-height:18em;overflow:auto;background:#f9fafb;border:1px solid var(--line);border-radius:6px;padding:8px}
.messages{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:8px}
.msg{border:1px solid var(--line);border-left:4px solid #cbd5e1;border-radius:8px;padding:8px 10px;background:#fff}
.msg.role-system{border-left-color:#64748b}.msg.role-human{border-left-color:#0ea5e9}.msg.role-ai{border-left-color:#10b981}.msg.role-tool{border-left-color:#f59e0b}
.msg.has-omission{background:#fffbeb}
.msg-head{display:flex;gap:6px;align-items:center;flex-wrap:wrap}
.role{font-weight:700;text-transform:uppercase;font-size:11px;letter-spacing:.05em}
.name,.callid{font:11.5px ui-monospace,Menlo,monospace;color:var(--muted)}
.note{font-size:11.5px;padding:1px 7px;border-radius:999px}
.note-omission{background:#fde68a;color:#78350f;font-weight:600}.note-inserted{background:#e0e7ff;color:#3730a3}.note-current{background:#ffe4e6;color:#9f1239}
.calls ul,.msg .calls{margin:6px 0 0;padding-left:18px;font-size:12.5px}
.omitted{border:1px dashed #f59e0b;background:repeating-linear-gradient(45deg,#fffbeb,#fffbeb 8px,#fef3c7 8px,#fef3c7 16px);border-radius:8px;padding:8px 12px;font-weight:600;color:#78350f}
.empty{color:var(--muted)}
.evidence{list-style:none;margin:6px 0 0;padding:8px;max-height:18em;overflow:auto;background:#f9fafb;border:1px solid var(--line);border-radius:6px;font-size:12.5px}
.evidence ul{margin:3px 0 8px;padding-left:16px}.evidence .who{color:var(--muted);font-size:11.5px}
.chart .col:focus{outline:none}
.threads{max-width:900px;margin:24px auto}.threads table{width:100%;border-collapse:collapse}.threads td,.threads th{padding:8px;border-bottom:1px solid var(--line);text-align:left}
@media (max-width:900px){main{grid-template-columns:1fr}.calls{position:static;max-height:none}.inputs{grid-template-columns:1fr}}
`;
