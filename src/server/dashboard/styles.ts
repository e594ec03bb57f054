// The dashboard's stylesheet: patterns and words, not colour alone, tell open from frozen; focus is always visible.

export const STYLES = `
:root { --fg: #1b1f24; --muted: #57606a; --line: #d0d7de; --bg: #ffffff; --panel: #f6f8fa;
  --open: #2da44e; --open-bg: #dafbe1; --frozen: #0a3069; --frozen-bg: #ddf4ff; --override: #8250df; --now: #cf222e; --focus: #0969da; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
a { color: #0550ae; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.top { display: flex; gap: 1rem; align-items: center; padding: .6rem 1rem; border-bottom: 1px solid var(--line); background: var(--panel); flex-wrap: wrap; }
.brand { font-weight: 700; font-size: 1.1rem; text-decoration: none; color: var(--fg); }
.spacer { flex: 1; }
main { padding: 1rem; max-width: 1400px; }
h2 { margin: .2rem 0 1rem; }
.muted, .hint { color: var(--muted); font-weight: normal; }
.hint { font-size: 12px; display: block; }
.error { color: #a40e26; }
.banner { margin: 0; padding: .5rem 1rem; background: #fff8c5; border-bottom: 2px solid #9a6700; }
.ok { color: #116329; }
button, .button { font: inherit; padding: .3rem .8rem; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--fg); cursor: pointer; text-decoration: none; display: inline-block; }
button.primary { background: #1f883d; color: white; border-color: #1a7f37; }
button:disabled { opacity: .55; cursor: not-allowed; }
input, select, textarea { font: inherit; padding: .3rem .4rem; border: 1px solid #8c959f; border-radius: 6px; min-width: 8rem; }
/* The thicker border of a field marked invalid takes its room from the padding: the field keeps its size, nothing around it moves. */
input[aria-invalid="true"] { border: 2px dashed #a40e26; padding: calc(.3rem - 1px) calc(.4rem - 1px); }
/* The date field's calendar icon, the browser's own drawn as a PNG: the browser's is an SVG image, and a page's first SVG image is a document of its own to
   load, 2 to 6 ms of CPU in the frame that first draws the field (traced on a 2-core machine). In forced colours the browser's own, in the system's colours. */
input[type="date"]::-webkit-calendar-picker-indicator { background-image: url("data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAACAAAAAeCAYAAABNChwpAAAAiUlEQVR42mNgGOSgH4j3Q2l66oUDkAH/oTQ99TIYALEDEJ+HGnIeyicFo+s1IMZiFiDeDdVIC7wbagdOkEBDy2E4AZ8DGujggIZRBwwZB1AbjDpg1AGjDhh1wKgDRh0w6oCh4YAKJIX7qYxh5lbgc4AOEP+mYWvoN9QOvADUiVhPgxBYDzV7cAEA5EoyKJYX1i4AAAAASUVORK5CYII="); }
@media (forced-colors: active) { input[type="date"]::-webkit-calendar-picker-indicator { background-image: revert; } }
.wide { width: 100%; }
table { border-collapse: collapse; width: 100%; margin: .5rem 0; }
th, td { text-align: left; padding: .35rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }

.legend { list-style: none; display: flex; gap: 1.2rem; padding: 0; flex-wrap: wrap; margin: 0 0 .8rem; }
.legend li { display: flex; align-items: center; gap: .35rem; }
.swatch { display: inline-block; width: 2.2rem; height: 1rem; border: 1px solid var(--fg); position: relative; }

/* Patterns: open is solid with a solid top edge, frozen is hatched, overrides are dotted or cross-hatched. */
.open { background: var(--open-bg); border-top: 4px solid var(--open); }
.frozen { background: repeating-linear-gradient(135deg, var(--frozen-bg) 0 5px, var(--frozen) 5px 7px); border: 1px solid var(--frozen); }
.override-open { background: transparent; border: 3px dotted var(--override); }
.override-freeze { background: repeating-linear-gradient(45deg, transparent 0 4px, var(--override) 4px 6px), repeating-linear-gradient(135deg, transparent 0 4px, var(--override) 4px 6px); border: 2px solid var(--override); }
.swatch.now { background: var(--now); width: 3px; border: none; }
.invalid { background: repeating-linear-gradient(90deg, #fff8c5 0 8px, #ffffff 8px 12px); border: 2px dashed #9a6700; }

.timeline { border: 1px solid var(--line); border-radius: 6px; overflow: hidden; }
.row { display: flex; align-items: stretch; border-bottom: 1px solid var(--line); min-height: 2.4rem; }
.row .label { width: 16rem; flex: none; overflow-wrap: anywhere; padding: .35rem .6rem; border-right: 1px solid var(--line); display: flex; flex-direction: column; gap: .1rem; }
.row .cell, .row .days, .row .track-head { flex: 1; position: relative; }
.axis { background: var(--panel); font-weight: 600; }
.axis .days { min-height: 3.6rem; }
.axis .day { position: absolute; top: 0; padding: .2rem .3rem; border-left: 1px solid var(--line); white-space: nowrap; overflow: hidden; text-overflow: clip; }
.hour-tick { position: absolute; bottom: 0; transform: translateX(-50%); font-size: 10px; font-weight: 400; color: var(--muted); border-left: 1px solid var(--line); padding-left: 1px; line-height: 1.1; }
/* "now" has a line of its own, between the days and the hour ticks (10px type, line-height 1.1): on theirs it covered the hour next to it. */
.axis .now-label { position: absolute; bottom: 13px; top: auto; left: 0; transform: translateX(-50%); background: var(--bg); border: 1px solid var(--now); border-radius: 3px; padding: 0 2px; line-height: 1.2; z-index: 2; }
@media (max-width: 1100px) { .row .label { width: 11rem; } .hour-tick:not(.noon) { display: none; } .axis .day { font-size: 12px; padding: .2rem .15rem; } }
.axis .day .short { display: none; }
@media (max-width: 900px) { .axis .day .long { display: none; } .axis .day .short { display: inline; } }
.cluster-head { background: var(--panel); }
.zone { font-size: 12px; color: var(--muted); }
.badge { font-size: 12px; border: 1px solid var(--muted); border-radius: 1rem; padding: 0 .5rem; width: fit-content; }
.badge.pending { border: 2px solid #9a6700; font-weight: 700; }
.state { font-size: 12px; }
.state.frozen, .state.open { background: none; border: none; }
.track { position: relative; height: 100%; min-height: 2.4rem; }
.band { position: absolute; top: 4px; bottom: 4px; padding: 0 2px; border-radius: 3px; min-width: 3px; font-size: 11px; color: var(--fg); cursor: pointer; text-align: left; }
.band.override-open, .band.override-freeze { top: 1px; bottom: 1px; z-index: 1; background-color: rgba(251, 239, 255, .85); }
.band.override-open .band-label, .band.override-freeze .band-label { background: #fbefff; padding: 0 2px; font-weight: 600; }
.band.invalid { left: 0; right: 0; cursor: default; white-space: nowrap; }
.band.frozen .band-label { background: var(--frozen-bg); padding: 0 2px; }
.band.chosen { box-shadow: 0 0 0 3px var(--focus); }
/* A band's word is clipped to its band by itself: most bands have none, and a clip on each of a screen's thousand bands cost their frames' paint. */
.band-label { display: inline-block; max-width: 100%; overflow: hidden; vertical-align: top; white-space: nowrap; pointer-events: none; }
.now-line { position: absolute; top: 0; bottom: 0; width: 0; border-left: 2px solid var(--now); pointer-events: none; }
.now-label { position: absolute; top: 0; left: 2px; font-size: 10px; color: var(--now); font-weight: 700; }
.details-row .details { margin: 0; height: 100%; overflow: auto; border-width: 2px; }
.fleet-grid { border: 1px solid var(--line); border-radius: 6px; }
.sticky-axis { position: sticky; top: 0; z-index: 3; background: var(--panel); border-bottom: 1px solid var(--line); }
.sticky-axis .axis { border-bottom: none; }
.sticky-axis .axis .label { justify-content: center; }
.axis .day.compact { font-size: 11px; padding: .2rem 0 0 2px; }
.axis .week { position: absolute; top: 0; padding: .2rem .3rem; border-left: 2px solid var(--muted); white-space: nowrap; font-size: 12px; }
.grid { background-image: linear-gradient(to right, var(--line) 1px, transparent 1px); background-repeat: repeat-x; }
.vlist { position: relative; }
/* Each row a layer of its own: a frame that adds bands to a row rasters that row again, not the tiles of one layer the rows share (traced: a tile
   rastered 3 times a load on the shared layer, 1.8 on the rows' own; the raster's CPU a load 152–373 → 101–142 ms). The price: where a screen
   has subpixel text, Chromium draws the text of a layer that may move in grey, so the rows' text is greyscale-antialiased. */
.vrow { position: absolute; left: 0; right: 0; top: 0; overflow: hidden; will-change: transform; }
.vrow > .row { height: 100%; }
.group-head { background: #eaeef2; border-bottom: 2px solid var(--muted); display: flex; align-items: center; }
.group-head .label { padding: 0 .6rem; }
.cluster-head.selected { outline: 3px solid var(--focus); outline-offset: -3px; }
.cluster-head .label { gap: 0; padding-top: .2rem; padding-bottom: .2rem; justify-content: center; }
.head-line { display: flex; align-items: baseline; gap: .5rem; min-width: 0; }
.head-line .badge { flex: none; }
/* A name or a clock on one line; what does not fit ends in an ellipsis, the whole text in the element's title. */
.fit { display: block; min-width: 0; overflow: hidden; white-space: nowrap; text-overflow: ellipsis; }
/* A long zone gives way to the cluster's clock, which keeps its room. */
.cluster-head .zone { display: flex; min-width: 0; overflow: hidden; }
.zone .clock { flex: none; white-space: pre; }
.track-head { display: flex; gap: .5rem; align-items: center; padding: 0 .5rem; flex-wrap: wrap; overflow: hidden; }
.chip { border: 1px solid var(--line); border-radius: 4px; padding: 0 .3rem; background: var(--bg); }
.zone-change { font-size: 12px; border: 1px dashed var(--muted); padding: 0 .3rem; }
.lanes-toggle { font-size: 12px; padding: .1rem .5rem; margin-left: auto; }
.note .label { width: auto; border-right: none; }
.toolbar { display: flex; flex-wrap: wrap; align-items: flex-end; gap: 0 .4rem; margin-bottom: .5rem; }
.toolbar .count { flex-basis: 100%; margin: .2rem 0; }
/* A selector that cannot be read says why on a line kept for it under the controls: in its field, it moved them all. */
.toolbar .toolbar-problem { flex-basis: 100%; margin: 0; font-size: 12px; line-height: 1.45; min-height: 1.45em; min-width: 0; }
.toolbar-problem .field-error { max-width: none; }
.range button { padding: .3rem .5rem; }
.empty { padding: 1rem; margin: 0; }
.details { margin-top: 1rem; padding: .6rem .8rem; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); }
.details h3 { margin: 0 0 .4rem; }
.times { display: grid; grid-template-columns: max-content 1fr; gap: .2rem 1rem; margin: 0 0 .5rem; }
.times dt { font-weight: 600; }
.times dd { margin: 0; }

.editor { display: grid; grid-template-columns: minmax(0, 3fr) minmax(20rem, 2fr); gap: 1.5rem; }
@media (max-width: 900px) { .editor { grid-template-columns: 1fr; } }
fieldset { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 1rem; }
legend { font-weight: 600; padding: 0 .3rem; }
.field { display: inline-flex; flex-direction: column; gap: .15rem; margin: 0 .6rem .5rem 0; vertical-align: top; }
.field-label { font-size: 12px; font-weight: 600; }
.field-error { color: #a40e26; font-size: 12px; max-width: 28rem; }
.rule { border-left: 3px solid var(--line); padding: .3rem 0 .3rem .6rem; margin-bottom: .5rem; }
.remove { vertical-align: bottom; margin-bottom: .5rem; }
.editor-side section { border: 1px solid var(--line); border-radius: 6px; padding: .6rem .8rem; margin-bottom: 1rem; }
.editor-side h3 { margin: 0 0 .5rem; font-size: 1rem; }
.openings { padding-left: 1.3rem; margin: 0; }
.openings li { margin-bottom: .3rem; }
.openings .utc { display: block; font-size: 12px; }
.mini { border: 1px solid var(--line); height: 2.6rem; margin-top: .6rem; }
.problems { margin: .3rem 0; padding-left: 1.2rem; }
.save textarea { width: 100%; }
.diff { padding-left: 1.2rem; margin: .3rem 0; font-size: 13px; }
.diff del { color: #a40e26; } .diff ins { color: #116329; text-decoration: none; font-weight: 600; }
.conflict { border: 2px solid #9a6700; border-radius: 6px; padding: .4rem .7rem; margin-top: .5rem; }
.inline { display: inline-block; margin-left: .5rem; }
.signin { max-width: 30rem; }
.check { display: block; margin: .3rem 0; }
.operation { border: 1px solid var(--line); border-radius: 6px; padding: .4rem .7rem; margin: .4rem 0; }
.operation > summary { cursor: pointer; }
.method { font: 700 12px ui-monospace, monospace; padding: 0 .3rem; border: 1px solid var(--fg); border-radius: 4px; }
.try { margin-top: .5rem; }
.try .field { display: flex; max-width: 60rem; }
.try textarea { width: 100%; font: 12px ui-monospace, monospace; }
.answer { background: var(--panel); padding: .6rem; overflow: auto; max-height: 24rem; }
.raw { display: inline-block; margin-bottom: .4rem; }
/* Forced colours (Windows high contrast): hatching and the chosen band's shadow are dropped, so each kind gets a border of its own, shown the same in the legend. */
@media (forced-colors: active) {
  .open { border: none; border-top: 4px solid CanvasText; }
  .frozen { border: 3px double CanvasText; }
  .override-open { border: 3px dotted CanvasText; }
  .override-freeze { border: 3px dashed CanvasText; }
  .invalid { border: 3px groove CanvasText; }
  .swatch.now { border: none; border-left: 3px solid CanvasText; }
  .now-line { border-left-color: CanvasText; }
  .band.chosen { outline: 3px solid Highlight; outline-offset: 1px; }
  .state.frozen, .state.open { border: none; }
}
`;
