/** The stylesheet, served at /static/style.css: no inline styles (the CSP forbids them). */
export const STYLESHEET = `
:root { color-scheme: light dark; --ok: #2e7d32; --unavailable: #b28704; --unreachable: #c62828; --none: #d0d4d9;
  --ink: #1d232a; --muted: #5f6b76; --line: #e3e7eb; --bg: #fbfcfd; --card: #fff; --accent: #1f5fa8;
  --on-accent: #fff; --changed: #fff4e5; --add: #e6ffec; --del: #ffebe9; --hunk: #f1f8ff; --warning: #8a5a00; }
@media (prefers-color-scheme: dark) {
  :root { --ok: #43a047; --unavailable: #c99a06; --unreachable: #e53935; --none: #4a535c;
    --ink: #e6e9ec; --muted: #9aa5b1; --line: #2f363d; --bg: #15191d; --card: #1d2227; --accent: #7fb2f0;
    --on-accent: #10151a; --changed: #3a2e12; --add: #16341f; --del: #3d1d1f; --hunk: #18273a; --warning: #e0b050; }
}
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: var(--bg); }
header.top { display: flex; gap: 1.5rem; align-items: baseline; padding: .8rem 1.5rem; background: var(--card); border-bottom: 1px solid var(--line); }
header.top .brand { font-weight: 700; color: var(--ink); text-decoration: none; }
header.top nav a { margin-right: 1rem; color: var(--accent); text-decoration: none; }
main { padding: 1rem 1.5rem 3rem; max-width: 1200px; }
h1 { font-size: 1.5rem; margin: .5rem 0 1rem; overflow-wrap: anywhere; }
h2 { font-size: 1.15rem; margin: 2rem 0 .6rem; }
a { color: var(--accent); }
table { border-collapse: collapse; width: 100%; background: var(--card); }
th, td { text-align: left; padding: .35rem .6rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: .85rem; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code, pre, .mono { font-family: ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace; font-size: .85rem; }
pre { overflow-x: auto; background: var(--card); border: 1px solid var(--line); padding: .6rem; margin: 0; }
.muted { color: var(--muted); }
.access { display: inline-block; padding: 0 .45rem; border-radius: 3px; color: #fff; font-size: .8rem; font-weight: 600; }
.access-ok { background: var(--ok); } .access-unavailable { background: var(--unavailable); }
.access-unreachable { background: var(--unreachable); } .access-none { background: var(--none); color: var(--ink); }
.access-refused { background: var(--none); color: var(--ink); border: 1px dashed var(--unreachable); }
.verdict-allowed { color: var(--ok); } .verdict-disallowed { color: var(--unreachable); font-weight: 600; }
td.changed { background: var(--changed); }
.strip rect.ok, .timeline rect.ok { fill: var(--ok); }
.strip rect.unavailable, .timeline rect.unavailable { fill: var(--unavailable); }
.strip rect.unreachable, .timeline rect.unreachable { fill: var(--unreachable); }
.strip rect.none { fill: var(--none); }
.timeline line.marker { stroke: var(--ink); stroke-width: 1; }
.timeline circle.marker { fill: var(--ink); }
.timeline text { font-size: 10px; fill: var(--muted); }
.timeline line.axis, .timeline line.tick { stroke: var(--muted); stroke-width: 1; }
.timeline text.end { font-size: 9px; }
.timeline rect.archived { opacity: .5; }
.access-not-robots, .access-cut { background: var(--unavailable); }
.intent { display: inline-block; padding: 0 .4em; border-radius: 3px; font-size: .9em; white-space: nowrap; }
.intent-as-intended { background: var(--ok); color: #fff; }
.intent-not-as-intended { background: var(--unreachable); color: #fff; }
.intent-cannot-check { background: var(--none); color: var(--ink); border: 1px dashed var(--unreachable); }
.delivery { display: inline-block; padding: 0 .4em; border-radius: 3px; font-size: .85em; }
.delivery-sent { background: var(--ok); color: #fff; } .delivery-failed { background: var(--unreachable); color: #fff; }
.delivery-queued { background: var(--none); color: var(--ink); }
pre.sent { white-space: pre-wrap; word-break: break-word; max-height: 40em; overflow: auto; border: 1px solid var(--line); padding: .6em; }
td.differs { outline: 2px solid var(--unreachable); outline-offset: -2px; }
.scroll { overflow-x: auto; max-width: 100%; }
.scroll-hint { font-size: .9em; }
table.matrix th[scope=row] { font-weight: normal; color: var(--ink); white-space: nowrap; }
table.matrix th[scope=row], table.matrix thead th:first-child { position: sticky; left: 0; z-index: 1; background: var(--card); box-shadow: 1px 0 0 var(--line); }
button.small { font-size: .8em; padding: 0 .4em; margin-left: .4em; }
table.matrix td, table.matrix th { white-space: nowrap; }
td.nowrap, code.nowrap { white-space: nowrap; }
figure.coverage-chart { margin: .5rem 0 1rem; }
figure.coverage-chart > svg { width: 100%; height: 140px; display: block; background: var(--card); border: 1px solid var(--line); }
figure.coverage-chart line.grid { stroke: var(--line); stroke-width: 1; }
figure.coverage-chart figcaption { font-size: .85rem; color: var(--muted); }
table.coverage tr.worse td:last-child { color: var(--unreachable); font-weight: 600; }
.legend { white-space: nowrap; margin-right: .6rem; }
svg.swatch { display: inline-block; width: .8rem; height: .8rem; vertical-align: middle; }
form.filter { margin: .4rem 0 .8rem; }
form.filter input[type=text] { width: auto; min-width: 14rem; }
form.filter select { width: auto; max-width: 100%; }
ol.changes { padding-left: 0; list-style: none; }
ol.changes > li { border-top: 1px solid var(--line); padding: .4rem 0; }
ol.changes p.when { margin: .2rem 0; color: var(--muted); }
ul.causes { padding-left: 1.1rem; margin: .3rem 0; }
li.cause { margin: .35rem 0; }
li.cause .consequence { color: var(--ink); }
li.cause-problem > strong { color: var(--unreachable); }
li.cause-recovery > strong { color: var(--ok); }
ul.pairs, ul.details { margin: .2rem 0; padding-left: 1.1rem; }
ul.details { color: var(--muted); }
a.change { color: inherit; }
.timeline a:hover rect { opacity: .75; }
svg { display: block; max-width: 100%; }
.lines { counter-reset: line; }
.lines span.l { display: block; white-space: pre-wrap; word-break: break-all; }
.lines span.l .n { display: inline-block; width: 4.5em; color: var(--muted); user-select: none; }
.diff .add { background: var(--add); } .diff .del { background: var(--del); } .diff .hunk { color: var(--muted); background: var(--hunk); }
.diff span { display: block; white-space: pre-wrap; word-break: break-all; }
.finding-error { color: var(--unreachable); } .finding-warning { color: var(--warning); }
form.inline { display: inline; }
form.intent-add { display: flex; flex-wrap: wrap; gap: .5rem 1rem; align-items: end; margin: .8rem 0; }
form.intent-add input[type=text] { width: 16rem; }
pre.wrap { white-space: pre-wrap; overflow-wrap: anywhere; }
ul.tabs { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem; list-style: none; padding: 0; }
button, input[type=submit], a.button { font: inherit; padding: .3rem .9rem; border: 1px solid var(--accent); background: var(--accent); color: var(--on-accent); border-radius: 4px; cursor: pointer; }
a.button { display: inline-block; text-decoration: none; }
button[disabled] { background: var(--none); border-color: var(--none); color: var(--muted); cursor: not-allowed; }
textarea, input[type=text], input[type=password], select { font: inherit; width: 100%; padding: .3rem; border: 1px solid var(--line); background: var(--card); color: var(--ink); }
textarea { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: .85rem; }
.grid2 { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; }
.notice { padding: .6rem .8rem; border: 1px solid var(--line); background: var(--card); margin: 1rem 0; }
.notice.error { border-color: var(--unreachable); }
.notice.warning { border-color: var(--warning); }
.notice p, .notice ul { margin: .4rem 0 0; }
.pager { margin-top: .8rem; }
form.site-form { max-width: 40rem; }
form.site-form label { display: block; margin: .8rem 0; }
form.site-form label > .muted { font-size: .85rem; }
button.secondary { background: var(--card); color: var(--accent); }
.tags { margin: .2rem 0; }
.standing { list-style: none; padding: 0; margin: .5rem 0 1rem; display: flex; flex-wrap: wrap; gap: .4rem; }
.standing li { padding: .2rem .6rem; border-radius: 3px; border: 1px solid var(--line); }
.standing li.standing-down, .standing li.standing-not-robots { border-color: var(--unreachable); }
.standing li.standing-new-blocks { border-color: var(--warning); }
.filters { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; }
.filters input[type=text] { flex: 1 1 14rem; width: auto; }
.filters select { width: auto; max-width: 100%; }
.tag { display: inline-block; margin: 0 .3rem .2rem 0; padding: 0 .4rem; border: 1px solid var(--line); border-radius: 3px; font-size: .8rem; color: var(--muted); text-decoration: none; }
.archived { display: inline-block; padding: 0 .4rem; border: 1px dashed var(--line); border-radius: 3px; font-size: .8rem; color: var(--muted); }
h1 .origin { font-size: .9rem; font-weight: normal; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0; }
dl.facts dt { color: var(--muted); } dl.facts dd { margin: 0; word-break: break-all; }
header.top { flex-wrap: wrap; row-gap: .3rem; }
main li, main p, main dd { overflow-wrap: anywhere; }
header.top nav { display: flex; flex-wrap: wrap; }
@media (max-width: 640px) {
  header.top { gap: .8rem; padding: .6rem 1rem; }
  header.top nav a { margin-right: .8rem; }
  main { padding: .8rem 1rem 2rem; }
  form.filter input[type=text] { min-width: 0; }
  dl.facts { grid-template-columns: 1fr; }
  dl.facts dd { margin-bottom: .4rem; }
  .grid2 { grid-template-columns: 1fr; }
  th, td { padding: .3rem .4rem; }
  /* A table wider than the phone scrolls in its own box, not the page. */
  main table { display: block; overflow-x: auto; max-width: 100%; }
}
`;
