/* rate_story: Likert 1-5 on the question of Huang et al. (2016), and on the six VIST aspects when options.aspects is on.
   The questions are in the template; this adds the five answers to each. Answer: {"rating": n, "aspects": {...}}. */
(function () {
  "use strict";
  var S = window.Storyboard, form = document.getElementById("task-form");
  if (!S || !form || !S.$("rs-questions")) { return; }
  var SCALE = ["Strongly disagree", "Disagree", "Neither agree nor disagree", "Agree", "Strongly agree"];
  var preview = !!form.dataset.preview;
  var groups = Array.prototype.slice.call(document.querySelectorAll("#rs-questions .sb-likert"));

  groups.forEach(function (group) {
    var row = S.h("div", {className: "sb-scale"});
    SCALE.forEach(function (text, i) {
      var input = S.h("input", {type: "radio", name: group.name, value: String(i + 1), id: group.id + "-" + (i + 1), disabled: preview});
      var label = S.h("label", {htmlFor: input.id, className: "sb-scale-option"});
      label.append(input, S.h("span", {className: "sb-scale-n"}, String(i + 1)), " ", S.h("span", {}, text));
      row.appendChild(label);
    });
    group.insertBefore(row, group.querySelector(".field-error"));
    if (!S.$(group.id + "-error")) {
      group.setAttribute("aria-describedby", group.id + "-error");
      group.appendChild(S.h("p", {className: "field-error", id: group.id + "-error"}));
    }
  });
  if (preview) { return; }

  function value(name) {
    var checked = form.querySelector("input[name='" + name + "']:checked");
    return checked ? parseInt(checked.value, 10) : null;
  }

  function answer() {
    var result = {};
    groups.forEach(function (group) {
      var parts = group.name.split(".");
      if (parts.length === 1) { result[parts[0]] = value(group.name); return; }
      (result[parts[0]] = result[parts[0]] || {})[parts[1]] = value(group.name);
    });
    return result;
  }

  form.addEventListener("change", function (ev) {  // an answered question loses its error
    var group = ev.target.closest(".sb-likert");
    if (group) { S.showError(group.id, ""); S.showError("rs-aspects", ""); }
  });

  S.register("rate_story", {
    collect: answer,
    validate: function () {
      var errors = {};
      S.showError("rs-aspects", "");
      groups.forEach(function (group) {
        if (value(group.name) === null) { errors[group.name] = "Please choose an answer from 1 (strongly disagree) to 5 (strongly agree)."; }
      });
      return errors;
    },
    restore: function (saved) {
      groups.forEach(function (group) {
        var parts = group.name.split("."), v = parts.length === 1 ? saved[parts[0]] : (saved[parts[0]] || {})[parts[1]];
        var input = S.$(group.id + "-" + v);
        if (typeof v === "number" && input) { input.checked = true; }
      });
    }
  });
})();
