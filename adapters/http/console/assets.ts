/**
 * The console's only script and stylesheet, served from /console/assets/ so the Content-Security-Policy
 * can forbid every inline script and style. No build step.
 */
export const CONSOLE_JS = `'use strict';
document.addEventListener('click', function (e) {
  var b = e.target.closest && e.target.closest('[data-copy]');
  if (!b) return;
  var el = document.getElementById(b.getAttribute('data-copy'));
  if (!el) return;
  var text = el.textContent.trim();
  var done = function () { b.textContent = b.getAttribute('data-copied'); b.classList.add('copied'); };
  // The Clipboard API where allowed; else (refused, say an unfocused page) the selection and execCommand.
  var fallback = function () { select(el); try { if (document.execCommand('copy')) done(); } catch (_) {} };
  if (navigator.clipboard && window.isSecureContext) navigator.clipboard.writeText(text).then(done, fallback);
  else fallback();
});
function select(el) { var r = document.createRange(); r.selectNodeContents(el); var s = window.getSelection(); s.removeAllRanges(); s.addRange(r); }
document.addEventListener('submit', function (e) {
  var f = e.target;
  var msg = f.getAttribute && f.getAttribute('data-confirm');
  if (msg && !window.confirm(msg)) { e.preventDefault(); return; }
  // A nicety against double clicks (the server's one-send form id is the guard): the buttons wait for
  // the answer; after the form's data is taken, so a pressed button's own name and value still go.
  if (f.method && f.method.toLowerCase() === 'post')
    setTimeout(function () { f.querySelectorAll('button[type=submit],button:not([type])').forEach(function (b) { b.disabled = true; }); }, 0);
});
// Back to a page kept by the browser: its buttons work again.
window.addEventListener('pageshow', function (e) {
  if (e.persisted) document.querySelectorAll('form button[disabled]').forEach(function (b) { b.disabled = false; });
});
document.addEventListener('change', function (e) {
  var t = e.target;
  if (t.name !== 'scope') return;
  document.querySelectorAll('[data-scope]').forEach(function (fs) { fs.hidden = fs.getAttribute('data-scope') !== t.value; });
});
// The record form: the hint and placeholder of the values follow the type chosen (without script, those of
// the type the form was drawn with; each type's entry in the list says what its values are).
document.addEventListener('change', function (e) {
  var t = e.target;
  if (t.id !== 'rec-type' || !t.options) return;
  var o = t.options[t.selectedIndex];
  var what = document.getElementById('rec-values-what'), ex = document.getElementById('rec-values-example'), values = document.getElementById('rec-values');
  if (what) what.textContent = o.getAttribute('data-hint');
  if (ex) ex.textContent = o.getAttribute('data-example');
  if (values) values.setAttribute('placeholder', o.getAttribute('data-example'));
});
// A narrow screen scrolls the sections' row: the current one is brought into view.
document.addEventListener('DOMContentLoaded', function () {
  var nav = document.querySelector('header.top nav');
  var cur = nav && nav.querySelector('[aria-current=page]');
  if (!cur || nav.scrollWidth <= nav.clientWidth) return;
  var a = cur.getBoundingClientRect(), n = nav.getBoundingClientRect();
  if (a.left < n.left || a.right > n.right - 28) nav.scrollLeft += a.left - n.left - (n.width - a.width) / 2;
});
// The person's time zone for the server-rendered times (a preference cookie; no personal data).
(function () {
  try {
    var tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (tz && document.cookie.indexOf('dmk_tz=' + encodeURIComponent(tz)) < 0)
      document.cookie = 'dmk_tz=' + encodeURIComponent(tz) + '; Path=/; Max-Age=31536000; SameSite=Strict';
  } catch (_) {}
})();
// Narrow screens stack table rows (CSS); cells without a data-label get their column's header.
document.addEventListener('DOMContentLoaded', function () {
  document.querySelectorAll('table').forEach(function (t) {
    var heads = Array.prototype.map.call(t.querySelectorAll('thead th'), function (th) { return th.textContent.trim(); });
    t.querySelectorAll('tbody tr').forEach(function (tr) {
      Array.prototype.forEach.call(tr.children, function (cell, i) {
        if (!cell.hasAttribute('data-label') && heads[i]) cell.setAttribute('data-label', heads[i]);
      });
    });
  });
});
`;

export const CONSOLE_CSS = `:root{--fg:#1d2330;--muted:#5b6475;--line:#d9dee7;--bg:#f6f7fa;--card:#fff;--accent:#1f5fbf;--accent-fg:#fff;--ok:#1b7a43;--warn:#9a5b00;--bad:#b3261e;--radius:8px;font-family:"DejaVu Sans",system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:16px;line-height:1.5;color:var(--fg);background:var(--bg)}
*{box-sizing:border-box}body{margin:0}a{color:var(--accent)}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #f0b429;outline-offset:2px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px;background:#fff;padding:8px;z-index:9}
header.top{background:#16325c;color:#fff;padding:0 24px;display:grid;grid-template-columns:auto minmax(0,1fr);align-items:center;column-gap:24px}
header.top .brand{grid-row:1;font-weight:700;font-size:20px;color:#fff;text-decoration:none;padding:10px 0}
header.top .tools{grid-row:1;grid-column:2;justify-self:end;min-width:0;display:flex;flex-wrap:wrap;justify-content:flex-end;gap:4px 12px;align-items:center;font-size:14px}
header.top .tools a,header.top .tools .muted{color:#dce6f7}header.top .tools .who{max-width:100%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
header.top nav{grid-row:2;grid-column:1/-1;margin:0 -24px;padding:0 24px;overflow-x:auto;scrollbar-width:thin;scrollbar-color:#5b7bb0 transparent;-webkit-mask-image:linear-gradient(to right,#000 calc(100% - 28px),transparent);mask-image:linear-gradient(to right,#000 calc(100% - 28px),transparent)}
header.top nav ul{list-style:none;margin:0;padding:0 24px 0 0;display:flex;gap:2px;width:max-content}
header.top nav a{color:#dce6f7;text-decoration:none;padding:8px 10px 7px;display:block;white-space:nowrap;border-bottom:3px solid transparent}header.top nav a:focus-visible{outline-offset:-3px}
header.top nav a[aria-current=page]{color:#fff;border-bottom-color:#f0b429}.envtag{background:#f0b429;color:#222;border-radius:4px;padding:2px 8px;font-weight:700;font-size:13px}.envtag.live{background:#e55353;color:#fff}
main{max-width:1080px;margin:0 auto;padding:24px}
h1{font-size:28px;margin:8px 0 16px}h2{font-size:20px;margin:28px 0 12px}
.card{background:var(--card);border:1px solid var(--line);border-radius:var(--radius);padding:20px;margin-bottom:20px}
.lead{color:var(--muted);margin-top:-8px}
table{border-collapse:collapse;width:100%;background:var(--card)}caption{text-align:left;color:var(--muted);padding:6px 0}
th,td{text-align:left;padding:8px 10px;border-bottom:1px solid var(--line);vertical-align:top}th{font-size:14px;color:var(--muted);font-weight:600}
td.num{text-align:right;font-variant-numeric:tabular-nums}code,.mono{font-family:"DejaVu Sans Mono",ui-monospace,monospace;font-size:14px}
.pill{display:inline-block;border-radius:999px;padding:1px 10px;font-size:13px;background:#e8edf6;margin:0 4px 2px 0}.pill.ok{background:#dcf2e4;color:var(--ok)}.pill.warn{background:#fdeccc;color:var(--warn)}.pill.bad{background:#fbe0de;color:var(--bad)}
form.stack label{display:block;font-weight:600;margin:14px 0 4px}form.stack .hint{color:var(--muted);font-size:14px;margin:2px 0 0}
input[type=text],input[type=email],input[type=password],input[type=date],input[type=number],select{font:inherit;padding:8px 10px;border:1px solid #aab3c2;border-radius:6px;width:100%;max-width:420px;background:#fff}
fieldset{border:1px solid var(--line);border-radius:var(--radius);padding:12px 16px;margin:14px 0}legend{font-weight:700;padding:0 6px}
.choice{display:flex;gap:10px;align-items:flex-start;margin:8px 0}.choice input{margin-top:5px}.choice span small{display:block;color:var(--muted);font-weight:400}
button,.button{font:inherit;border:1px solid var(--accent);background:var(--accent);color:var(--accent-fg);padding:8px 16px;border-radius:6px;cursor:pointer;text-decoration:none;display:inline-block}
button.secondary,.button.secondary{background:#fff;color:var(--accent)}button.danger{background:var(--bad);border-color:var(--bad)}button.small{padding:3px 10px;font-size:14px}
.actions{display:flex;gap:10px;flex-wrap:wrap;align-items:center;margin-top:18px}.inline{display:inline}
.alert{border-radius:var(--radius);padding:12px 16px;margin:0 0 18px;border:1px solid}.alert.error{background:#fdecea;border-color:#f3b8b3;color:#6b1a14}.alert.ok{background:#e6f5ec;border-color:#a8dcbc;color:#0f4a28}.alert.info{background:#eaf1fb;border-color:#b7cdef}
.secret{display:flex;gap:10px;align-items:center;flex-wrap:wrap}.secret code{background:#0f1b2d;color:#e8f0ff;padding:10px 14px;border-radius:6px;word-break:break-all;font-size:15px}
.note{display:inline-block;border-radius:6px;padding:4px 8px;font-size:13px;margin-top:6px}.note.warn{background:#fdeccc;color:var(--warn)}
td select{width:auto}.card>h2:first-child,.card>h3:first-child,.card>input[type=hidden]+h2{margin-top:0}
button.copied{background:var(--ok);border-color:var(--ok)}
ol.steps{display:flex;gap:8px;list-style:none;padding:0;margin:0 0 18px;flex-wrap:wrap;counter-reset:s}ol.steps li{counter-increment:s;padding:4px 12px;border-radius:999px;background:#e8edf6;color:var(--muted);font-size:14px}ol.steps li::before{content:counter(s) ". "}ol.steps li[aria-current=step]{background:var(--accent);color:#fff}
.summary p{margin:4px 0}dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:6px 18px;margin:0}dl.kv dt{color:var(--muted)}dl.kv dd{margin:0}
.sandbar{background:#fff7e0;border-bottom:1px solid #f0d58a;padding:6px 24px;font-size:14px}.sandbar{display:flex;flex-wrap:wrap;gap:8px 16px;align-items:center}.sandbar a.clockmove{color:#4a3500}.sandbar a.clock{color:#4a3500;text-decoration:none}.sandbar a.clock:hover{text-decoration:underline}.badge{display:inline-block;background:#8a4b00;color:#fff;border-radius:999px;padding:0 10px;font-size:13px;margin-left:6px}
.qr{display:inline-block;background:#fff;padding:8px;border:1px solid var(--line);border-radius:6px;line-height:0}.qr svg{width:200px;height:200px}
p.mono,.secret code,dd.mono,.effect{overflow-wrap:anywhere}.mail{white-space:pre-wrap;word-break:break-word;font-family:inherit;margin:0}.warnbox{border-left:4px solid var(--warn);background:#fff8eb;padding:8px 12px;margin:8px 0;border-radius:4px}
@media (max-width:640px){header.top{padding:0 12px;column-gap:12px}header.top .brand{font-size:18px;padding:6px 0}header.top .tools{font-size:13px;gap:0 10px;padding:4px 0}header.top nav{margin:0 -12px;padding:0 12px}header.top nav a{padding:5px 8px 4px;font-size:15px}main{padding:16px 12px}h1{font-size:24px}
header.top .tools .who{flex:1 1 0;min-width:6em;text-align:right}
.sandbar{padding:4px 12px;font-size:13px;gap:2px 12px}.sandbar .clock-label,.sandbar .tz{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
table,thead,tbody,tr,th,td{display:block;width:100%}table caption{display:block}thead tr{position:absolute;left:-9999px;top:auto;width:1px;height:1px;overflow:hidden}
tbody tr{border:1px solid var(--line);border-radius:var(--radius);margin:0 0 12px;padding:4px 0;background:var(--card)}tbody th,tbody td{border:0;padding:4px 12px}
tbody td[data-label]::before,tbody th[data-label]::before{content:attr(data-label);display:block;font-size:13px;color:var(--muted);font-weight:600}td.num{text-align:left}
dl.kv{grid-template-columns:1fr}dl.kv dd{margin-bottom:8px}.secret code{font-size:13px}input[type=text],input[type=email],input[type=password],select{max-width:100%}}
.signin{max-width:440px;margin:48px auto}.muted{color:var(--muted)}footer{max-width:1080px;margin:0 auto;padding:8px 24px 32px;color:var(--muted);font-size:13px}
`;
