/* link_words: link the words of a description to the numbered boxes of its image.
   Answer: {"links": {"<token index>": <box number>}}; a word links to one box at most. */
(function () {
  "use strict";
  var form = document.getElementById("task-form");
  var svg = document.getElementById("boxes-svg");
  if (!form || !svg) { return; }
  var payload = JSON.parse(document.getElementById("task-payload").textContent);
  var W = payload.image.width, H = payload.image.height;
  var tokens = payload.description.tokens, boxes = payload.boxes;
  var NS = "http://www.w3.org/2000/svg";
  var PUNCT = /^[^\p{L}\p{N}]+$/u, NO_SPACE_BEFORE = /^[.,;:!?%)\]}»”’…]+$/u, NO_SPACE_AFTER = /^[([{«“‘]+$/u;
  var preview = !!form.dataset.preview;
  var byNumber = {};
  boxes.forEach(function (b) { byNumber[b.number] = b; });
  document.getElementById("boxes-stage").style.setProperty("--ratio", (W / H).toFixed(4));  // worker.css sizes the stage by it

  var links = {};            // token index -> box number
  var selWord = -1, selBox = null;
  var boxGroups = {}, boxButtons = {}, wordButtons = {};

  function colour(n) { return " c" + n % 10; }  // palette classes in worker.css
  function el(name, attrs, parent) {
    var node = document.createElementNS(NS, name);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (parent) { parent.appendChild(node); }
    return node;
  }
  function html(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function drawBoxes() {
    var s = W / (svg.getBoundingClientRect().width || W);  // original pixels per screen pixel
    svg.textContent = "";
    boxes.forEach(function (b) {
      var label = shown(b.number) + " " + b.concept;
      var g = el("g", {"class": "bx bx-link" + colour(b.number) + (selBox === b.number ? " is-selected" : ""), "data-n": b.number}, svg);
      el("rect", {"class": "bx-body", x: b.x, y: b.y, width: b.width, height: b.height}, g);
      var fs = 13 * s, th = fs * 1.4, tw = label.length * 0.68 * fs + 8 * s, ty = b.y >= th ? b.y - th : b.y;
      el("rect", {"class": "bx-tag-bg", x: b.x, y: ty, width: tw, height: th}, g);
      el("text", {"class": "bx-tag", x: b.x + 4 * s, y: ty + fs * 1.05, "font-size": fs}, g).textContent = label;
      boxGroups[b.number] = g;
    });
  }
  drawBoxes();
  window.addEventListener("resize", drawBoxes);

  var list = document.getElementById("lw-boxes");
  boxes.forEach(function (b) {
    var li = html("li");
    var node = html(preview ? "div" : "button", "lw-box" + colour(b.number));
    if (!preview) {
      node.type = "button";
      node.setAttribute("aria-pressed", "false");
      node.addEventListener("click", function () { boxChosen(b.number); });
    }
    node.append(html("strong", "", String(shown(b.number))), " " + b.concept, html("span", "hint lw-box-words"));
    li.appendChild(node);
    list.appendChild(li);
    boxButtons[b.number] = node;
  });
  var sentence = document.getElementById("lw-sentence");
  sentence.textContent = "";
  tokens.forEach(function (token, i) {
    if (i > 0 && !NO_SPACE_BEFORE.test(token) && !NO_SPACE_AFTER.test(tokens[i - 1])) { sentence.append(" "); }
    if (PUNCT.test(token) || preview) { sentence.appendChild(html("span", "lw-punct", token)); return; }
    var button = html("button", "lw-word");
    button.type = "button";
    button.dataset.index = i;
    button.addEventListener("click", function () { wordChosen(i); });
    sentence.appendChild(button);
    wordButtons[i] = button;
  });
  if (preview) { return; }

  var unlinkButton = document.getElementById("lw-unlink");
  var state = document.getElementById("lw-state");
  var linkList = document.getElementById("lw-links"), noLinks = document.getElementById("lw-links-empty");

  function shown(n) { return n + 1; }  // a box as a person reads it: numbered from 1 (stored from 0)
  function say(text) { state.textContent = text; }
  function save() { if (window.TaskKinds.saveDraft) { window.TaskKinds.saveDraft(); } }

  function link(i, n) {
    links[i] = n;
    selWord = -1;
    selBox = null;
    say("“" + tokens[i] + "” is linked to box " + shown(n) + " (" + byNumber[n].concept + ").");
    render();
    save();
  }

  function unlink() {
    if (selWord < 0 || links[selWord] === undefined) { return; }
    var i = selWord;
    delete links[i];
    selWord = -1;
    say("“" + tokens[i] + "” is no longer linked.");
    render();
    save();
    wordButtons[i].focus();  // not the Unlink button, which is now disabled
  }

  function wordChosen(i) {
    if (selBox !== null) { link(i, selBox); return; }
    selWord = selWord === i ? -1 : i;
    say(selWord < 0 ? "" : "“" + tokens[i] + "” selected: now choose its box" +
      (links[i] !== undefined ? ", or Unlink." : "."));
    render();
  }

  function boxChosen(n) {
    if (selWord >= 0) { link(selWord, n); return; }
    selBox = selBox === n ? null : n;
    say(selBox === null ? "" : "Box " + shown(n) + " (" + byNumber[n].concept + ") selected: now choose a word.");
    render();
  }

  function showLinks() {  // what the worker linked, in the sentence's order: the word, its box as a badge
    linkList.textContent = "";
    Object.keys(links).sort(function (a, b) { return a - b; }).forEach(function (i) {
      var n = links[i], li = html("li");
      li.append(html("strong", "", tokens[i]), " → ", html("span", "lw-badge" + colour(n), "box " + shown(n)), " ",
        html("span", "hint", byNumber[n].concept));
      linkList.appendChild(li);
    });
    noLinks.hidden = linkList.children.length > 0;
  }

  function render() {
    var wordsOf = {};
    Object.keys(wordButtons).forEach(function (i) {
      var button = wordButtons[i], n = links[i], linked = n !== undefined;
      button.textContent = tokens[i];
      button.className = "lw-word" + (linked ? " is-linked" + colour(n) : "");
      button.setAttribute("aria-pressed", String(+i === selWord));
      if (linked) {
        var sup = html("sup", "", String(shown(n)));
        sup.setAttribute("aria-hidden", "true");
        button.append(sup, html("span", "sr-only", " (box " + shown(n) + ")"));
        (wordsOf[n] = wordsOf[n] || []).push(tokens[i]);
      }
    });
    boxes.forEach(function (b) {
      var n = b.number;
      boxButtons[n].setAttribute("aria-pressed", String(selBox === n));
      boxButtons[n].lastChild.textContent = wordsOf[n] ? "words: " + wordsOf[n].join(", ") : "";
      boxGroups[n].classList.toggle("is-selected", selBox === n);
    });
    unlinkButton.disabled = !(selWord >= 0 && links[selWord] !== undefined);
    showLinks();
  }

  svg.addEventListener("click", function (ev) {  // boxes are clickable in the image; the list is the keyboard way
    var g = ev.target.closest ? ev.target.closest("[data-n]") : null;
    if (g) { boxChosen(parseInt(g.getAttribute("data-n"), 10)); }
  });
  unlinkButton.addEventListener("click", unlink);
  document.addEventListener("keydown", function (ev) {
    var tag = ev.target && ev.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT" || ev.ctrlKey || ev.metaKey || ev.altKey) { return; }
    if ((ev.key === "Delete" || ev.key === "Backspace") && selWord >= 0 && links[selWord] !== undefined) {
      ev.preventDefault();
      unlink();
    } else if (ev.key === "Escape" && (selWord >= 0 || selBox !== null)) {
      ev.preventDefault();
      selWord = -1;
      selBox = null;
      say("");
      render();
    }
  });

  window.TaskKinds = window.TaskKinds || {};
  window.TaskKinds.link_words = {
    collect: function () {
      var out = {};
      Object.keys(links).sort(function (a, b) { return a - b; }).forEach(function (i) { out[i] = links[i]; });
      return {links: out};
    },
    validate: function () { return {}; },
    confirm: function (answer) {  // asked in the page (task.js), before an answer with no link is sent
      if (Object.keys(answer.links).length) { return null; }
      return {text: "You have not linked any word to a box. Submit with no link? Do so only if no word of the " +
        "sentence names something in a box.", yes: "Submit with no link", no: "Keep linking"};
    },
    focusAfterCancel: function () {
      var first = wordButtons[Object.keys(wordButtons)[0]];
      if (first) { first.focus(); }
    },
    restore: function (saved) {
      if (!saved || typeof saved.links !== "object" || saved.links === null) { return; }
      links = {};
      Object.keys(saved.links).forEach(function (key) {
        var n = saved.links[key];
        if (/^\d+$/.test(key) && wordButtons[+key] && byNumber[n] !== undefined && typeof n === "number") { links[+key] = n; }
      });
      render();
    }
  };
  render();
})();
