"use strict";
// segsim table mode: the game master's page and the players' pages (no dependencies).
// The token is read from the address's fragment (#token=...), which the browser never
// sends to the server, and sent in an Authorization header with every API call.
(function () {
  const role = document.body.getAttribute("data-role");
  const match = /(?:^|[#&])token=([A-Za-z0-9_-]+)/.exec(location.hash);
  const token = match ? match[1] : "";
  const $ = (id) => document.getElementById(id);
  let shown = { version: -1, forms: "", view: "" };
  let current = null;
  let viewUrl = null;

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "text") node.textContent = v;
      else node.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children) node.append(c);
    return node;
  }

  function showError(message) {
    $("error").textContent = message || "";
  }

  async function api(method, path, body) {
    const init = { method, headers: { Authorization: "Bearer " + token } };
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    const type = response.headers.get("content-type") || "";
    const data = type.includes("json") ? await response.json() : await response.text();
    return { ok: response.ok, status: response.status, data };
  }

  async function post(path, body) {
    showError("");  // what the last refusal said is not this request's answer
    const r = await api("POST", path, body);
    if (!r.ok) showError(r.data && r.data.error ? r.data.error : "refused (" + r.status + ")");
    else showError("");
    await refresh();
    return r;
  }

  // ------------------------------------------------------------ declaration forms

  function valueKey(v) { return JSON.stringify(v); }

  function declarationForm(view) {
    const form = el("div", { class: "form", "data-cid": view.cid });
    const head = el("h4", { text: view.name + (view.must_act ? " must act" : " may declare") });
    form.append(head);
    if (view.declared) form.append(el("p", { class: "declared", text: "declared (secret until the phase closes); you may declare again" }));
    const perceives = el("details", {});
    perceives.append(el("summary", { text: "what " + view.name + " perceives" }));
    perceives.append(el("pre", { class: "observation", text: JSON.stringify({ me: view.me, others: view.others }, null, 1) }));
    form.append(perceives);

    const kinds = [];
    for (const d of view.legal) if (!kinds.includes(d.kind)) kinds.push(d.kind);
    const kind = el("select", { class: "kind", "aria-label": "action" });
    for (const k of kinds) kind.append(el("option", { value: "do:" + k, text: k }));
    for (const c of view.cancels) kind.append(el("option", { value: "cancel:" + c.cancel, text: "cancel " + c.kind + " #" + c.cancel }));
    const other = el("input", { class: "other-kind", placeholder: "or another action", size: 12, list: "kinds-" + view.cid });
    const known = el("datalist", { id: "kinds-" + view.cid });
    for (const k of Object.keys(current.kinds || {})) known.append(el("option", { value: k }));
    const typed = el("span", { class: "typed-params" });
    const target = el("select", { class: "target", "aria-label": "target" });
    const params = el("span", { class: "params" });
    const extra = el("input", { class: "extra", placeholder: '{"ps": {"bonus": 1}}', size: 22, "aria-label": "more parameters (JSON)" });
    const pending = el("ol", { class: "pending" });
    const items = [];

    function entries() {
      const k = kind.value.startsWith("do:") ? kind.value.slice(3) : null;
      return view.legal.filter((d) => d.kind === k);
    }
    function fillTarget() {
      target.textContent = "";
      const seen = [];
      for (const d of entries()) if (!seen.includes(d.target)) seen.push(d.target);
      if (!seen.length) seen.push(null);
      for (const t of seen) target.append(el("option", { value: t === null ? "" : t, text: t === null ? "(no target)" : t }));
      fillParams();
    }
    function fillParams() {
      params.textContent = "";
      const t = target.value || null;
      const keys = {};
      for (const d of entries()) {
        if (d.target !== t) continue;
        for (const [key, v] of Object.entries(d.params || {})) {
          keys[key] = keys[key] || [];
          if (!keys[key].some((x) => valueKey(x) === valueKey(v))) keys[key].push(v);
        }
      }
      for (const [key, values] of Object.entries(keys)) {
        const select = el("select", { "data-param": key, "aria-label": key });
        for (const v of values) select.append(el("option", { value: valueKey(v), text: typeof v === "string" ? v : valueKey(v) }));
        params.append(el("label", { text: key + " " }, select));
      }
      fillTyped(Object.keys(keys));
    }
    function fillTyped(listed) {
      // The other parameters the kind accepts (points to spend...), typed in.
      typed.textContent = "";
      const k = other.value.trim() || (kind.value.startsWith("do:") ? kind.value.slice(3) : "");
      for (const [key, words] of (current.kinds || {})[k] || []) {
        if (listed.includes(key)) continue;
        const input = el("input", { "data-typed": key, size: 10, placeholder: words.split(":")[0], title: words, "aria-label": key });
        typed.append(el("label", { title: words, text: key + " " }, input));
      }
    }
    kind.addEventListener("change", fillTarget);
    target.addEventListener("change", fillParams);
    other.addEventListener("change", () => fillTyped([]));
    fillTarget();

    function item() {
      if (kind.value.startsWith("cancel:") && !other.value.trim()) return { cancel: Number(kind.value.slice(7)) };
      const chosen = { kind: other.value.trim() || kind.value.slice(3), target: target.value || null, params: {} };
      if (other.value.trim()) chosen.target = null;
      for (const select of params.querySelectorAll("select[data-param]")) {
        chosen.params[select.getAttribute("data-param")] = JSON.parse(select.value);
      }
      for (const input of typed.querySelectorAll("input[data-typed]")) {
        const text = input.value.trim();
        if (!text) continue;
        let value;
        try { value = JSON.parse(text); } catch (e) { value = text; }
        chosen.params[input.getAttribute("data-typed")] = value;
      }
      if (extra.value.trim()) {
        let more;
        try { more = JSON.parse(extra.value); } catch (e) { throw new Error("more parameters: not JSON (" + e.message + ")"); }
        if (typeof more !== "object" || more === null || Array.isArray(more)) throw new Error("more parameters: a JSON object");
        Object.assign(chosen.params, more);
      }
      return chosen;
    }
    function send(list) {
      return post("/api/declare", { fighter: view.cid, phase: current.phase, declarations: list });
    }
    const add = el("button", { type: "button", class: "add", text: "Add" });
    add.addEventListener("click", () => {
      try { items.push(item()); } catch (e) { showError(e.message); return; }
      pending.append(el("li", { text: JSON.stringify(items[items.length - 1]) }));
    });
    const declare = el("button", { type: "button", class: "declare", text: "Declare" });
    declare.addEventListener("click", () => {
      let list;
      try { list = items.concat([item()]); } catch (e) { showError(e.message); return; }
      send(list);
    });
    const nothing = el("button", { type: "button", class: "nothing", text: view.must_act ? "Nothing (idle)" : "Nothing new" });
    nothing.addEventListener("click", () => send(items.slice()));
    form.append(el("label", { text: "action " }, kind), other, known, el("label", { text: " target " }, target), params);
    form.append(el("div", {}, typed));
    form.append(el("div", {}, el("label", { text: "more parameters " }, extra)));
    form.append(pending, add, declare, nothing);
    return form;
  }

  function renderForms(forms, phase) {
    const key = phase + "|" + forms.map((f) => f.cid + ":" + f.declared).join(",");
    if (key === shown.forms) return;
    shown.forms = key;
    const box = $("forms");
    box.textContent = "";
    for (const view of forms) box.append(declarationForm(view));
  }

  // ------------------------------------------------------------ pages

  function renderCommon(s) {
    $("title").textContent = (s.name || "fight") + " (" + s.ruleset + ")";
    $("phase").textContent = String(s.phase);
    $("segment").textContent = String(s.segment);
    document.body.setAttribute("data-phase", String(s.phase));
    document.body.setAttribute("data-segment", String(s.segment));
    const o = s.outcome;
    $("outcome").textContent = o ? "The fight is over: " + o.result + (o.winner ? ", side " + o.winner + " wins" : "") : (s.waiting_for_die ? "Waiting for a die." : "");
    document.body.setAttribute("data-ended", o ? "1" : "0");
    $("notice").textContent = s.message || "";
  }

  function renderAccount(list, box) {
    box.textContent = "";
    for (const [t, text] of list) box.append(el("li", { text: "segment " + t + ": " + text }));
  }

  async function renderGm(s) {
    const called = $("called");
    called.textContent = "";
    for (const c of s.called) {
      called.append(el("li", { "data-cid": c.cid, class: c.declared ? "declared" : "waiting", text: c.name + " (" + c.holder + "): " + (c.declared ? "declared" : "to declare") + (c.must_act ? ", must act" : "") }));
    }
    $("close").disabled = !s.called.length;
    renderForms(s.forms, s.phase);
    const die = $("die");
    die.textContent = "";
    if (s.wanted) {
      const w = s.wanted;
      const input = el("input", { id: "die-value", type: "number", min: 1, max: w.sides, "aria-label": "face" });
      const enter = el("button", { id: "die-enter", type: "button", text: "Enter" });
      enter.addEventListener("click", () => post("/api/die", { draw: w.draw, value: Number(input.value) }));
      die.append(el("p", { class: "wanted", text: "Roll a " + w.die + (w.actor ? " for " + w.actor : "") + ": " + w.purpose + " " }), input, enter);
    }
    const players = $("players");
    players.textContent = "";
    for (const p of s.players) {
      const url = location.origin + "/play#token=" + p.token;
      players.append(el("li", {}, p.name + " (" + p.fighters.join(", ") + "): ", el("a", { class: "player-link", "data-player": p.name, href: url, target: "_blank", rel: "noopener", text: url })));
    }
    const fighters = $("fighters");
    fighters.textContent = "";
    for (const f of s.fighters) fighters.append(el("li", { text: f.name + " (" + f.cid + ", " + f.side + "): " + f.holder }));
    $("record").textContent = s.record;
    $("dice-mode").textContent = s.dice === "table" ? "typed in by the game master" : "rolled by segsim (seeded)";
    $("undo").disabled = !s.can_undo;
    const seg = $("branch-segment");
    const before = seg.value;
    seg.textContent = "";
    for (const t of s.segments) seg.append(el("option", { value: t, text: String(t) }));
    if (s.segments.map(String).includes(before)) seg.value = before;
    const viewKey = s.phase + "|" + s.segment + "|" + (s.outcome ? 1 : 0) + "|" + s.record;
    if (shown.view !== viewKey) {
      shown.view = viewKey;
      const r = await api("GET", "/api/view");
      if (r.ok) {
        if (viewUrl) URL.revokeObjectURL(viewUrl);
        viewUrl = URL.createObjectURL(new Blob([r.data], { type: "text/html" }));
        $("viewer").src = viewUrl + "#t=" + s.segment;
      }
    }
  }

  function renderPlayer(s) {
    const mine = $("mine");
    mine.textContent = "";
    for (const f of s.fighters) {
      const what = !f.in_fight ? "out of the fight" : f.declared ? "declared" : f.called ? "to declare" : "waiting for the others";
      mine.append(el("li", { "data-cid": f.cid, class: f.declared ? "declared" : "waiting", text: f.name + ": " + what }));
    }
    renderForms(s.forms, s.phase);
    renderAccount(s.account, $("account"));
  }

  async function refresh() {
    const r = await api("GET", "/api/state");
    if (!r.ok) {
      showError(r.data && r.data.error ? r.data.error : "refused (" + r.status + ")");
      return;
    }
    const s = r.data;
    // Two refreshes may be in flight at once (one after a request, one for a live
    // update) and their answers may arrive out of order: never show an older state
    // over a newer one (no further update would come to put the newer one back).
    if (shown.version !== undefined && s.version < shown.version) return;
    current = s;
    renderCommon(s);
    if (role === "gm") await renderGm(s);
    else renderPlayer(s);
    shown.version = s.version;
    document.body.setAttribute("data-version", String(s.version));
    document.body.setAttribute("data-ready", "1");
  }

  // ------------------------------------------------------------ live updates

  async function listen() {
    for (;;) {
      try {
        const response = await fetch("/api/events", { headers: { Authorization: "Bearer " + token } });
        if (!response.ok || !response.body) throw new Error("no event stream");
        $("status").textContent = "live";
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          let cut;
          while ((cut = buffer.indexOf("\n\n")) >= 0) {
            const chunk = buffer.slice(0, cut);
            buffer = buffer.slice(cut + 2);
            const data = /^data: (.*)$/m.exec(chunk);
            if (data && JSON.parse(data[1]).version !== shown.version) await refresh();
          }
        }
      } catch (e) {
        $("status").textContent = "reconnecting";
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }

  $("close") && $("close").addEventListener("click", () => post("/api/close", { phase: current.phase }));
  $("undo") && $("undo").addEventListener("click", () => post("/api/undo", { phase: current.phase }));
  $("branch") && $("branch").addEventListener("click", () => post("/api/branch", { segment: Number($("branch-segment").value), record: $("branch-record").value }));
  refresh().then(listen);
})();
