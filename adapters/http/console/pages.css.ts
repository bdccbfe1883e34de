/**
 * Styles of the DNS editor, money, certificate, monitoring and webhook pages, served after the console's
 * own stylesheet (same file, same CSP: no inline style).
 */
export const PAGES_CSS = `textarea{font:inherit;font-family:"DejaVu Sans Mono",ui-monospace,monospace;font-size:14px;padding:8px 10px;border:1px solid #aab3c2;border-radius:6px;width:100%;max-width:640px;min-height:90px;background:#fff}
.field-error{color:var(--bad);font-weight:600;margin:4px 0 0}input[readonly]{background:#eef1f6;color:var(--muted)}input[aria-invalid=true],textarea[aria-invalid=true],select[aria-invalid=true]{border-color:var(--bad);border-width:2px}
.diff td.act{font-weight:700;white-space:nowrap}.diff tr.create td.act{color:var(--ok)}.diff tr.update td.act{color:var(--warn)}.diff tr.delete td.act{color:var(--bad)}
.diff del{background:#fbe0de;text-decoration:line-through}.diff ins{background:#dcf2e4;text-decoration:none}
ul.checks{list-style:none;padding:0}ul.checks li{padding:6px 10px;border-left:4px solid var(--line);margin:4px 0;background:#fff}ul.checks li.error{border-color:var(--bad)}ul.checks li.warning{border-color:var(--warn)}
.grid2{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,1fr));gap:16px}
.chart{width:100%;max-width:720px;height:auto;background:#fff;border:1px solid var(--line);border-radius:6px}.chart text{font-size:11px;fill:#5b6475}
.chart .up{fill:#1b7a43}.chart .down{fill:#b3261e}.chart .none{fill:#d9dee7}.chart .lat{fill:none;stroke:#1f5fbf;stroke-width:2}.chart .axis{stroke:#aab3c2;stroke-width:1}
.filters{display:flex;gap:10px;flex-wrap:wrap;align-items:flex-end;margin-bottom:14px}.filters label{font-size:14px;font-weight:600;display:block}.filters input,.filters select{max-width:220px}
.wrap{overflow-wrap:anywhere}dl.kv dd{min-width:0;overflow-wrap:anywhere}.secret code{max-width:100%}fieldset.events{columns:2 340px;column-gap:24px}fieldset.events .choice{break-inside:avoid;margin:4px 0}form.stack .choice label{display:inline;margin:0;font-weight:600}.choice label small{font-weight:400}figure{margin:0 0 18px}.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}.button.small{padding:3px 10px;font-size:14px}td.mono{word-break:break-all}
@media (max-width:600px){main{padding:14px}table.stack thead{display:none}table.stack tr{display:block;border-bottom:2px solid var(--line);padding:6px 0}table.stack td,table.stack th{display:block;border:0;padding:3px 8px}table.stack td.num{text-align:left}table.stack td[data-label]::before{content:attr(data-label) ": ";font-weight:600;color:var(--muted)}}
`;
