/* tell_story: pick photos of the album onto a storyboard, order the cards (drag or buttons), write one
   sentence per card. Answer: {"cards": [{"photo": id, "text": str}, ...]} or {"skip": true, "reason": str}. */
(function () {
  "use strict";
  var S = window.Storyboard, form = document.getElementById("task-form");
  if (!S || !form || form.dataset.preview || !S.$("sb-board")) { return; }
  var payload = S.data("task-payload"), options = S.data("task-options");
  var MIN = options.min_cards || 1, MAX = Math.max(options.max_cards || MIN, MIN), MIN_WORDS = options.min_words || 0;
  var board = S.$("sb-board"), skip = S.$("sb-skip"), reason = S.$("sb-reason");
  var number = {}, buttons = {};  // photo id -> its position in the album (1-based), its button in the strip
  payload.photos.forEach(function (p, i) { number[p.id] = i + 1; });
  document.querySelectorAll("#sb-photos [data-photo]").forEach(function (b) { buttons[b.dataset.photo] = b; });

  var order = [], texts = {}, cards = {}, checked = false, drag = null;  // texts are kept for removed cards too

  function button(className, label, text, onClick) {
    var b = S.h("button", {type: "button", className: className}, text);
    b.setAttribute("aria-label", label);
    if (onClick) { b.addEventListener("click", onClick); }
    return b;
  }

  function makeCard(id) {
    var p = payload.photos[number[id] - 1], n = number[id];
    var li = S.h("li", {className: "sb-card"});
    var grip = S.h("div", {className: "sb-card-photo", title: "Drag to move this card"});
    grip.appendChild(S.h("img", {src: p.url, alt: "Photo " + n, width: p.width, height: p.height, draggable: false}));
    var c = {li: li, label: S.h("label", {className: "sb-card-n", htmlFor: "sb-text-" + id})};
    c.left = button("sb-icon", "", "◀", function () { move(id, -1); });
    c.right = button("sb-icon", "", "▶", function () { move(id, 1); });
    c.zoom = button("sb-icon sb-zoom-button", "Enlarge photo " + n, "⤢", null);
    c.zoom.dataset.large = p.large;  // opened by storyboard.js
    c.del = button("sb-icon sb-del", "", "✕", function () { remove(id); });
    c.text = S.h("textarea", {id: "sb-text-" + id, rows: 3, maxLength: 500, className: "sb-text", value: texts[id] || ""});
    c.text.setAttribute("aria-describedby", c.text.id + "-error");
    c.text.addEventListener("input", function () { texts[id] = c.text.value; update(); });
    var head = S.h("div", {className: "sb-card-head"});
    head.append(c.label, c.left, c.right, c.del);
    grip.appendChild(c.zoom);
    li.dataset.photo = id;
    li.append(grip, head, c.text, S.h("p", {className: "field-error", id: c.text.id + "-error"}));
    return c;
  }

  function render() {
    order.forEach(function (id, i) {
      var c = cards[id] || (cards[id] = makeCard(id)), n = i + 1;
      if (board.children[i] !== c.li) { board.insertBefore(c.li, board.children[i] || null); }
      c.label.textContent = "Card " + n;
      c.label.title = "Photo " + number[id];
      c.left.setAttribute("aria-label", "Move card " + n + " left");
      c.right.setAttribute("aria-label", "Move card " + n + " right");
      c.del.setAttribute("aria-label", "Remove card " + n);
      c.left.disabled = i === 0;
      c.right.disabled = i === order.length - 1;
    });
    Object.keys(cards).forEach(function (id) {
      if (order.indexOf(+id) < 0) { cards[id].li.remove(); delete cards[id]; }
    });
    Object.keys(buttons).forEach(function (id) {
      var i = order.indexOf(+id);
      buttons[id].classList.toggle("is-on", i >= 0);
      buttons[id].querySelector(".sb-photo-on").textContent = i >= 0 ? "on card " + (i + 1) : "";
    });
    S.$("sb-empty").hidden = order.length > 0;
    S.$("sb-count").textContent = "Cards: " + order.length + (MIN === MAX ? " of " + MAX : " (" + MIN + " to " + MAX + ")");
    S.$("sb-story-area").hidden = skip.checked;
    S.$("sb-skip-panel").hidden = !skip.checked;
    update();
  }

  function storyTexts() { return order.map(function (id) { return texts[id] || ""; }); }

  function problems() {  // {items: per card, message: for the whole storyboard ("" when all is well)}
    var result = S.check(storyTexts(), {noun: "card", minTotal: MIN_WORDS}), count = "";
    if (order.length < MIN || order.length > MAX) {
      count = "Your story needs " + (MIN === MAX ? "exactly " + MIN : "between " + MIN + " and " + MAX) +
        " photos (you chose " + order.length + ").";
    }
    return {items: result.items, message: S.summary(result, count)};
  }

  function showProblems(result) {
    S.markItems(order.map(function (id) { return cards[id].text; }), result ? result.items : []);
    S.showError("sb-cards", result ? result.message : "");
    S.showError("sb-reason", "");
  }

  function update() {  // after every change: the story, the counters, and (once a submit failed) the live checks
    S.showStory(storyTexts(), MIN_WORDS);
    if (checked) { showProblems(skip.checked ? null : problems()); }
  }

  function changed(message) { render(); S.save(); if (message) { S.say(message); } }

  function add(id) {
    var i = order.indexOf(id);
    if (i >= 0) { cards[id].text.focus(); S.say("Photo " + number[id] + " is already card " + (i + 1) + "."); return; }
    if (order.length >= MAX) { S.say("The storyboard is full (" + MAX + " cards): remove a card before adding another photo."); return; }
    order.push(id);
    changed("Photo " + number[id] + " added as card " + order.length + ".");
  }

  function remove(id) {
    var i = order.indexOf(id);
    order.splice(i, 1);
    changed("Card " + (i + 1) + " removed (photo " + number[id] + "). Its text comes back if you add the photo again.");
    var next = order[Math.min(i, order.length - 1)];
    (next !== undefined ? cards[next].del : buttons[id]).focus();
  }

  function move(id, delta) {
    var i = order.indexOf(id), j = i + delta;
    if (j < 0 || j >= order.length) { return; }
    order.splice(i, 1);
    order.splice(j, 0, id);
    changed("Card moved to position " + (j + 1) + " of " + order.length + ".");
    var c = cards[id], target = delta < 0 ? c.left : c.right;
    (target.disabled ? (delta < 0 ? c.right : c.left) : target).focus();
  }

  /* Drag and drop with pointer events: the dragged card takes the place of the card under the pointer. */
  board.addEventListener("pointerdown", function (ev) {
    var li = ev.target.closest(".sb-card");
    if (ev.button !== 0 || !li || ev.target.closest("textarea, button, input, label")) { return; }
    ev.preventDefault();
    drag = {li: li, id: +li.dataset.photo, x: ev.clientX, y: ev.clientY, on: false};
  });
  document.addEventListener("pointermove", function (ev) {
    if (!drag) { return; }
    if (!drag.on) {
      if (Math.abs(ev.clientX - drag.x) + Math.abs(ev.clientY - drag.y) < 6) { return; }
      drag.on = true;
      drag.li.classList.add("is-dragging");
    }
    var hit = document.elementFromPoint(ev.clientX, ev.clientY), over = hit && hit.closest(".sb-card");
    if (!over || over === drag.li || over.parentNode !== board) { return; }
    var kids = Array.prototype.slice.call(board.children);
    board.insertBefore(drag.li, kids.indexOf(over) > kids.indexOf(drag.li) ? over.nextSibling : over);
  });
  function drop(cancel) {
    if (!drag) { return; }
    var d = drag, from = order.indexOf(d.id);
    drag = null;
    d.li.classList.remove("is-dragging");
    if (!d.on) { return; }
    if (!cancel) { order = Array.prototype.map.call(board.children, function (li) { return +li.dataset.photo; }); }
    var to = order.indexOf(d.id);
    changed(to === from ? "Card " + (to + 1) + " not moved." : "Card moved to position " + (to + 1) + " of " + order.length + ".");
  }
  document.addEventListener("pointerup", function () { drop(false); });
  document.addEventListener("pointercancel", function () { drop(true); });
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape" && drag) { drop(true); } });

  Object.keys(buttons).forEach(function (id) {
    buttons[id].addEventListener("click", function () { add(+id); });
  });
  skip.addEventListener("change", function () {
    changed(skip.checked ? "You are skipping this album: say why below." : "Back to your storyboard.");
    if (skip.checked) { reason.focus(); }
  });

  S.register("tell_story", {
    collect: function () {
      if (skip.checked) { return {skip: true, reason: reason.value.trim()}; }
      return {cards: order.map(function (id) { return {photo: id, text: (texts[id] || "").trim()}; })};
    },
    validate: function (answer) {
      checked = true;
      if (answer.skip) {
        showProblems(null);
        return answer.reason.length < 3 ? {reason: "Please say why this album is not storyable."} : {};
      }
      var result = problems();
      showProblems(result);
      return result.message ? {cards: result.message} : {};
    },
    draft: function () { return {order: order, texts: texts, skip: skip.checked, reason: reason.value}; },
    restore: function (saved) {
      var ids = (saved.order || []).filter(function (id, i, all) { return typeof id === "number" && number[id] && all.indexOf(id) === i; });
      order = ids.slice(0, MAX);
      Object.keys(saved.texts || {}).forEach(function (id) {
        if (number[id] && typeof saved.texts[id] === "string") { texts[id] = saved.texts[id]; }
      });
      Object.keys(cards).forEach(function (id) { cards[id].text.value = texts[id] || ""; });
      skip.checked = saved.skip === true;
      reason.value = typeof saved.reason === "string" ? saved.reason : "";
      render();
    }
  });
  render();
})();
