/* retell_story: choose one of the album's photo sequences and write a sentence on each of its cards.
   Answer: {"sequence": <story id>, "texts": [str, ...]}. Each sequence keeps its own texts. */
(function () {
  "use strict";
  var S = window.Storyboard, form = document.getElementById("task-form");
  if (!S || !form || form.dataset.preview || !S.$("rt-texts")) { return; }
  var options = S.data("task-options"), MIN_WORDS = options.min_words || 0;
  var boards = {}, radios = {}, names = {}, chosen = null, checked = false;
  document.querySelectorAll("#rt-texts [data-sequence]").forEach(function (ol, i) {
    var id = +ol.dataset.sequence;
    boards[id] = {el: ol, areas: Array.prototype.slice.call(ol.querySelectorAll("textarea"))};
    radios[id] = S.$("rt-seq-" + id);
    names[id] = "Sequence " + (i + 1);
  });

  function areas() { return chosen === null ? [] : boards[chosen].areas; }
  function texts() { return areas().map(function (ta) { return ta.value; }); }

  function problems() { return S.check(texts(), {noun: "card", minTotal: MIN_WORDS}); }

  function update() {
    S.showStory(texts(), MIN_WORDS);
    if (checked && chosen !== null) {
      var result = problems();
      S.markItems(areas(), result.items);
      S.showError("rt-texts", S.summary(result));
    }
  }

  function show() {
    Object.keys(boards).forEach(function (id) { boards[id].el.hidden = +id !== chosen; });
    S.$("rt-pick-first").hidden = chosen !== null;
    if (chosen !== null) { radios[chosen].checked = true; S.showError("rt-sequence", ""); }
    S.showError("rt-texts", "");
    update();
  }

  Object.keys(radios).forEach(function (id) {
    radios[id].addEventListener("change", function () {
      chosen = +id;
      show();
      S.save();
      S.say(names[id] + " chosen: write one sentence on each of its " + boards[id].areas.length + " cards.");
    });
  });
  form.addEventListener("input", function (ev) { if (ev.target.tagName === "TEXTAREA") { update(); } });

  S.register("retell_story", {
    collect: function () {
      return {sequence: chosen, texts: texts().map(function (t) { return t.trim(); })};
    },
    validate: function (answer) {
      S.showError("rt-texts", "");
      if (answer.sequence === null) { return {sequence: "Choose one of the photo sequences shown."}; }
      checked = true;
      var result = problems();
      S.markItems(areas(), result.items);
      var message = S.summary(result);
      return message ? {texts: message} : {};
    },
    draft: function () {
      var all = {};
      Object.keys(boards).forEach(function (id) { all[id] = boards[id].areas.map(function (ta) { return ta.value; }); });
      return {sequence: chosen, texts: all};
    },
    restore: function (saved) {
      Object.keys(saved.texts || {}).forEach(function (id) {
        if (!boards[id] || !Array.isArray(saved.texts[id])) { return; }
        boards[id].areas.forEach(function (ta, i) {
          if (typeof saved.texts[id][i] === "string") { ta.value = saved.texts[id][i]; }
        });
      });
      if (boards[saved.sequence]) { chosen = saved.sequence; }
      show();
    }
  });
  if (Object.keys(boards).length === 1) { chosen = +Object.keys(boards)[0]; }
  Object.keys(radios).forEach(function (id) { if (radios[id].checked) { chosen = +id; } });  // kept by the browser
  show();
})();
