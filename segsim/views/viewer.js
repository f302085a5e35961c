"use strict";
// segsim fight viewer: one segment drives the map, the timeline and the account.
(function () {
  const errors = [];
  function fail(message) {
    errors.push(String(message));
    const box = document.getElementById("errors");
    if (box) box.textContent = errors.join("\n");
    document.body.setAttribute("data-errors", String(errors.length));
  }
  window.addEventListener("error", (e) => fail(e.message || e));
  window.addEventListener("unhandledrejection", (e) => fail(e.reason));

  const SVGNS = "http://www.w3.org/2000/svg";
  const SIDE_COLOURS = ["#4e79a7", "#e15759", "#59a14f", "#f28e2b", "#b07aa1", "#76b7b2"];
  const ROW = 18, LANE = 14, LEFT = 120;

  function bisect(list, t, key) {
    // index of the last item whose key is <= t, or -1
    let lo = 0, hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (key(list[mid]) <= t) lo = mid + 1; else hi = mid;
    }
    return lo - 1;
  }

  function start() {
    const data = JSON.parse(document.getElementById("fight-data").textContent);
    const F = data.fighters;
    const n = F.length;
    const state = { t: 0, playing: null, side: "", who: "", px: 6, scale: 1 };
    const sideIndex = {};
    data.sides.forEach((s, i) => { sideIndex[s] = i; });

    // ------------------------------------------------------------ header and controls
    document.getElementById("title").textContent = data.title + " (" + data.ruleset + ")";
    document.getElementById("outcome").textContent = data.outcome;
    const slider = document.getElementById("slider");
    slider.max = String(data.end);
    const sideSelect = document.getElementById("side");
    for (const s of data.sides) {
      const o = document.createElement("option");
      o.value = s; o.textContent = s;
      sideSelect.appendChild(o);
    }

    // per fighter: when it aims at whom (from its actions with a target)
    const aims = F.map(() => []);
    for (const s of data.spans) if (s[6] >= 0) aims[s[0]].push([s[1], s[6]]);
    const rowsSpans = F.map(() => []);
    for (const s of data.spans) rowsSpans[s[0]].push(s);

    function position(i, t) {
      const m = F[i].moves;
      const k = bisect(m, t, (p) => p[0]);
      const p = m[Math.max(0, k)];
      return [p[1], p[2]];
    }
    function status(i, t) {
      if (t < F[i].joined) return "absent";
      if (F[i].out !== null && t >= F[i].out) return "out";
      return "in";
    }
    // Where a fighter faces: its current target, else the other sides' centre.
    const centres = {};
    for (const s of data.sides) {
      let x = 0, y = 0, c = 0;
      F.forEach((f, i) => { if (f.side !== s) { const p = position(i, f.joined); x += p[0]; y += p[1]; c++; } });
      centres[s] = c ? [x / c, y / c] : [1, 0];
    }
    function facing(i, t, here) {
      const a = aims[i];
      const k = bisect(a, t, (p) => p[0]);
      const goal = k >= 0 && status(a[k][1], t) === "in" ? position(a[k][1], t) : centres[F[i].side];
      const dx = goal[0] - here[0], dy = goal[1] - here[1];
      const d = Math.hypot(dx, dy);
      return d > 1e-9 ? [dx / d, dy / d] : [1, 0];
    }
    function shown(i) {
      const f = F[i];
      if (state.side && f.side !== state.side) return false;
      if (state.who) {
        const w = state.who.toLowerCase();
        return f.id.toLowerCase().includes(w) || f.name.toLowerCase().includes(w);
      }
      return true;
    }

    // ------------------------------------------------------------ map
    const map = document.getElementById("map");
    let box = null;
    function fit() {
      let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
      F.forEach((f) => f.moves.forEach((m) => {
        x0 = Math.min(x0, m[1]); y0 = Math.min(y0, m[2]); x1 = Math.max(x1, m[1]); y1 = Math.max(y1, m[2]);
      }));
      if (!isFinite(x0)) { x0 = 0; y0 = 0; x1 = 1; y1 = 1; }
      const pad = 1.5;
      box = [x0 - pad, y0 - pad, Math.max(x1 - x0, 1) + 2 * pad, Math.max(y1 - y0, 1) + 2 * pad];
      setBox();
    }
    function setBox() { map.setAttribute("viewBox", box.map((v) => v.toFixed(3)).join(" ")); }
    function zoom(f) {
      const cx = box[0] + box[2] / 2, cy = box[1] + box[3] / 2;
      box = [cx - box[2] * f / 2, cy - box[3] * f / 2, box[2] * f, box[3] * f];
      setBox();
    }
    const marks = [];
    const labelled = n <= 80;
    for (let i = 0; i < n; i++) {
      const g = document.createElementNS(SVGNS, "g");
      g.setAttribute("class", "fighter");
      g.setAttribute("data-id", F[i].id);
      g.setAttribute("data-side", F[i].side);
      const c = document.createElementNS(SVGNS, "circle");
      c.setAttribute("r", "0.35");
      c.setAttribute("fill", SIDE_COLOURS[sideIndex[F[i].side] % SIDE_COLOURS.length]);
      const l = document.createElementNS(SVGNS, "line");
      l.setAttribute("x1", "0"); l.setAttribute("y1", "0");
      const title = document.createElementNS(SVGNS, "title");
      title.textContent = F[i].name + " (" + F[i].id + "), side " + F[i].side;
      g.append(title, c, l);
      let tx = null;
      if (labelled) {
        tx = document.createElementNS(SVGNS, "text");
        tx.setAttribute("x", "0.45"); tx.setAttribute("y", "-0.3");
        tx.textContent = F[i].id;
        g.appendChild(tx);
      }
      g.addEventListener("click", () => { state.who = F[i].id; document.getElementById("who").value = F[i].id; refilter(); });
      map.appendChild(g);
      marks.push([g, l, tx]);
    }
    // Labels never cover another fighter or another label: each takes the first free
    // place around its fighter (right, left, above, below), or is hidden (its tooltip
    // and the timeline still name it).
    const R = 0.42, ASCENT = 0.42, DESCENT = 0.1, GAP = 0.04;
    const widths = new Array(n).fill(-1);
    function placeLabels(points) {
      const boxes = [];
      for (let i = 0; i < n; i++) if (points[i]) {
        const p = points[i];
        boxes.push([p[0] - R, p[1] - R, p[0] + R, p[1] + R]);
      }
      const free = (b) => boxes.every((o) => b[2] + GAP <= o[0] || o[2] + GAP <= b[0] || b[3] + GAP <= o[1] || o[3] + GAP <= b[1]);
      for (let i = 0; i < n; i++) {
        const tx = marks[i][2];
        if (!tx) continue;
        if (!points[i]) { tx.setAttribute("data-placed", "0"); continue; }
        if (widths[i] < 0) widths[i] = tx.getComputedTextLength() || 0.3 * F[i].id.length;
        const w = widths[i], p = points[i];
        const spots = [
          [R + GAP, -0.15], [R + GAP, 0.45], [-R - GAP - w, -0.15], [-R - GAP - w, 0.45],
          [-w / 2, -R - GAP - DESCENT], [-w / 2, R + GAP + ASCENT],
        ];
        let placed = false;
        for (const [dx, dy] of spots) {
          const b = [p[0] + dx, p[1] + dy - ASCENT, p[0] + dx + w, p[1] + dy + DESCENT];
          if (free(b)) {
            tx.setAttribute("x", dx.toFixed(3)); tx.setAttribute("y", dy.toFixed(3));
            tx.style.display = "";
            tx.setAttribute("data-placed", "1");
            boxes.push(b);
            placed = true;
            break;
          }
        }
        if (!placed) { tx.style.display = "none"; tx.setAttribute("data-placed", "0"); }
      }
    }
    function drawMap() {
      const t = state.t;
      map.setAttribute("data-segment", String(t));
      const points = new Array(n).fill(null);
      for (let i = 0; i < n; i++) {
        const [g, l] = marks[i];
        const p = position(i, t);
        const st = status(i, t);
        if (st !== "absent") points[i] = p;
        g.setAttribute("transform", "translate(" + p[0] + " " + p[1] + ")");
        g.setAttribute("data-x", p[0].toFixed(3));
        g.setAttribute("data-y", p[1].toFixed(3));
        g.setAttribute("data-state", st);
        g.setAttribute("class", "fighter " + st + (shown(i) ? "" : " dim"));
        if (st === "in") {
          const d = facing(i, t, p);
          l.setAttribute("x2", (d[0] * 0.6).toFixed(3));
          l.setAttribute("y2", (d[1] * 0.6).toFixed(3));
          g.setAttribute("data-facing", d[0].toFixed(2) + " " + d[1].toFixed(2));
        }
      }
      if (labelled) placeLabels(points);
    }
    let drag = null;
    map.addEventListener("mousedown", (e) => { drag = [e.clientX, e.clientY, box[0], box[1]]; });
    window.addEventListener("mouseup", () => { drag = null; });
    map.addEventListener("mousemove", (e) => {
      if (!drag) return;
      const r = map.getBoundingClientRect();
      const k = Math.max(box[2] / r.width, box[3] / r.height);
      box[0] = drag[2] - (e.clientX - drag[0]) * k;
      box[1] = drag[3] - (e.clientY - drag[1]) * k;
      setBox();
    });
    map.addEventListener("wheel", (e) => { e.preventDefault(); zoom(e.deltaY > 0 ? 1.2 : 1 / 1.2); }, { passive: false });
    document.getElementById("zoom-in").onclick = () => zoom(1 / 1.5);
    document.getElementById("zoom-out").onclick = () => zoom(1.5);
    document.getElementById("zoom-fit").onclick = fit;

    // ------------------------------------------------------------ timeline (canvas, rows in view only)
    const scroller = document.getElementById("timeline-scroll");
    const space = document.getElementById("timeline-space");
    const canvas = document.getElementById("timeline");
    const ctx = canvas.getContext("2d");
    let rows = [];
    function layout() {
      rows = [];
      let y = 0;
      for (let i = 0; i < n; i++) {
        if (!shown(i)) continue;
        const h = Math.max(1, F[i].lanes) * LANE + 6;
        rows.push([i, y, h]);
        y += h;
      }
      space.style.width = (LEFT + (data.end + 1) * state.px + 20) + "px";
      space.style.height = (y + ROW) + "px";
    }
    function drawTimeline() {
      const w = scroller.clientWidth, h = scroller.clientHeight;
      if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
      const sx = scroller.scrollLeft, sy = scroller.scrollTop, px = state.px;
      ctx.clearRect(0, 0, w, h);
      ctx.font = "11px sans-serif";
      ctx.textBaseline = "middle";
      const first = Math.max(0, Math.floor(sx / px) - 1), last = Math.min(data.end, Math.ceil((sx + w) / px) + 1);
      // rounds, then a grid thinned to what fits
      ctx.fillStyle = "#f3f0fa";
      data.rounds.forEach((r, k) => {
        if (k % 2) return;
        const stop = k + 1 < data.rounds.length ? data.rounds[k + 1][0] : data.end + 1;
        ctx.fillRect(LEFT + r[0] * px - sx, ROW, (stop - r[0]) * px, h);
      });
      // A coarse ruleset's grid counts its cells (turns, phases, rounds).
      let step = data.cell > 1 ? data.cell : 1;
      while (step * px < 48) step = step * (String(step / (data.cell || 1))[0] === "2" ? 2.5 : 2);
      ctx.fillStyle = "#555";
      ctx.strokeStyle = "#e4e4e4";
      for (let s = Math.floor(first / step) * step; s <= last; s += step) {
        const x = LEFT + s * px - sx;
        if (x < LEFT) continue;
        ctx.beginPath(); ctx.moveTo(x + 0.5, ROW); ctx.lineTo(x + 0.5, h); ctx.stroke();
        ctx.fillText(String(s), x + 2, ROW / 2);
      }
      for (const [i, y0, rh] of rows) {
        const y = y0 + ROW - sy;
        if (y + rh < ROW || y > h) continue;
        for (const s of rowsSpans[i]) {
          if (s[2] < first || s[1] > last) continue;
          const x = LEFT + s[1] * px - sx, bw = Math.max(1, (s[2] - s[1] + 1) * px);
          const by = y + 2 + s[3] * LANE;
          if (s[7] & 4) {  // a wait, or the rules' own turn or wait: faint and thin
            ctx.globalAlpha = 0.5;
            ctx.fillStyle = "#cccccc";
            ctx.fillRect(x, by + (LANE - 3) / 2 - 1.5, bw, 3);
            ctx.globalAlpha = 1;
            continue;
          }
          ctx.globalAlpha = s[7] & 2 ? 0.45 : s[7] & 1 ? 0.75 : 1;
          ctx.fillStyle = data.colours[s[4]];
          ctx.fillRect(x, by, bw, LANE - 3);
          ctx.globalAlpha = 1;
          const label = data.kinds[s[4]];
          if (data.colours[s[4]] !== "#eeeeee" && bw > 7 * label.length) {
            ctx.fillStyle = "#222";
            ctx.fillText(label, x + 2, by + (LANE - 3) / 2);
          }
        }
        ctx.fillStyle = "#fff";
        ctx.fillRect(0, y, LEFT - 4, rh);
        ctx.fillStyle = F[i].out !== null && state.t >= F[i].out ? "#aaa" : "#222";
        ctx.fillText(F[i].id.slice(0, 16), 4, y + LANE / 2 + 2);
        ctx.strokeStyle = "#eee";
        ctx.beginPath(); ctx.moveTo(0, y + rh - 0.5); ctx.lineTo(w, y + rh - 0.5); ctx.stroke();
      }
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, LEFT - 4, ROW);
      const cx = LEFT + (state.t + 0.5) * px - sx;
      ctx.strokeStyle = "#c0392b"; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.moveTo(cx, 0); ctx.lineTo(cx, h); ctx.stroke();
      ctx.lineWidth = 1;
    }
    function spanAt(ex, ey) {
      const px = state.px;
      const t = Math.floor((ex + scroller.scrollLeft - LEFT) / px);
      const y = ey + scroller.scrollTop - ROW;
      for (const [i, y0, rh] of rows) {
        if (y < y0 || y >= y0 + rh) continue;
        const lane = Math.floor((y - y0 - 2) / LANE);
        let found = null;  // a chosen action over a faint bar under it
        for (const s of rowsSpans[i]) if (s[3] === lane && s[1] <= t && t <= s[2] && (!found || !(s[7] & 4))) found = s;
        return [t, found];
      }
      return [t, null];
    }
    canvas.addEventListener("click", (e) => {
      const r = canvas.getBoundingClientRect();
      const [t, s] = spanAt(e.clientX - r.left, e.clientY - r.top);
      if (s) go(s[1]); else if (t >= 0) go(t);
    });
    canvas.addEventListener("mousemove", (e) => {
      const r = canvas.getBoundingClientRect();
      const [, s] = spanAt(e.clientX - r.left, e.clientY - r.top);
      document.getElementById("hover").textContent = s ? F[s[0]].id + ": " + s[8].split("\n")[0] : "";
      canvas.title = s ? s[8] : "";
    });
    scroller.addEventListener("scroll", drawTimeline);
    document.getElementById("tl-in").onclick = () => { state.px = Math.min(40, state.px * 1.5); layout(); drawTimeline(); };
    document.getElementById("tl-out").onclick = () => { state.px = Math.max(0.05, state.px / 1.5); layout(); drawTimeline(); };
    const legend = document.getElementById("legend");
    const chosenKinds = new Set(data.spans.filter((s) => !(s[7] & 4)).map((s) => s[4]));
    data.kinds.forEach((k, i) => {
      if (!chosenKinds.has(i)) return;  // drawn only as thin grey bars: the note says so
      const span = document.createElement("span");
      const sw = document.createElement("i");
      sw.style.background = data.colours[i];
      span.append(sw, document.createTextNode(k));
      legend.appendChild(span);
    });
    const note = document.createElement("span");
    note.textContent = "thin grey: waiting, or a turn or wait the rules impose; faded: forced by the rules; fainter: cancelled; " + (data.cell > 1 ? "an action is drawn over the " + data.cell + "-segment cell it starts in; " : "") + "red line: the current segment; a click on a bar goes to its start";
    legend.appendChild(note);

    // ------------------------------------------------------------ account (lines near the segment)
    const account = document.getElementById("account");
    const lines = data.account;
    function drawAccount() {
      const t = state.t;
      const k = bisect(lines, t, (l) => l[0]);
      const chosen = [];
      for (let j = k; j >= 0 && chosen.length < 40; j--) if (lines[j][1] < 0 || shown(lines[j][1])) chosen.unshift(j);
      for (let j = k + 1; j < lines.length && chosen.length < 100; j++) if (lines[j][1] < 0 || shown(lines[j][1])) chosen.push(j);
      account.textContent = "";
      let now = null, before = null;
      for (const j of chosen) {
        const li = document.createElement("li");
        li.value = lines[j][0];
        li.setAttribute("data-t", String(lines[j][0]));
        li.textContent = lines[j][2];
        if (lines[j][0] === t) { li.className = "now"; now = now || li; }
        if (lines[j][0] <= t) before = li;
        li.onclick = () => go(lines[j][0]);
        account.appendChild(li);
      }
      const anchor = now || before || account.querySelector("li:last-child");
      if (anchor) account.scrollTop = Math.max(0, anchor.offsetTop - account.clientHeight / 3);
    }

    // ------------------------------------------------------------ the one segment
    function go(t) {
      state.t = Math.max(0, Math.min(data.end, Math.round(t)));
      slider.value = String(state.t);
      document.body.setAttribute("data-segment", String(state.t));
      const seconds = (state.t / 10).toFixed(1);
      let round = "";
      if (data.rounds.length) {
        const r = bisect(data.rounds, state.t, (x) => x[0]);
        if (r >= 0) round = ", " + data.rounds[r][1];
      }
      document.getElementById("clock").textContent = "segment " + state.t + " / " + data.end + " (" + seconds + " s" + round + ")";
      drawMap();
      drawTimeline();
      drawAccount();
    }
    function refilter() { layout(); go(state.t); }
    function play() {
      if (state.playing) { clearInterval(state.playing); state.playing = null; document.getElementById("play").innerHTML = "&#9654;"; return; }
      document.getElementById("play").innerHTML = "&#10074;&#10074;";
      state.playing = setInterval(() => {
        if (state.t >= data.end) { play(); return; }
        go(state.t + Number(document.getElementById("speed").value));
      }, 100);
    }
    slider.addEventListener("input", () => go(Number(slider.value)));
    document.getElementById("play").onclick = play;
    document.getElementById("back").onclick = () => go(state.t - 1);
    document.getElementById("next").onclick = () => go(state.t + 1);
    sideSelect.onchange = () => { state.side = sideSelect.value; refilter(); };
    document.getElementById("who").oninput = (e) => { state.who = e.target.value.trim(); refilter(); };
    document.addEventListener("keydown", (e) => {
      if (e.target && (e.target.tagName === "INPUT" && e.target.type !== "range" || e.target.tagName === "SELECT")) return;
      const by = e.shiftKey ? 10 : 1;
      if (e.key === "ArrowRight") { go(state.t + by); e.preventDefault(); }
      else if (e.key === "ArrowLeft") { go(state.t - by); e.preventDefault(); }
      else if (e.key === " ") { play(); e.preventDefault(); }
      else if (e.key === "Home") go(0);
      else if (e.key === "End") go(data.end);
    });
    window.addEventListener("resize", drawTimeline);
    window.addEventListener("hashchange", fromHash);
    function fromHash() {
      const m = /(?:^|[#&])t=(\d+)/.exec(location.hash);
      go(m ? Number(m[1]) : state.t);
    }

    fit();
    state.px = Math.max(0.05, Math.min(24, (scroller.clientWidth - LEFT - 20) / (data.end + 1)));
    if (data.cell > 1) state.px = Math.min(24, Math.max(state.px, 48 / data.cell));  // a cell reads
    layout();
    fromHash();
    document.body.setAttribute("data-fighters", String(n));
    document.body.setAttribute("data-ready", "1");
  }

  function boot() {
    try { start(); } catch (e) { fail(e && e.stack ? e.stack : e); }
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", boot);
  else boot();
})();
