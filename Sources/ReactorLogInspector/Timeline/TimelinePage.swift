import Foundation

/// The timeline's HTML page: one self-contained file (its style, script and data inline) that makes no network
/// request, enforced by its content security policy, so it opens safely from a bug report's attachments.
///
/// Everything from the log reaches the page as JSON data and is shown with `textContent`, never as markup.
enum TimelinePage {
    /// The page for `document`.
    static func html(_ document: TimelineDocument) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // `<` only occurs inside JSON strings, where `\u003c` means the same: the data can never close its element.
        let data = String(decoding: try encoder.encode(document), as: UTF8.self).replacingOccurrences(of: "<", with: "\\u003c")
        let title = escape("\(document.source.stream) — timeline")
        return head.replacingOccurrences(of: "@TITLE@", with: title)
            .replacingOccurrences(of: "@EXACT@", with: String(document.needsExactNumbers)) + data + tail
    }

    /// `text` with the characters that mean something in HTML replaced by references.
    static func escape(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            default: result.append(character)
            }
        }
        return result
    }

    private static let head = #"""
    <!DOCTYPE html>
    <html lang="en">
    <head>
    <meta charset="utf-8">
    <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>@TITLE@</title>
    <style>
    :root {
      --bg: #fbfbfa; --panel: #ffffff; --text: #1d1d1f; --muted: #6e6e73; --line: #e3e3e0; --select: #dbe9ff;
      --action: #2f6fdb; --mutation: #1f8a4c; --error: #d1242f; --marker: #8a8a8e; --changed: #fff3c4;
      --mono: ui-monospace, "SF Mono", Menlo, "DejaVu Sans Mono", monospace;
    }
    @media (prefers-color-scheme: dark) {
      :root { --bg: #161618; --panel: #1e1e21; --text: #e8e8ea; --muted: #9a9aa0; --line: #333338; --select: #23395d;
        --action: #6ea2ff; --mutation: #4cc47f; --error: #ff6b6b; --marker: #8a8a8e; --changed: #4a4020; }
    }
    * { box-sizing: border-box; }
    body { margin: 0; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; background: var(--bg); color: var(--text);
      display: grid; grid-template-rows: auto auto auto 1fr; height: 100vh; }
    header { padding: 10px 16px 6px; }
    header h1 { font-size: 16px; margin: 0 0 2px; }
    header .meta, .note { color: var(--muted); }
    .note { margin-top: 2px; }
    .controls { display: flex; gap: 10px; align-items: center; padding: 6px 16px; border-top: 1px solid var(--line); flex-wrap: wrap; }
    .controls input[type=range] { flex: 1; min-width: 200px; }
    .controls button { font: inherit; padding: 2px 8px; }
    #step-label { font-family: var(--mono); min-width: 260px; }
    .filters { display: flex; gap: 8px; align-items: center; }
    #minimap { display: block; width: calc(100% - 32px); height: 22px; margin: 0 16px 6px; cursor: pointer;
      border: 1px solid var(--line); background: var(--panel); }
    main { display: grid; grid-template-columns: minmax(320px, 4fr) 6fr; gap: 0; min-height: 0; border-top: 1px solid var(--line); }
    #entries { overflow-y: auto; position: relative; border-right: 1px solid var(--line); background: var(--panel); outline: none; }
    #entries .spacer { position: relative; }
    .row { position: absolute; left: 0; right: 0; height: 22px; display: flex; gap: 8px; align-items: center; padding: 0 8px;
      white-space: nowrap; overflow: hidden; font-family: var(--mono); font-size: 12px; cursor: pointer; }
    .row:hover { background: var(--line); }
    .row.selected { background: var(--select); }
    .row .seq { color: var(--muted); flex: none; width: 8ch; text-align: right; }
    .row .time { color: var(--muted); flex: none; width: 14ch; text-align: right; }
    .row .kind { flex: none; width: 8ch; font-weight: 600; }
    .row .case { overflow: hidden; text-overflow: ellipsis; }
    .row.action .kind { color: var(--action); } .row.mutation .kind { color: var(--mutation); }
    .row.error .kind, .row.error .case { color: var(--error); } .row.marker { color: var(--marker); }
    .row.nested .case::before { content: "└ "; color: var(--muted); }
    .row .late { flex: none; color: var(--muted); }
    #entry { font-family: var(--mono); font-size: 12px; white-space: pre-wrap; overflow-wrap: anywhere; margin: 0; }
    .side { display: grid; grid-template-columns: 1fr 1fr; grid-template-rows: auto 1fr; min-height: 0; }
    .side section { overflow: auto; padding: 4px 16px 12px; min-height: 0; }
    .side section + section { border-left: 1px solid var(--line); }
    .side .entry-panel { grid-column: 1 / 3; max-height: 10.5em; border-bottom: 1px solid var(--line); }
    .side h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); margin: 8px 0 4px; }
    #state-tree, #diff, #blame { font-family: var(--mono); font-size: 12px; }
    #state-tree details { margin-left: 14px; }
    #state-tree > details, #state-tree > .leaf { margin-left: 0; }
    #state-tree summary { cursor: pointer; }
    #state-tree .leaf { margin-left: 14px; padding-left: 12px; }
    #state-tree .key { cursor: pointer; }
    #state-tree .key:hover { text-decoration: underline; }
    #state-tree .changed > summary, #state-tree .leaf.changed { background: var(--changed); }
    #state-tree .summary { color: var(--muted); }
    .unknown { color: var(--muted); font-style: italic; }
    #diff div { white-space: pre-wrap; overflow-wrap: anywhere; }
    #diff .add { color: var(--mutation); } #diff .remove { color: var(--error); } #diff .change { color: #b7791f; }
    #blame .change { cursor: pointer; white-space: pre-wrap; overflow-wrap: anywhere; }
    #blame .change:hover { background: var(--line); }
    </style>
    </head>
    <body>
    <header>
      <h1 id="title"></h1>
      <div class="meta" id="source"></div>
      <div class="note" id="mode"></div>
      <div class="note" id="range-note"></div>
    </header>
    <div class="controls">
      <button id="previous" title="Previous step (← or k)">◀</button>
      <input type="range" id="slider" min="0" value="0" aria-label="Step">
      <button id="next" title="Next step (→ or j)">▶</button>
      <button id="play" title="Play the shown entries at the pace they were recorded (space)" aria-pressed="false">Play</button>
      <select id="speed" aria-label="Speed" title="Playing speed: a pause over a second plays as one second">
        <option value="0.1">0.1×</option><option value="0.5">0.5×</option><option value="1" selected>1×</option>
        <option value="2">2×</option><option value="10">10×</option>
      </select>
      <span id="step-label"></span>
      <span class="filters">
        <label><input type="checkbox" id="show-action" checked> actions</label>
        <label><input type="checkbox" id="show-mutation" checked> mutations</label>
        <label><input type="checkbox" id="show-error" checked> errors</label>
        <label><input type="checkbox" id="show-marker" checked> markers</label>
        <select id="case-filter" aria-label="Case"><option value="">all cases</option></select>
      </span>
    </div>
    <canvas id="minimap" height="22" title="Entries over the range: errors in red. Click to jump."></canvas>
    <main>
      <div id="entries" tabindex="0"><div class="spacer"></div></div>
      <div class="side">
        <section class="entry-panel"><h2>Entry</h2><pre id="entry"></pre></section>
        <section><h2>State</h2><div id="state-tree"></div></section>
        <section>
          <h2>Diff against the previous step</h2><div id="diff"></div>
          <h2>Blame</h2><div id="blame"><span class="unknown">Click a property in the state to see which mutations changed it.</span></div>
        </section>
      </div>
    </main>
    <script type="application/json" id="timeline-data" data-exact="@EXACT@">
    """#

    private static let tail = #"""
    </script>
    <script>
    "use strict";
    // A number a JavaScript number would round stays exact where the browser gives JSON.parse the source text: an
    // integer past 2^53 (an Int64 identifier, a time in nanoseconds) as a BigInt, a decimal of more digits than a
    // double holds (a Decimal amount) as a String object of its text (structuredClone keeps it, JSON text has no
    // other). Both are written back as their text, where the browser can (JSON.rawJSON).
    function exact(value, source) {
      if (typeof value !== "number" || source === undefined) return value;
      if (/^-?[0-9]+$/.test(source)) return Number.isSafeInteger(value) ? value : BigInt(source);
      // The same text, as most numbers print alike in Swift and JavaScript, needs no comparing by value.
      const text = String(value);
      return text === source || sameValue(source, text) ? value : new String(source);
    }
    // Whether two numbers' texts denote the same value: their digits without leading or trailing zeros, and where
    // the point falls.
    function sameValue(a, b) {
      const normal = (text) => {
        const [, sign, whole, fraction, exponent] = /^(-?)([0-9]*)\.?([0-9]*)(?:[eE]([-+]?[0-9]+))?$/.exec(text);
        const digits = whole + fraction;
        const lead = digits.search(/[1-9]/);
        if (lead < 0) return "0";
        return sign + digits.slice(lead).replace(/0+$/, "") + "e" + (Number(exponent || 0) + whole.length - lead);
      };
      return normal(a) === normal(b);
    }
    // Read through `exact` only when a number needs it: calling it for every value took most of a large page's load.
    const embedded = document.getElementById("timeline-data");
    const data = embedded.dataset.exact === "true"
      ? JSON.parse(embedded.textContent, (key, value, context) => exact(value, context === undefined ? undefined : context.source))
      : JSON.parse(embedded.textContent);
    function json(value, space) {
      return JSON.stringify(value, (key, item) => typeof item !== "bigint" && !(item instanceof String) ? item
        : typeof JSON.rawJSON === "function" ? JSON.rawJSON(item.toString()) : item.toString(), space);
    }
    // An object or array; not an exact decimal's String object.
    function isContainer(value) { return value !== null && typeof value === "object" && !(value instanceof String); }
    const entries = data.entries;
    const bySequence = new Map(entries.map((entry, index) => [entry.s, index]));
    const t0 = entries.length ? BigInt(entries[0].t) : 0n;
    const ROW = 22;
    let state = copy(data.start);
    let position = 0; // 0: before the first entry; i: after entries[i - 1]
    let blamed = null;
    const open = new Set([""]);

    function copy(value) { return value === undefined || value === null ? value : structuredClone(value); }
    function text(tag, content, className) {
      const element = document.createElement(tag);
      if (content !== undefined) element.textContent = content;
      if (className) element.className = className;
      return element;
    }
    function pathText(path) {
      let result = "";
      for (const part of path) result += typeof part === "number" ? "[" + part + "]" : (result ? "." + part : part);
      return result;
    }
    function short(value, limit) {
      const rendered = json(value);
      return rendered.length <= limit ? rendered : rendered.slice(0, limit - 3) + "…";
    }
    function isMarker(kind) { return kind === "opened" || kind === "resumed" || kind === "closed"; }
    // The time since the first entry in the unit that keeps it short: +217.912 ms, +12.345 s, +12:34.567,
    // +1:02:03.456, +3 d 01:02:03 (the column is 14 characters wide; a recording may run for days).
    function relativeTime(entry) {
      const nanos = BigInt(entry.t) - t0;
      const sign = nanos < 0n ? "-" : "+";
      const micros = (nanos < 0n ? -nanos : nanos) / 1000n;
      if (micros < 1000000n) return sign + (Number(micros) / 1000).toFixed(3) + " ms";
      if (micros < 60000000n) return sign + (Number(micros / 1000n) / 1000).toFixed(3) + " s";
      const millis = micros / 1000n, two = (n) => String(n).padStart(2, "0");
      const seconds = two(millis / 1000n % 60n) + "." + String(millis % 1000n).padStart(3, "0");
      const minutes = millis / 60000n % 60n, hours = millis / 3600000n % 24n, days = millis / 86400000n;
      if (millis < 3600000n) return sign + minutes + ":" + seconds;
      if (days === 0n) return sign + hours + ":" + two(minutes) + ":" + seconds;
      return sign + days + " d " + two(hours) + ":" + two(minutes) + ":" + two(millis / 1000n % 60n);
    }
    // The time as listings and `show` print it: local, the millisecond it falls in (2026-12-06 18:20:49.815), which
    // `--since` and `--until` read back.
    // When the page was written (UTC ISO 8601 in its data), in local time to the second, as the entries' times read.
    function writtenAt(iso) {
      const millis = Date.parse(iso);
      return Number.isFinite(millis) ? absoluteTime({ t: String(BigInt(millis) * 1000000n) }).slice(0, 19) : iso;
    }
    function absoluteTime(entry) {
      const nanos = BigInt(entry.t), millis = nanos / 1000000n - (nanos % 1000000n < 0n ? 1n : 0n);
      const date = new Date(Number(millis)), two = (n) => String(n).padStart(2, "0");
      return date.getFullYear() + "-" + two(date.getMonth() + 1) + "-" + two(date.getDate()) + " " + two(date.getHours()) + ":" +
        two(date.getMinutes()) + ":" + two(date.getSeconds()) + "." + String(date.getMilliseconds()).padStart(3, "0");
    }

    // Moving through states: each entry carries its changes with old and new values, so a step is applied
    // forwards or undone backwards without keeping every state.
    function put(path, has, value) {
      if (path.length === 0) { state = has ? copy(value) : null; return; }
      let parent = state;
      for (let i = 0; i < path.length - 1; i++) {
        if (!isContainer(parent)) return;
        parent = parent[path[i]];
      }
      if (!isContainer(parent)) return;
      const last = path[path.length - 1];
      if (has) parent[last] = copy(value);
      else if (Array.isArray(parent)) parent.length = Math.min(parent.length, last);
      else delete parent[last];
    }
    function apply(changes) { if (changes) for (const c of changes) put(c.p, "n" in c, c.n); }
    function undo(changes) { if (changes) for (let i = changes.length - 1; i >= 0; i--) put(changes[i].p, "o" in changes[i], changes[i].o); }
    function moveTo(target) {
      target = Math.max(0, Math.min(entries.length, target));
      while (position < target) { apply(entries[position].d); position++; }
      while (position > target) { position--; undo(entries[position].d); }
      render();
    }
    // A start not known is left out of the data (`undefined`); `null` is a state that is JSON null.
    function stateUnknown() { return position === 0 ? data.start === undefined : !!entries[position - 1].u; }

    // The entry list, filtered, in the order the entries happened, as stepping and Play go through them: each mutation
    // and error indented under the action that caused it, and one that an earlier action's effect produced after a
    // later action names its action (late), since it is not under it.
    let rows = [], rowOf = new Int32Array(0);
    function buildRows() {
      const kinds = {
        action: document.getElementById("show-action").checked, mutation: document.getElementById("show-mutation").checked,
        error: document.getElementById("show-error").checked, marker: document.getElementById("show-marker").checked };
      const wanted = document.getElementById("case-filter").value;
      const visible = (entry) => (isMarker(entry.k) ? kinds.marker : kinds[entry.k]) && (!wanted || entry.c === wanted);
      rows = [];
      let lastAction;
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i], cause = entry.b;
        if (entry.k === "action") lastAction = entry.s;
        const nested = cause !== undefined && bySequence.has(cause) && entries[bySequence.get(cause)].k === "action";
        if (visible(entry)) rows.push({ index: i, nested, late: nested && cause !== lastAction });
      }
      // Each entry's row, or -1 when filtered out: a step asks it, where a search of the rows took a look at each.
      rowOf = new Int32Array(entries.length).fill(-1);
      rows.forEach((row, r) => { rowOf[row.index] = r; });
      const list = document.getElementById("entries");
      list.firstChild.style.height = rows.length * ROW + "px";
      drawRows();
    }
    function drawRows() {
      const list = document.getElementById("entries");
      const spacer = list.firstChild;
      const first = Math.max(0, Math.floor(list.scrollTop / ROW) - 5);
      const last = Math.min(rows.length, first + Math.ceil(list.clientHeight / ROW) + 10);
      spacer.replaceChildren();
      for (let r = first; r < last; r++) {
        const { index, nested, late } = rows[r];
        const entry = entries[index];
        const row = text("div", undefined, "row " + (isMarker(entry.k) ? "marker" : entry.k) + (nested ? " nested" : "") +
          (index === position - 1 ? " selected" : ""));
        row.style.top = r * ROW + "px";
        row.dataset.sequence = entry.s;
        row.append(text("span", "#" + entry.s, "seq"), text("span", relativeTime(entry), "time"),
          text("span", entry.k, "kind"), text("span", entry.r, "case"));
        if (late) row.append(text("span", "\u2190 #" + entry.b + " " + entries[bySequence.get(entry.b)].c, "late"));
        row.title = absoluteTime(entry) + (entry.b !== undefined ? "  caused by #" + entry.b : "");
        row.addEventListener("click", () => go(index + 1));
        spacer.append(row);
      }
    }
    function revealSelected() {
      const r = position > 0 ? rowOf[position - 1] : -1;
      if (r < 0) return;
      const list = document.getElementById("entries");
      if (r * ROW < list.scrollTop || (r + 1) * ROW > list.scrollTop + list.clientHeight) {
        list.scrollTop = Math.max(0, r * ROW - list.clientHeight / 2);
      }
    }

    // The state as a collapsible tree; changed paths highlighted and their ancestors opened.
    function changedPaths() {
      const paths = new Set();
      if (position === 0) return paths;
      for (const change of entries[position - 1].d || []) {
        for (let i = 0; i <= change.p.length; i++) paths.add(pathText(change.p.slice(0, i)));
      }
      return paths;
    }
    function node(key, value, path, changed) {
      const name = pathText(path);
      const label = key === null ? "state" : String(key);
      if (isContainer(value)) {
        const details = text("details");
        details.dataset.path = name;
        if (changed.has(name)) { details.classList.add("changed"); open.add(name); }
        const summary = text("summary");
        const keyElement = text("span", label, "key");
        keyElement.addEventListener("click", (event) => { event.preventDefault(); blame(path); });
        const count = Array.isArray(value) ? value.length : Object.keys(value).length;
        summary.append(keyElement, text("span", Array.isArray(value) ? " [" + count + "]" : " {" + count + "}", "summary"));
        details.append(summary);
        const fill = () => {
          if (details.childElementCount > 1) return;
          const keys = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value).sort();
          for (const k of keys) details.append(node(k, value[k], path.concat([k]), changed));
        };
        details.open = open.has(name);
        if (details.open) fill();
        details.addEventListener("toggle", () => { if (details.open) { open.add(name); fill(); } else open.delete(name); });
        return details;
      }
      const leaf = text("div", undefined, "leaf" + (changed.has(name) ? " changed" : ""));
      leaf.dataset.path = name;
      const keyElement = text("span", label, "key");
      keyElement.addEventListener("click", () => blame(path));
      leaf.append(keyElement, text("span", ": "), text("span", json(value), "value"));
      return leaf;
    }
    function renderState() {
      const tree = document.getElementById("state-tree");
      if (stateUnknown() && (position === 0 ? data.startUnreadable : entries[position - 1].x)) {
        tree.replaceChildren(text("div", "Not known at this step: it would be rebuilt through entries that could not be read. " +
          "reactorlog verify names the damage.", "unknown"));
        return;
      }
      if (stateUnknown() && (position === 0 ? data.startSnapshotUnreadable : entries[position - 1].z)) {
        tree.replaceChildren(text("div", "Not known at this step: it was recorded in a snapshot that cannot be read. " +
          "reactorlog verify names the damage; an inspector built with this reactor's reduce rebuilds it.", "unknown"));
        return;
      }
      if (stateUnknown() && (position === 0 ? data.startValueMissing : entries[position - 1].v)) {
        tree.replaceChildren(text("div", "Not known at this step: it would be rebuilt through a mutation the log holds without its value " +
          "(reactorlog show names why). The stream's next snapshot holds the state again.", "unknown"));
        return;
      }
      if (stateUnknown()) {
        // The nearest recorded states, walked to from here: a few hundred entries apart, not the whole range.
        let back = position - 1, ahead = position;
        while (back >= 0 && !entries[back].d) back--;
        while (ahead < entries.length && !entries[ahead].d) ahead++;
        // Before the page's first recorded state, the state it starts from, when known: the state right before its
        // first entry, named #0 where it is the stream's initial state.
        const start = data.start === undefined ? undefined : data.startIsInitial ? 0 : data.range.first - 1;
        const before = back >= 0 ? entries[back].s : start, after = entries[ahead];
        const named = (step) => "#" + step + (step === 0 ? " (the initial state)" : "");
        tree.replaceChildren(text("div", "Not recorded at this step" +
          (before !== undefined || after ? " (recorded states: " + [before !== undefined ? named(before) : null, after ? "#" + after.s : null].filter(Boolean).join(", ") + ")" : "") +
          ". An inspector built with this reactor's reduce shows every state.", "unknown"));
        return;
      }
      tree.replaceChildren(node(null, state, [], changedPaths()));
    }
    function renderDiff() {
      const diff = document.getElementById("diff");
      diff.replaceChildren();
      if (position === 0) { diff.append(text("div", "The state before the first entry shown.", "unknown")); return; }
      const entry = entries[position - 1];
      if (entry.u) {
        diff.append(text("div", entry.x ? "Not known: it would be rebuilt through entries that could not be read." :
          entry.z ? "Not known: it was recorded in a snapshot that cannot be read." : "Not known: no state was recorded here.", "unknown"));
        return;
      }
      if (!entry.d) { diff.append(text("div", entry.k === "mutation" ? "No change." : "No change (" + (entry.k === "action" ? "an " : "a ") + entry.k + " entry).", "unknown")); return; }
      if (entry.g !== undefined) diff.append(text("div", "Across #" + entry.g + "…#" + entry.s + ": the states between are not in the log.", "unknown"));
      const changes = entry.d;
      for (let i = 0; i < changes.length;) {
        const change = changes[i], run = runLength(changes, i);
        const path = pathText(change.p) || "state";
        if (run >= 4) {
          const last = changes[i + run - 1];
          const range = pathText(change.p.slice(0, -1)) + "[" + change.p[change.p.length - 1] + "..." +
            last.p[last.p.length - 1] + "]: " + run;
          if (!("o" in change)) {
            diff.append(text("div", "+ " + range + " added (" + short(change.n, 60) + " … " + short(last.n, 60) + ")", "add"));
          } else if (!("n" in change)) {
            diff.append(text("div", "- " + range + " removed (" + short(change.o, 60) + " … " + short(last.o, 60) + ")", "remove"));
          } else {
            diff.append(text("div", "~ " + range + " changed (" + short(change.o, 60) + " → " + short(change.n, 60) + " … " +
              short(last.o, 60) + " → " + short(last.n, 60) + ")", "change"));
          }
          i += run;
          continue;
        }
        if (!("o" in change)) diff.append(text("div", "+ " + path + ": " + short(change.n, 60), "add"));
        else if (!("n" in change)) diff.append(text("div", "- " + path + ": " + short(change.o, 60), "remove"));
        else diff.append(text("div", "~ " + path + ": " + short(change.o, 60) + " → " + short(change.n, 60), "change"));
        i++;
      }
    }
    // How many changes from `start` add, remove or replace consecutive elements of one array, all of one kind, as
    // `reactorlog diff` groups them.
    function runLength(changes, start) {
      const first = changes[start];
      const index = first.p[first.p.length - 1];
      if (typeof index !== "number") return 1;
      const parent = json(first.p.slice(0, -1));
      let length = 0;
      for (let i = start; i < changes.length; i++) {
        const change = changes[i];
        if (change.p[change.p.length - 1] !== index + length || json(change.p.slice(0, -1)) !== parent ||
            ("o" in change) !== ("o" in first) || ("n" in change) !== ("n" in first)) break;
        length++;
      }
      return length;
    }
    function renderEntry() {
      const panel = document.getElementById("entry");
      if (position === 0) { panel.textContent = "The start of the range."; return; }
      const entry = entries[position - 1];
      const cause = entry.b !== undefined ? "\ncaused by #" + entry.b + (bySequence.has(entry.b) ? " " + entries[bySequence.get(entry.b)].r : "") : "";
      const site = entry.w !== undefined ? "\nsent from " + entry.w : "";
      panel.textContent = "#" + entry.s + " " + entry.k + (entry.r ? " " + entry.r : "") + "\n" + absoluteTime(entry) + " (" + relativeTime(entry) + ")" + site + cause +
        (entry.p !== undefined && entry.p !== null ? "\n" + json(entry.p, 2) : "");
    }

    // Blame: replays the changes up to the selected step and keeps those that changed the value at the path.
    function valueAt(value, path) {
      for (const part of path) {
        if (!isContainer(value)) return undefined;
        value = value[part];
      }
      return value;
    }
    function blame(path) {
      blamed = path;
      const saved = state, savedPosition = position;
      const found = [];
      state = copy(data.start);
      for (let i = 0; i < savedPosition; i++) {
        const changes = entries[i].d;
        if (!changes) continue;
        const touches = changes.some((c) => c.p.length <= path.length ? c.p.every((p, j) => p === path[j]) : path.every((p, j) => p === c.p[j]));
        const before = touches ? json(valueAt(state, path)) : null;
        apply(changes);
        if (touches) {
          const after = json(valueAt(state, path));
          if (after !== before) found.push({ index: i, before, after });
        }
      }
      state = saved;
      const list = document.getElementById("blame");
      list.replaceChildren(text("div", (pathText(path) || "state") + ": changed by " + found.length + " mutation" +
        (found.length === 1 ? "" : "s") + " up to this step" + (found.length > 50 ? " (the last 50 shown)" : "") + "."));
      for (const change of found.slice(-50).reverse()) {
        const entry = entries[change.index];
        const cause = entry.b !== undefined && bySequence.has(entry.b) ? " ← #" + entry.b + " " + entries[bySequence.get(entry.b)].c : "";
        const span = entry.g !== undefined ? " (somewhere in #" + entry.g + "…#" + entry.s + ")" : "";
        const line = text("div", "#" + entry.s + " " + entry.c + cause + span + ": " + (change.before ?? "absent") + " → " + (change.after ?? "absent"), "change");
        line.dataset.sequence = entry.s;
        line.addEventListener("click", () => go(change.index + 1));
        list.append(line);
      }
    }

    // The entries' ticks, drawn once for the minimap's width and copied onto it at each step with the position.
    let ticks = null;
    function drawMinimap() {
      const canvas = document.getElementById("minimap");
      const width = canvas.clientWidth;
      const styles = getComputedStyle(document.documentElement);
      const color = (name) => styles.getPropertyValue("--" + name);
      if (!ticks || ticks.width !== width || ticks.colors !== color("error")) ticks = drawTicks(width, canvas.height, color);
      if (canvas.width !== width) canvas.width = width;
      const context = canvas.getContext("2d");
      context.clearRect(0, 0, width, canvas.height);
      if (!entries.length) return;
      context.drawImage(ticks.canvas, 0, 0);
      context.fillStyle = color("text");
      context.fillRect(Math.floor(position * width / Math.max(1, entries.length)), 0, 2, canvas.height);
    }
    function drawTicks(width, height, color) {
      const canvas = document.createElement("canvas");
      canvas.width = width;
      canvas.height = height;
      const context = canvas.getContext("2d");
      const rank = { marker: 0, mutation: 1, action: 2, error: 3 };
      const buckets = new Array(width).fill(-1);
      entries.forEach((entry, i) => {
        const x = Math.floor(i * width / entries.length);
        buckets[x] = Math.max(buckets[x], rank[isMarker(entry.k) ? "marker" : entry.k]);
      });
      const names = ["marker", "mutation", "action", "error"];
      buckets.forEach((r, x) => {
        if (r < 0) return;
        context.fillStyle = color(names[r]);
        const tall = r === 3 ? height : height / 2;
        context.fillRect(x, height - tall, 1, tall);
      });
      // Kept with the colours it was drawn in: a switch to dark mode draws it again.
      return { canvas, width, colors: color("error") };
    }

    function render() {
      const slider = document.getElementById("slider");
      slider.value = position;
      const label = document.getElementById("step-label");
      if (position === 0) label.textContent = "start: before #" + (entries.length ? entries[0].s : "—");
      else {
        const entry = entries[position - 1];
        label.textContent = "#" + entry.s + " " + entry.k + (entry.c === entry.k ? "" : " " + entry.c) + "  " + absoluteTime(entry);
      }
      renderEntry();
      renderState();
      renderDiff();
      if (blamed) blame(blamed);
      drawRows();
      revealSelected();
      drawMinimap();
    }

    // The nearest step from `from` in `direction` whose entry is shown, or the end of the range.
    function shownStep(from, direction) {
      let target = from + direction;
      while (target > 0 && target <= entries.length && rowOf[target - 1] < 0) target += direction;
      return Math.max(0, Math.min(entries.length, target));
    }
    function step(direction) { go(shownStep(position, direction)); }
    // A move the user asked for: it pauses playing.
    function go(target) { pause(); moveTo(target); }

    // Playing steps through the shown entries at the pace they were recorded, scaled by the speed menu; a pause
    // longer than a second plays as one second. Each step is due a wait after the one before was due, not after it
    // was drawn, so drawing does not slow the pace; a step drawn late is followed at once, none is skipped.
    const LONGEST_WAIT = 1000;
    let playing = null; // while playing: { due, timer }
    function nextShown() {
      const target = shownStep(position, 1);
      return target > position && rowOf[target - 1] >= 0 ? target : -1;
    }
    function waitBefore(target) {
      if (position === 0) return 0;
      const recorded = Number(BigInt(entries[target - 1].t) - BigInt(entries[position - 1].t)) / 1e6;
      // A device's clock may step back: such a gap plays as none.
      return Math.min(Math.max(0, recorded) / Number(document.getElementById("speed").value), LONGEST_WAIT);
    }
    function schedule() {
      const target = nextShown();
      if (target < 0) { pause(); return; }
      playing.due += waitBefore(target);
      playing.timer = setTimeout(() => { moveTo(target); schedule(); }, Math.max(0, playing.due - performance.now()));
    }
    function play() {
      if (nextShown() < 0) moveTo(0);
      playing = { due: performance.now(), timer: null };
      renderPlaying();
      schedule();
    }
    function pause() {
      if (!playing) return;
      clearTimeout(playing.timer);
      playing = null;
      renderPlaying();
    }
    function renderPlaying() {
      const button = document.getElementById("play");
      button.textContent = playing ? "Pause" : "Play";
      button.setAttribute("aria-pressed", String(!!playing));
    }

    document.getElementById("title").textContent = data.source.stream + " — " + data.source.reactorType;
    document.getElementById("source").textContent = data.source.log + " · entries #" + data.range.first + "…#" + data.range.last +
      " (" + data.range.shown + ") · written by " + data.source.inspector + " at " + writtenAt(data.source.generatedAt);
    document.getElementById("mode").textContent = data.source.reduced
      ? "Every state rebuilt with the reactor's reduce."
      : "Recorded states only: the state is known where the log recorded it. An inspector built with this reactor's reduce shows every state (docs/INSPECTOR.md).";
    document.getElementById("range-note").textContent = data.range.note || "";
    const slider = document.getElementById("slider");
    slider.max = entries.length;
    slider.addEventListener("input", () => go(Number(slider.value)));
    document.getElementById("previous").addEventListener("click", () => step(-1));
    document.getElementById("next").addEventListener("click", () => step(1));
    document.getElementById("play").addEventListener("click", () => playing ? pause() : play());
    const cases = [...new Set(entries.map((e) => e.c))].sort();
    const caseFilter = document.getElementById("case-filter");
    for (const name of cases) caseFilter.append(new Option(name, name));
    for (const id of ["show-action", "show-mutation", "show-error", "show-marker", "case-filter"]) {
      document.getElementById(id).addEventListener("change", () => {
        buildRows();
        render();
        // Playing goes on among the entries now shown.
        if (playing) { clearTimeout(playing.timer); playing.due = performance.now(); schedule(); }
      });
    }
    document.getElementById("entries").addEventListener("scroll", drawRows);
    document.getElementById("minimap").addEventListener("click", (event) => {
      const canvas = event.currentTarget;
      go(Math.round(event.offsetX / canvas.clientWidth * entries.length));
    });
    document.addEventListener("keydown", (event) => {
      const target = event.target;
      // A menu and a property of the state take their own keys, and the slider its arrows.
      const ownKeys = ["SELECT", "SUMMARY"].includes(target.tagName);
      // Space plays or pauses, but where it already means something: pressing a button, ticking a box, opening a
      // menu or a property of the state.
      if (event.key === " ") {
        if (!ownKeys && target.tagName !== "BUTTON" && target.type !== "checkbox") {
          playing ? pause() : play();
          event.preventDefault();
        }
        return;
      }
      if (ownKeys || target === slider) return;
      const moves = { ArrowRight: 1, ArrowDown: 1, j: 1, ArrowLeft: -1, ArrowUp: -1, k: -1 };
      if (event.key in moves) { step(moves[event.key]); event.preventDefault(); }
      else if (event.key === "Home") { go(0); event.preventDefault(); }
      else if (event.key === "End") { go(entries.length); event.preventDefault(); }
    });
    window.addEventListener("resize", () => { drawRows(); drawMinimap(); });
    buildRows();
    moveTo(entries.length);
    document.body.dataset.ready = "true";
    </script>
    </body>
    </html>

    """#
}
