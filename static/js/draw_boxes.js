/* draw_boxes: draw, label, move, resize boxes. The SVG overlay's viewBox is the original image size:
   every coordinate here is in original-image pixels. */
(function () {
  "use strict";
  function $(id) { return document.getElementById(id); }
  var form = $("task-form"), svg = $("boxes-svg");
  if (!form || !svg) { return; }
  var payload = JSON.parse($("task-payload").textContent), options = JSON.parse($("task-options").textContent);
  var W = payload.image.width, H = payload.image.height;
  var MIN = options.min_box_size || 1, MIN_N = options.min_boxes || 0, MAX_N = options.max_boxes || 50;
  var NS = "http://www.w3.org/2000/svg";
  $("boxes-stage").style.setProperty("--ratio", (W / H).toFixed(4));  // worker.css sizes the stage by it
  if (form.dataset.preview) { return; }

  var list = $("box-list"), status = $("task-status");
  var boxes = [];  // {u: row id, x, y, w, h, concept: id|null, text: typed label, c: colour}
  var sel = -1, uid = 0, checked = false, lastOp = "", history = [], drag = null;
  var rows = {}, byId = {}, lookup = Object.create(null);
  var editor = $("box-editor"), editorInput = $("box-editor-input"), editing = null, editorBefore = null;

  function norm(s) { return String(s).trim().replace(/\s+/g, " ").toLowerCase(); }
  payload.concepts.forEach(function (c) {
    byId[c.id] = c;
    (c.synonyms || []).forEach(function (s) { if (!(norm(s) in lookup)) { lookup[norm(s)] = c; } });
  });
  payload.concepts.forEach(function (c) { lookup[norm(c.name)] = c; });  // names win over synonyms
  var datalist = $("concept-options");
  Object.keys(lookup).forEach(function (key) {  // every name and synonym once; a synonym shows its concept
    var c = lookup[key], value = norm(c.name) === key ? c.name : null;
    (c.synonyms || []).forEach(function (s) { if (!value && norm(s) === key) { value = s; } });
    datalist.appendChild(h("option", {value: value, label: value === c.name ? "" : c.name}));
  });

  function resolve(text) { var c = lookup[norm(text)]; return c ? c.id : null; }
  function clamp(v, lo, hi) { return Math.max(lo, Math.min(hi, v)); }
  function int(v, lo, hi) { return clamp(Math.round(v) || 0, lo, hi); }
  function colour(b) { return " c" + b.c % 10; }  // palette classes in worker.css
  function snapshot() { return JSON.stringify(boxes); }
  function pushUndo(state) { history = history.slice(-199).concat(state || snapshot()); lastOp = ""; }
  function save() {  // after every change: keep the draft; an old error message gives way to the live row checks
    if (status.classList.contains("error")) { say(""); }
    if (window.TaskKinds.saveDraft) { window.TaskKinds.saveDraft(); }
  }
  function changed() { syncList(); renderSvg(); save(); if (editing !== null && !rows[editing]) { closeEditor(false); } }
  function say(message) { status.textContent = message; status.className = "status"; }

  function h(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs).forEach(function (k) { if (attrs[k]) { node[k] = attrs[k]; } });
    if (text) { node.textContent = text; }
    return node;
  }
  function el(name, attrs, parent) {
    var node = document.createElementNS(NS, name);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (parent) { parent.appendChild(node); }
    return node;
  }

  function renderSvg() {
    var s = W / (svg.getBoundingClientRect().width || W);  // original pixels per screen pixel
    svg.textContent = "";
    var order = boxes.map(function (b, i) { return i; }).filter(function (i) { return i !== sel; });
    if (sel >= 0) { order.push(sel); }  // the selected box and its handles on top
    order.forEach(function (i) {
      var b = boxes[i], g = el("g", {"class": "bx" + colour(b) + (i === sel ? " is-selected" : ""), "data-i": i}, svg);
      el("rect", {"class": "bx-body", x: b.x, y: b.y, width: b.w, height: b.h}, g);
      var label = (i + 1) + " " + (byId[b.concept] ? byId[b.concept].name : "?");
      var fs = 13 * s, th = fs * 1.4, tw = label.length * 0.68 * fs + 8 * s, ty = b.y >= th ? b.y - th : b.y;
      el("rect", {"class": "bx-tag-bg", x: b.x, y: ty, width: tw, height: th}, g);
      el("text", {"class": "bx-tag", x: b.x + 4 * s, y: ty + fs * 1.05, "font-size": fs}, g).textContent = label;
      if (i === sel) {
        var hs = 11 * s;
        ["nw", "ne", "sw", "se"].forEach(function (k) {
          var x = k[1] === "w" ? b.x : b.x + b.w, y = k[0] === "n" ? b.y : b.y + b.h;
          el("rect", {"class": "bx-h", "data-h": k, x: x - hs / 2, y: y - hs / 2, width: hs, height: hs}, g);
        });
      }
    });
    var d = drag && drag.box;
    if (d) { el("rect", {"class": "bx-draft", x: d.x, y: d.y, width: d.w, height: d.h}, svg); }
  }

  function makeRow(u) {
    var li = h("li", {className: "box-row"});
    var num = h("button", {type: "button", className: "box-num"});
    var input = h("input", {type: "text", className: "box-label", autocomplete: "off", maxLength: 100, placeholder: "label…"});
    var del = h("button", {type: "button", className: "box-del"}, "×");
    var info = h("span", {className: "box-info", id: "box-info-" + u});
    input.spellcheck = false;
    input.setAttribute("list", "concept-options");
    input.setAttribute("aria-describedby", info.id);
    li.append(num, input, del, info);
    var before = null;
    function index() { return boxes.findIndex(function (b) { return b.u === u; }); }
    num.addEventListener("click", function () { select(index()); });
    del.addEventListener("click", function () { remove(index()); svg.focus(); });
    input.addEventListener("focus", function () { before = snapshot(); if (sel !== index()) { select(index(), true); } });
    input.addEventListener("input", function () {
      var b = boxes[index()];
      b.text = input.value;
      b.concept = resolve(b.text);
      updateRow(b, index());
      renderSvg();
      save();
    });
    input.addEventListener("blur", function () { var i = index(); if (i >= 0) { updateRow(boxes[i], i); } });
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
    r.li.className = "box-row" + colour(b) + (i === sel ? " is-selected" : "");
    r.num.textContent = i + 1;  // boxes are numbered from 1 wherever a person reads them
    [[r.num, "Select"], [r.input, "Label of"], [r.del, "Delete"]].forEach(function (x) { x[0].setAttribute("aria-label", x[1] + " box " + (i + 1)); });
    r.num.setAttribute("aria-pressed", i === sel);
    if (document.activeElement !== r.input && r.input.value !== b.text) { r.input.value = b.text; }
    var typing = document.activeElement === r.input || editing === b.u;
    var bad = !concept && (checked || typed !== "" && !typing);  // not while typing
    r.input.setAttribute("aria-invalid", bad);
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
    Object.keys(rows).forEach(function (u) { if (!seen[u]) { rows[u].li.remove(); delete rows[u]; } });
    $("boxes-count").textContent = "(" + boxes.length + " / " + MAX_N + ")";
    $("boxes-empty").hidden = boxes.length > 0;
  }

  function select(i, keepFocus) {
    sel = i >= 0 && i < boxes.length ? i : -1;
    syncList();
    renderSvg();
    if (sel >= 0 && !keepFocus) { rows[boxes[sel].u].li.scrollIntoView({block: "nearest"}); }
  }

  function remove(i) {
    if (i < 0 || i >= boxes.length) { return; }
    pushUndo();
    boxes.splice(i, 1);
    sel = -1;
    changed();
    say("Box " + (i + 1) + " deleted (Ctrl+Z to undo).");
  }

  function undo() {
    if (!history.length) { say("Nothing to undo."); return; }
    boxes = JSON.parse(history.pop());
    lastOp = "";
    sel = sel < boxes.length ? sel : -1;
    changed();
    say("Undone.");
  }

  function addBox(x, y, w, h) {
    if (boxes.length >= MAX_N) { say("At most " + MAX_N + " boxes."); return; }
    pushUndo();
    boxes.push({u: uid, x: x, y: y, w: w, h: h, concept: null, text: "", c: uid++});  // colour: creation order
    sel = boxes.length - 1;
    changed();
    openEditor(sel);
  }

  /* The new box's label field, at the box, with the list of labels (the datalist): focus goes there. */
  function openEditor(i) {
    var b = boxes[i], r = svg.getBoundingClientRect(), k = r.width / W;
    editing = b.u;
    editorBefore = snapshot();
    $("box-editor-label").textContent = "Label of new box " + (i + 1);
    editorInput.value = b.text;
    editor.hidden = false;
    var ew = editor.offsetWidth, eh = editor.offsetHeight, top = (b.y + b.h) * k + 4;
    if (top + eh > r.height) { top = Math.max(0, b.y * k - eh - 4); }  // above the box when it ends low
    editor.style.left = clamp(b.x * k, 0, Math.max(0, r.width - ew)) + "px";
    editor.style.top = top + "px";
    editorInput.focus();
  }

  function closeEditor(backToImage) {
    if (editing === null) { return; }
    editing = null;
    editor.hidden = true;
    if (editorBefore !== snapshot()) { pushUndo(editorBefore); }
    if (backToImage) { svg.focus({preventScroll: true}); }
  }

  editorInput.addEventListener("input", function () {
    var i = boxes.findIndex(function (b) { return b.u === editing; });
    if (i < 0) { return; }
    boxes[i].text = editorInput.value;
    boxes[i].concept = resolve(editorInput.value);
    updateRow(boxes[i], i);
    renderSvg();
    save();
  });
  editorInput.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter" || ev.key === "Escape") { ev.preventDefault(); closeEditor(true); }  // no implicit submit
  });
  editorInput.addEventListener("blur", function () { closeEditor(false); });

  function nudge(dx, dy, resize) {
    var b = boxes[sel], before = snapshot(), op = (resize ? "size" : "move") + b.u;
    if (resize) { b.w = clamp(b.w + dx, MIN, W - b.x); b.h = clamp(b.h + dy, MIN, H - b.y); }
    else { b.x = clamp(b.x + dx, 0, W - b.w); b.y = clamp(b.y + dy, 0, H - b.h); }
    if (before === snapshot()) { return; }
    if (lastOp !== op) { pushUndo(before); }  // a run of key presses is one undo step
    lastOp = op;
    changed();
  }

  function toImage(ev) {
    var r = svg.getBoundingClientRect();
    return {x: int((ev.clientX - r.left) * W / r.width, 0, W), y: int((ev.clientY - r.top) * H / r.height, 0, H)};
  }

  svg.addEventListener("pointerdown", function (ev) {
    if (ev.button !== 0) { return; }
    var p = toImage(ev), t = ev.target;
    svg.focus({preventScroll: true});
    // The selected box moves and resizes; a drag anywhere else draws (inside boxes too), a click selects.
    var handle = t.getAttribute("data-h"), g = t.closest("[data-i]"), hit = g ? +g.getAttribute("data-i") : -1;
    var mode = handle ? "resize" : hit >= 0 && hit === sel ? "move" : "draw";
    drag = {mode: mode, h: handle, hit: hit, start: p, i: sel, before: snapshot(), orig: Object.assign({}, boxes[sel])};
    svg.setPointerCapture(ev.pointerId);
    ev.preventDefault();
  });

  svg.addEventListener("pointermove", function (ev) {
    if (!drag) { return; }
    var p = toImage(ev), o = drag.orig;
    if (drag.mode === "draw") {
      var q = drag.start, x = Math.min(p.x, q.x), y = Math.min(p.y, q.y);
      drag.box = {x: x, y: y, w: Math.max(p.x, q.x) - x, h: Math.max(p.y, q.y) - y};
      renderSvg();
      return;
    }
    var b = boxes[drag.i], dx = p.x - drag.start.x, dy = p.y - drag.start.y;
    if (drag.mode === "move") {
      b.x = clamp(o.x + dx, 0, W - o.w);
      b.y = clamp(o.y + dy, 0, H - o.h);
    } else {
      var l = o.x, r = o.x + o.w, t = o.y, bo = o.y + o.h, k = drag.h;  // the dragged corner's edges follow
      if (k[1] === "w") { l = clamp(p.x, 0, r - MIN); } else { r = clamp(p.x, l + MIN, W); }
      if (k[0] === "n") { t = clamp(p.y, 0, bo - MIN); } else { bo = clamp(p.y, t + MIN, H); }
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
      var b = d.box, s = W / svg.getBoundingClientRect().width, big = b && Math.min(b.w, b.h) >= Math.max(MIN, 4 * s);
      if (big) { addBox(b.x, b.y, b.w, b.h); } else { select(d.hit); }  // a click, not a drag
      return;
    }
    if (d.before !== snapshot()) { pushUndo(d.before); changed(); }
  }
  svg.addEventListener("pointerup", endDrag);
  svg.addEventListener("pointercancel", endDrag);
  svg.addEventListener("lostpointercapture", endDrag);
  window.addEventListener("resize", renderSvg);

  var ARROWS = {ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1]};
  document.addEventListener("keydown", function (ev) {
    var t = ev.target, tag = t && t.tagName;
    var typing = tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || t.isContentEditable;
    if (typing || drag || !(t === document.body || t.closest(".boxes-task"))) { return; }
    var arrow = ARROWS[ev.key], n = boxes.length;
    if (ev.ctrlKey || ev.metaKey) {
      if (ev.key.toLowerCase() === "z" && !ev.altKey && !ev.shiftKey) { ev.preventDefault(); undo(); }
    } else if (arrow && sel >= 0) {
      ev.preventDefault();
      nudge(arrow[0] * (ev.shiftKey ? 10 : 1), arrow[1] * (ev.shiftKey ? 10 : 1), ev.altKey);
    } else if ((ev.key === "Delete" || ev.key === "Backspace") && sel >= 0) {
      ev.preventDefault();
      remove(sel);
      svg.focus();
    } else if (ev.key === "Escape" && sel >= 0) {
      ev.preventDefault();
      select(-1);
    } else if ((ev.key === "n" || ev.key === "p") && n && !ev.altKey) {
      ev.preventDefault();
      select(sel < 0 ? (ev.key === "n" ? 0 : n - 1) : (sel + (ev.key === "n" ? 1 : n - 1)) % n);
    } else if (ev.key === "Tab" && t === svg && n) {
      var next = sel < 0 ? (ev.shiftKey ? -1 : 0) : sel + (ev.shiftKey ? -1 : 1);
      if (next >= 0 && next < n) { ev.preventDefault(); select(next); }  // else leave the image
    } else if ((ev.key === "+" || ev.key === "Enter") && t === svg) {
      ev.preventDefault();
      var w = clamp(Math.round(W / 4), MIN, W), h = clamp(Math.round(H / 4), MIN, H);
      addBox(Math.round((W - w) / 2), Math.round((H - h) / 2), w, h);
    }
  });

  window.TaskKinds = window.TaskKinds || {};
  window.TaskKinds.draw_boxes = {
    collect: function () {
      return {boxes: boxes.map(function (b) { return {concept: b.concept, x: b.x, y: b.y, width: b.w, height: b.h}; })};
    },
    validate: function () {
      var errors = boxes.length < MIN_N ? ["Draw at least " + MIN_N + (MIN_N > 1 ? " boxes." : " box.")] : [];
      boxes.forEach(function (b, i) {
        var typed = b.text.trim();
        if (b.concept === null) {
          errors.push("Box " + (i + 1) + (typed ? ": “" + typed + "” is not in the list of labels." : " has no label: choose one from the list."));
        }
        if (b.w < MIN || b.h < MIN) { errors.push("Box " + (i + 1) + " is smaller than " + MIN + " px."); }
      });
      checked = true;
      syncList();
      var first = boxes.filter(function (b) { return b.concept === null; })[0];
      if (first) { rows[first.u].input.focus(); }
      return errors.length ? {boxes: errors.join(" ")} : {};
    },
    draft: function () { return {v: 1, boxes: boxes}; },
    restore: function (saved) {
      if (!saved || saved.v !== 1 || !Array.isArray(saved.boxes)) { return; }
      boxes = [];
      saved.boxes.slice(0, MAX_N).forEach(function (b) {
        var x = int(b.x, 0, W - 1), y = int(b.y, 0, H - 1), text = String(b.text || "").slice(0, 100);
        boxes.push({u: uid++, x: x, y: y, w: int(b.w, 1, W - x), h: int(b.h, 1, H - y), concept: resolve(text), text: text, c: int(b.c, 0, 1e6)});
      });
      sel = -1;
      changed();
    }
  };
  syncList();
  renderSvg();
})();
