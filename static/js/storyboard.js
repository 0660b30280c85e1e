/* Shared storyboard behaviour (tell_story, retell_story, describe_sequence, rate_story): page data,
   the text rules the server applies (storyboard/task_kinds/common.py, same messages), the full story,
   announcements and the "enlarge photo" dialog. Text typed by workers is only ever set with textContent. */
(function () {
  "use strict";
  var WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;
  var PUNCT = /[^\p{L}\p{N}\p{M}_\s]/gu;

  function $(id) { return document.getElementById(id); }

  function h(tag, props, text) {
    var node = document.createElement(tag);
    Object.keys(props || {}).forEach(function (k) {
      if (props[k] !== undefined && props[k] !== null && props[k] !== false) { node[k] = props[k]; }
    });
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function data(id) { var el = $(id); return el ? JSON.parse(el.textContent) : {}; }
  function countWords(text) { return (String(text || "").match(WORD) || []).length; }
  function clean(text) { return String(text || "").split(/\s+/).filter(Boolean).join(" "); }
  function sameKey(text) { return clean(String(text || "").toLowerCase().replace(PUNCT, " ")); }
  function cap(word) { return word.charAt(0).toUpperCase() + word.slice(1); }

  /* The server's checks on a list of texts. Returns {messages: [...] (as the server lists them),
     items: [first problem of each text or ""], total: the too-short message or "", words: total}. */
  function check(texts, rules) {
    var noun = rules.noun || "card", Noun = cap(noun), messages = [], items = texts.map(function () { return ""; });
    var total = 0, seen = {};
    function note(i, message) { messages.push(message); items[i] = items[i] || message; }
    texts.forEach(function (text, i) {
      var n = countWords(text);
      total += n;
      if (!clean(text)) {
        note(i, Noun + " " + (i + 1) + " is empty: write a sentence or phrase on it.");
      } else if (rules.minEach && n < rules.minEach) {
        note(i, Noun + " " + (i + 1) + ": write at least " + rules.minEach + " words (you wrote " + n + ").");
      }
    });
    texts.forEach(function (text, i) {
      var key = sameKey(text);
      if (key && seen[key] !== undefined) {
        note(i, Noun + "s " + (seen[key] + 1) + " and " + (i + 1) +
          " have the same text: write a different sentence on each.");
      } else if (key) {
        seen[key] = i;
      }
    });
    var short = rules.minTotal && total < rules.minTotal ?
      "Your story is too short: write at least " + rules.minTotal + " words in total (you wrote " + total + ")." : "";
    if (short) { messages.push(short); }
    return {messages: messages, items: items, total: short, words: total};
  }

  /* One message for a group of cards: `first` (if any), which cards to fix, the story's length. */
  function summary(result, first) {
    var bad = [], out = first ? [first] : [];
    result.items.forEach(function (message, i) { if (message) { bad.push(i + 1); } });
    if (bad.length === 1) { out.push("Card " + bad[0] + " needs a change: see the message under it."); }
    if (bad.length > 1) {
      out.push("Cards " + bad.slice(0, -1).join(", ") + " and " + bad[bad.length - 1] + " need a change: see the message under each.");
    }
    if (result.total) { out.push(result.total); }
    return out.join(" ");
  }

  /* Show (or clear) the message of the element `id` in "<id>-error" and mark it invalid. */
  function showError(id, message) {
    var box = $(id + "-error"), el = $(id);
    if (box) { box.textContent = message || ""; }
    if (el) { el.setAttribute("aria-invalid", message ? "true" : "false"); }
  }

  /* Per-text marks: each textarea's own "<id>-error" box. */
  function markItems(areas, items) {
    areas.forEach(function (area, i) { showError(area.id, items[i] || ""); });
  }

  /* The full story under the cards, and its word counter ("12 / 15 words"). */
  function showStory(texts, minWords) {
    var story = $("sb-story"), words = $("sb-words"), text = texts.map(clean).filter(Boolean).join(" ");
    if (story) { story.textContent = text; story.classList.toggle("is-empty", !text); }
    if (words) {
      var n = countWords(text);
      words.textContent = minWords ? n + " / " + minWords + " words" : n + " words";
      words.classList.toggle("is-short", !!minWords && n < minWords);
    }
  }

  function say(message) { var live = $("sb-live"); if (live) { live.textContent = message; } }
  function save() { if (window.TaskKinds && window.TaskKinds.saveDraft) { window.TaskKinds.saveDraft(); } }
  function register(kind, hooks) { window.TaskKinds = window.TaskKinds || {}; window.TaskKinds[kind] = hooks; }

  function zoom(src, alt) {
    var dialog = $("sb-zoom");
    if (!dialog) {
      dialog = h("dialog", {id: "sb-zoom", className: "sb-zoom"});
      var close = h("button", {type: "button", className: "button"}, "Close");
      dialog.append(h("img", {alt: ""}), close);
      close.addEventListener("click", function () { dialog.close(); });
      dialog.addEventListener("click", function (ev) { if (ev.target === dialog) { dialog.close(); } });
      document.body.appendChild(dialog);
    }
    var img = dialog.querySelector("img");
    img.src = src;
    img.alt = alt;
    dialog.showModal();
    dialog.querySelector("button").focus();
  }

  document.addEventListener("click", function (ev) {
    var button = ev.target.closest ? ev.target.closest("button[data-large]") : null;
    if (button) { ev.preventDefault(); zoom(button.dataset.large, button.getAttribute("aria-label") || ""); }
  });

  window.Storyboard = {
    $: $, h: h, data: data, countWords: countWords, clean: clean, check: check, summary: summary, showError: showError,
    markItems: markItems, showStory: showStory, say: say, save: save, register: register
  };
})();
