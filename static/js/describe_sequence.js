/* describe_sequence (DIS): one description per photo of a fixed sequence. Answer: {"texts": [str, ...]}.
   task.js counts the words of each field (data-min-words); this adds the server's other rules. */
(function () {
  "use strict";
  var S = window.Storyboard, form = document.getElementById("task-form");
  if (!S || !form || form.dataset.preview || !S.$("ds-texts")) { return; }
  var options = S.data("task-options"), MIN = options.min_words || 0, checked = false;
  var areas = Array.prototype.slice.call(document.querySelectorAll("#ds-texts textarea"));

  function texts() { return areas.map(function (ta) { return ta.value; }); }

  function problems() {  // per field: empty, too short (task.js's wording), the same as another one
    var result = S.check(texts(), {noun: "description"}), items = result.items.slice();
    areas.forEach(function (ta, i) {
      var n = S.countWords(ta.value);
      if (MIN && n < MIN && S.clean(ta.value)) {
        items[i] = "Please describe the image in at least " + MIN + " words (you wrote " + n + ").";
      }
    });
    return items;
  }

  form.addEventListener("input", function () {
    if (checked) { S.markItems(areas, problems()); S.showError("ds-texts", ""); }
  });

  S.register("describe_sequence", {
    collect: function () { return {texts: texts().map(function (t) { return t.trim(); })}; },
    validate: function () {
      checked = true;
      S.showError("ds-texts", "");
      var errors = {};
      problems().forEach(function (message, i) { if (message) { errors[areas[i].name] = message; } });
      return errors;
    },
    restore: function (saved) {
      if (!Array.isArray(saved.texts)) { return; }
      areas.forEach(function (ta, i) { if (typeof saved.texts[i] === "string" && !ta.value) { ta.value = saved.texts[i]; } });
    }
  });
})();
