/* Human evaluation's pages (rate_output, compare_outputs): the radio groups are plain HTML (Tab between questions,
   the arrow keys within one); this collects, checks and restores the answer, and Enter on a choice submits.
   rate_output answer: {"ratings": [{"<aspect>": n, ...}, ...]} one per output in the page's order;
   compare_outputs answer: {"preferences": {"<aspect>": 0 | 1 | "tie"}}. The page knows the outputs' texts and
   places only. */
(function () {
  "use strict";
  var form = document.getElementById("task-form");
  if (!form || form.dataset.preview) { return; }
  var kind = form.dataset.kind;
  var groups = Array.prototype.slice.call(form.querySelectorAll("fieldset.he-question"));

  function choice(group) {
    var input = group.querySelector("input:checked");
    return input ? input.value : null;
  }

  function collect() {
    if (kind === "compare_outputs") {
      var preferences = {};
      groups.forEach(function (group) {
        var value = choice(group);
        preferences[group.dataset.aspect] = value === null || value === "tie" ? value : parseInt(value, 10);
      });
      return {preferences: preferences};
    }
    var ratings = [];
    groups.forEach(function (group) {
      var index = parseInt(group.dataset.output, 10), value = choice(group);
      ratings[index] = ratings[index] || {};
      ratings[index][group.dataset.aspect] = value === null ? null : parseInt(value, 10);
    });
    return {ratings: ratings};
  }

  function validate() {
    var errors = {};
    groups.forEach(function (group) {
      if (choice(group) === null) {
        errors[group.name] = kind === "compare_outputs" ? "Please choose one, or “About the same”."
          : "Please choose an answer from 1 to " + group.querySelectorAll("input").length + ".";
      }
    });
    return errors;
  }

  function restore(saved) {
    groups.forEach(function (group) {
      var value = kind === "compare_outputs" ? (saved.preferences || {})[group.dataset.aspect]
        : ((saved.ratings || [])[parseInt(group.dataset.output, 10)] || {})[group.dataset.aspect];
      if (value === null || value === undefined) { return; }
      var input = document.getElementById(group.id + "-" + value);
      if (input) { input.checked = true; }
    });
  }

  form.addEventListener("change", function (event) {  // an answered question loses its error
    var group = event.target.closest("fieldset.he-question");
    if (!group) { return; }
    var box = document.getElementById(group.id + "-error");
    if (box) { box.textContent = ""; }
    group.setAttribute("aria-invalid", "false");
  });
  form.addEventListener("keydown", function (event) {  // Enter on a choice submits, as in a text field
    if (event.key !== "Enter" || event.target.type !== "radio" || event.isComposing) { return; }
    event.preventDefault();
    form.requestSubmit(document.getElementById("submit-button"));
  });

  window.TaskKinds = window.TaskKinds || {};
  window.TaskKinds[kind] = {collect: collect, validate: validate, restore: restore};
})();
