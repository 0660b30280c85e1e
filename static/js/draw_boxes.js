/* draw_boxes: draw, label, move and resize boxes on an image. The SVG overlay's viewBox is the
   original image size, so every coordinate here is in original-image pixels. */
(function () {
  "use strict";
  var form = document.getElementById("task-form");
  var svg = document.getElementById("boxes-svg");
  if (!form || !svg) { return; }
  var payload = JSON.parse(document.getElementById("task-payload").textContent);
  var options = JSON.parse(document.getElementById("task-options").textContent);
  var W = payload.image.width, H = payload.image.height;
  var MIN = options.min_box_size || 1, MIN_N = options.min_boxes || 0, MAX_N = options.max_boxes || 50;
  var NS = "http://www.w3.org/2000/svg";
  var COLOURS = ["#e6194b", "#3cb44b", "#4363d8", "#f58231", "#911eb4", "#0fa3b1", "#f032e6", "#9a6324", "#808000", "#000075"];
  document.getElementById("boxes-stage").style.maxWidth = (70 * W / H).toFixed(2) + "vh";
  if (form.dataset.preview) { return; }

  var list = document.getElementById("box-list");
  var countEl = document.getElementById("boxes-count");
  var emptyEl = document.getElementById("boxes-empty");
  var status = document.getElementById("task-status");
  var boxes = [];        // {u: row id, x, y, w, h, concept: id|null, text: typed label, c: colour}
  var sel = -1, uid = 0, nextColour = 0, checked = false, lastOp = "", history = [], drag = null;
  var rows = {};
  var byId = {}, lookup = Object.create(null);

  function norm(s) { return String(s).trim().replace(/\s+/g, " ").toLowerCase(); }
  payload.concepts.forEach(function (c) { byId[c.id] = c; });
  payload.concepts.forEach(function (c) {
    (c.synonyms || []).forEach(function (s) { if (!(norm(s) in lookup)) { lookup[norm(s)] = c; } });
  });
  payload.concepts.forEach(function (c) { lookup[norm(c.name)] = c; });  // names win over synonyms
  (function fillDatalist() {
    var dl = document.getElementById("concept-options"), seen = {};
    function add(value, label) {
      if (seen[norm(value)]) { return; }
      seen[norm(value)] = true;
      var o = document.createElement("option");
      o.value = value;
      if (label) { o.label = label; }
      dl.appendChild(o);
    }
    payload.concepts.forEach(function (c) { add(c.name); });
    payload.concepts.forEach(function (c) { (c.synonyms || []).forEach(function (s) { add(s, c.name); }); });
  })();

  function resolve(text) { var c = lookup[norm(text)]; return c ? c.id : null; }
  function clamp(v, lo, hi) { return Math.max(lo, Math.min(hi, v)); }
  function colour(b) { return COLOURS[b.c % COLOURS.length]; }
  function snapshot() { return JSON.stringify({b: boxes, c: nextColour}); }
  function pushUndo(state) {
    history.push(state || snapshot());
    if (history.length > 200) { history.shift(); }
    lastOp = "";
  }
  function save() { if (window.TaskKinds.saveDraft) { window.TaskKinds.saveDraft(); } }
  function changed() { syncList(); renderSvg(); save(); }
  function say(message) { status.textContent = message; status.className = "status"; }

  function el(name, attrs, parent) {
    var node = document.createElementNS(NS, name);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (parent) { parent.appendChild(node); }
    return node;
  }

  function renderSvg() {
    var rect = svg.getBoundingClientRect();
    var s = rect.width ? W / rect.width : 1;  // original pixels per screen pixel
    while (svg.firstChild) { svg.removeChild(svg.firstChild); }
    var order = boxes.map(function (b, i) { return i; }).filter(function (i) { return i !== sel; });
    if (sel >= 0) { order.push(sel); }  // the selected box (and its handles) on top
    order.forEach(function (i) {
      var b = boxes[i], col = colour(b);
      var g = el("g", {"class": "bx" + (i === sel ? " is-selected" : ""), "data-i": i}, svg);
      el("rect", {"class": "bx-body", x: b.x, y: b.y, width: b.w, height: b.h, stroke: col, fill: col}, g);
      var concept = byId[b.concept];
      var label = i + " " + (concept ? concept.name : "?");
      var fs = 13 * s, th = fs * 1.4, tw = (label.length * 0.62 * fs) + 8 * s;
      var ty = b.y >= th ? b.y - th : b.y;
      el("rect", {"class": "bx-tag-bg", x: b.x, y: ty, width: tw, height: th, fill: col}, g);
      el("text", {"class": "bx-tag", x: b.x + 4 * s, y: ty + fs * 1.05, "font-size": fs}, g).textContent = label;
      if (i === sel) {
        var hs = 11 * s;
        [["nw", b.x, b.y], ["ne", b.x + b.w, b.y], ["sw", b.x, b.y + b.h], ["se", b.x + b.w, b.y + b.h]].forEach(function (h) {
          el("rect", {"class": "bx-h", "data-h": h[0], x: h[1] - hs / 2, y: h[2] - hs / 2, width: hs, height: hs}, g);
        });
      }
    });
    if (drag && drag.mode === "draw" && drag.box) {
      var d = drag.box;
      el("rect", {"class": "bx-draft", x: d.x, y: d.y, width: d.w, height: d.h}, svg);
    }
  }

  function makeRow(u) {
    var li = document.createElement("li");
    li.className = "box-row";
    var num = document.createElement("button");
    num.type = "button";
    num.className = "box-num";
    var input = document.createElement("input");
    input.type = "text";
    input.className = "box-label";
    input.setAttribute("list", "concept-options");
    input.autocomplete = "off";
    input.spellcheck = false;
    input.maxLength = 100;
    input.placeholder = "label…";
    var del = document.createElement("button");
    del.type = "button";
    del.className = "box-del";
    del.textContent = "×";
    var info = document.createElement("span");
    info.className = "box-info";
    info.id = "box-info-" + u;
    input.setAttribute("aria-describedby", info.id);
    li.append(num, input, del, info);
    var before = null;
    function index() { for (var i = 0; i < boxes.length; i += 1) { if (boxes[i].u === u) { return i; } } return -1; }
    num.addEventListener("click", function () { select(index()); });
    del.addEventListener("click", function () { remove(index()); svg.focus(); });
    input.addEventListener("focus", function () { before = snapshot(); if (sel !== index()) { select(index(), true); } });
    input.addEventListener("input", function () {
      var b = boxes[index()];
      b.text = input.value;
      b.concept = resolve(input.value);
      updateRow(b, index());
      renderSvg();
      save();
    });
    input.addEventListener("change", function () {
      if (before !== null && before !== snapshot()) { pushUndo(before); before = snapshot(); }
    });
    input.addEventListener("keydown", function (ev) {
      if (ev.key === "Enter") { ev.preventDefault(); input.dispatchEvent(new Event("change")); }  // no implicit submit
      if (ev.key === "Escape") { ev.preventDefault(); svg.focus(); }
    });
    return {li: li, num: num, input: input, del: del, info: info};
  }

  function updateRow(b, i) {
    var r = rows[b.u], concept = byId[b.concept], typed = b.text.trim();
    r.li.style.setProperty("--c", colour(b));
    r.li.classList.toggle("is-selected", i === sel);
    r.num.textContent = String(i);
    r.num.setAttribute("aria-label", "Select box " + i);
    r.num.setAttribute("aria-pressed", i === sel ? "true" : "false");
    r.input.setAttribute("aria-label", "Label of box " + i);
    r.del.setAttribute("aria-label", "Delete box " + i);
    if (document.activeElement !== r.input && r.input.value !== b.text) { r.input.value = b.text; }
    var bad = !concept && (typed !== "" || checked);
    r.input.setAttribute("aria-invalid", bad ? "true" : "false");
    r.info.classList.toggle("is-error", bad);
    r.info.textContent = concept ? "→ " + concept.name + " (" + b.w + "×" + b.h + " px)"
      : typed ? "Unknown label: pick one from the list." : "Not labelled yet.";
  }

  function syncList() {
    var seen = {};
    boxes.forEach(function (b, i) {
      var r = rows[b.u] || (rows[b.u] = makeRow(b.u));
      seen[b.u] = true;
      if (list.children[i] !== r.li) { list.insertBefore(r.li, list.children[i] || null); }
      updateRow(b, i);
    });
    Object.keys(rows).forEach(function (u) {
      if (!seen[u]) { rows[u].li.remove(); delete rows[u]; }
    });
    countEl.textContent = "(" + boxes.length + " / " + MAX_N + ")";
    emptyEl.hidden = boxes.length > 0;
  }

  function select(i, keepFocus) {
    sel = i >= 0 && i < boxes.length ? i : -1;
    syncList();
    renderSvg();
    if (sel >= 0 && !keepFocus) {
      var li = rows[boxes[sel].u].li;
      if (li.scrollIntoView) { li.scrollIntoView({block: "nearest"}); }
    }
  }

  function remove(i) {
    if (i < 0 || i >= boxes.length) { return; }
    pushUndo();
    boxes.splice(i, 1);
    sel = -1;
    changed();
    say("Box " + i + " deleted (Ctrl+Z to undo).");
  }

  function undo() {
    if (!history.length) { say("Nothing to undo."); return; }
    var state = JSON.parse(history.pop());
    boxes = state.b;
    nextColour = state.c;
    lastOp = "";
    if (sel >= boxes.length) { sel = -1; }
    changed();
    say("Undone.");
  }

  function addBox(x, y, w, h) {
    if (boxes.length >= MAX_N) { say("At most " + MAX_N + " boxes."); return false; }
    pushUndo();
    uid += 1;
    boxes.push({u: uid, x: x, y: y, w: w, h: h, concept: null, text: "", c: nextColour});
    nextColour += 1;
    sel = boxes.length - 1;
    changed();
    return true;
  }

  function nudge(dx, dy, resize) {
    var b = boxes[sel], n = {x: b.x, y: b.y, w: b.w, h: b.h};
    if (resize) {
      n.w = clamp(b.w + dx, MIN, W - b.x);
      n.h = clamp(b.h + dy, MIN, H - b.y);
    } else {
      n.x = clamp(b.x + dx, 0, W - b.w);
      n.y = clamp(b.y + dy, 0, H - b.h);
    }
    if (n.x === b.x && n.y === b.y && n.w === b.w && n.h === b.h) { return; }
    var op = (resize ? "size" : "move") + b.u;
    if (lastOp !== op) { pushUndo(); }  // a run of key presses is one undo step
    lastOp = op;
    Object.assign(b, n);
    changed();
  }

  // --- pointer: draw on empty space, move a box by its body, resize by its corner handles ---
  function toImage(ev) {
    var r = svg.getBoundingClientRect();
    return {x: clamp((ev.clientX - r.left) * W / r.width, 0, W), y: clamp((ev.clientY - r.top) * H / r.height, 0, H)};
  }

  svg.addEventListener("pointerdown", function (ev) {
    if (ev.button !== 0) { return; }
    var p = toImage(ev), t = ev.target;
    svg.focus({preventScroll: true});
    var handle = t.getAttribute && t.getAttribute("data-h");
    var g = t.closest ? t.closest("[data-i]") : null;
    if (handle && sel >= 0) {
      drag = {mode: "resize", h: handle};
    } else if (g) {
      select(parseInt(g.getAttribute("data-i"), 10));
      drag = {mode: "move"};
    } else {
      drag = {mode: "draw"};
    }
    drag.start = p;
    drag.i = sel;
    drag.orig = sel >= 0 ? Object.assign({}, boxes[sel]) : null;
    drag.before = snapshot();
    svg.setPointerCapture(ev.pointerId);
    ev.preventDefault();
  });

  svg.addEventListener("pointermove", function (ev) {
    if (!drag) { return; }
    var p = toImage(ev), o = drag.orig;
    if (drag.mode === "draw") {
      var x1 = Math.round(Math.min(p.x, drag.start.x)), y1 = Math.round(Math.min(p.y, drag.start.y));
      drag.box = {x: x1, y: y1, w: Math.round(Math.max(p.x, drag.start.x)) - x1, h: Math.round(Math.max(p.y, drag.start.y)) - y1};
      renderSvg();
      return;
    }
    var b = boxes[drag.i], dx = p.x - drag.start.x, dy = p.y - drag.start.y;
    if (drag.mode === "move") {
      b.x = clamp(Math.round(o.x + dx), 0, W - o.w);
      b.y = clamp(Math.round(o.y + dy), 0, H - o.h);
    } else {
      var l = o.x, r = o.x + o.w, t = o.y, bo = o.y + o.h;
      if (drag.h.indexOf("w") >= 0) { l = clamp(Math.round(p.x), 0, r - MIN); }
      if (drag.h.indexOf("e") >= 0) { r = clamp(Math.round(p.x), l + MIN, W); }
      if (drag.h.indexOf("n") >= 0) { t = clamp(Math.round(p.y), 0, bo - MIN); }
      if (drag.h.indexOf("s") >= 0) { bo = clamp(Math.round(p.y), t + MIN, H); }
      b.x = l; b.y = t; b.w = r - l; b.h = bo - t;
    }
    renderSvg();
    updateRow(b, drag.i);
  });

  function endDrag() {
    if (!drag) { return; }
    var d = drag;
    drag = null;
    if (d.mode === "draw") {
      if (d.box && d.box.w >= MIN && d.box.h >= MIN) { addBox(d.box.x, d.box.y, d.box.w, d.box.h); }
      else { select(-1); }
      return;
    }
    if (d.before !== snapshot()) { pushUndo(d.before); changed(); }
  }
  svg.addEventListener("pointerup", endDrag);
  svg.addEventListener("pointercancel", endDrag);
  svg.addEventListener("lostpointercapture", endDrag);
  window.addEventListener("resize", renderSvg);

  // --- keyboard ---
  var ARROWS = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
  document.addEventListener("keydown", function (ev) {
    var t = ev.target, tag = t && t.tagName;
    var typing = tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || (t && t.isContentEditable);
    var ours = t === document.body || t === svg || (t.closest && t.closest(".boxes-task"));
    if (!ours || typing || drag) { return; }
    if ((ev.ctrlKey || ev.metaKey) && !ev.altKey && !ev.shiftKey && (ev.key === "z" || ev.key === "Z")) {
      ev.preventDefault();
      undo();
      return;
    }
    if (ev.ctrlKey || ev.metaKey) { return; }
    var arrow = ARROWS[ev.key];
    if (arrow && sel >= 0) {
      var step = ev.shiftKey ? 10 : 1;
      ev.preventDefault();
      nudge(arrow[0] * step, arrow[1] * step, ev.altKey);
    } else if ((ev.key === "Delete" || ev.key === "Backspace") && sel >= 0) {
      ev.preventDefault();
      remove(sel);
      svg.focus();
    } else if (ev.key === "Escape" && sel >= 0) {
      ev.preventDefault();
      select(-1);
    } else if ((ev.key === "n" || ev.key === "p") && boxes.length && !ev.altKey) {
      ev.preventDefault();
      select(sel < 0 ? (ev.key === "n" ? 0 : boxes.length - 1) : (sel + (ev.key === "n" ? 1 : boxes.length - 1)) % boxes.length);
    } else if (ev.key === "Tab" && t === svg && boxes.length) {
      var next = sel < 0 ? (ev.shiftKey ? -1 : 0) : sel + (ev.shiftKey ? -1 : 1);
      if (next >= 0 && next < boxes.length) { ev.preventDefault(); select(next); }  // else leave the image
    } else if ((ev.key === "+" || ev.key === "Enter") && t === svg) {
      ev.preventDefault();
      var w = Math.max(MIN, Math.round(W / 4)), h = Math.max(MIN, Math.round(H / 4));
      addBox(Math.round((W - w) / 2), Math.round((H - h) / 2), Math.min(w, W), Math.min(h, H));
    }
  });

  // --- task.js hooks ---
  window.TaskKinds = window.TaskKinds || {};
  window.TaskKinds.draw_boxes = {
    collect: function () {
      return {boxes: boxes.map(function (b) { return {concept: b.concept, x: b.x, y: b.y, width: b.w, height: b.h}; })};
    },
    validate: function () {
      var errors = [], first = -1;
      if (boxes.length < MIN_N) { errors.push(MIN_N === 1 ? "Draw at least one box." : "Draw at least " + MIN_N + " boxes."); }
      if (boxes.length > MAX_N) { errors.push("Draw at most " + MAX_N + " boxes (you drew " + boxes.length + ")."); }
      boxes.forEach(function (b, i) {
        var typed = b.text.trim();
        if (b.concept === null) {
          errors.push("Box " + i + (typed ? ": “" + typed + "” is not in the list of labels." : " has no label: choose one from the list."));
          if (first < 0) { first = i; }
        }
        if (b.w < MIN || b.h < MIN) { errors.push("Box " + i + " is too small (at least " + MIN + "×" + MIN + " px)."); }
      });
      checked = true;
      syncList();
      if (first >= 0) { rows[boxes[first].u].input.focus(); }
      return errors.length ? {boxes: errors.join(" ")} : {};
    },
    draft: function () { return {v: 1, boxes: boxes, colour: nextColour}; },
    restore: function (saved) {
      if (!saved || saved.v !== 1 || !Array.isArray(saved.boxes)) { return; }
      boxes = [];
      saved.boxes.slice(0, MAX_N).forEach(function (b) {
        var x = clamp(Math.round(+b.x) || 0, 0, W), y = clamp(Math.round(+b.y) || 0, 0, H);
        var w = clamp(Math.round(+b.w) || 0, 1, W - x), h = clamp(Math.round(+b.h) || 0, 1, H - y);
        var text = typeof b.text === "string" ? b.text.slice(0, 100) : "";
        uid += 1;
        boxes.push({u: uid, x: x, y: y, w: w, h: h, concept: resolve(text), text: text, c: Math.abs(Math.round(+b.c) || 0)});
      });
      nextColour = Math.max(Math.round(+saved.colour) || 0, boxes.length);
      sel = -1;
      syncList();
      renderSvg();
    }
  };
  syncList();
  renderSvg();
})();
