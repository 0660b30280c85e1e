/* judge_caption: several image-caption pairs, each answered yes/no (or 1-4 on a graded scale).
   Keys: y/n (graded: 1-4) answer the highlighted pair and highlight the next one; the last one moves to Submit.
   Answer: {"judgements": [{"relevant": true|false} or {"grade": n}, ...]} in the pairs' order. */
(function () {
  "use strict";
  var form = document.getElementById("task-form"), list = document.getElementById("jc-pairs");
  if (!form || !list) { return; }
  var graded = list.dataset.graded === "1";
  var groups = Array.prototype.slice.call(list.querySelectorAll(".jc-group"));
  var progress = document.getElementById("jc-progress");
  var current = 0;

  groups.forEach(function (group) {  // the picture grows to its 1024 px rendition and back
    var button = group.querySelector(".jc-enlarge"), img = group.querySelector("img");
    if (!button || !img) { return; }
    button.addEventListener("click", function () {
      var large = button.getAttribute("aria-pressed") !== "true";
      img.src = large ? img.dataset.large : img.dataset.small;
      button.setAttribute("aria-pressed", large ? "true" : "false");
      button.textContent = large ? "Smaller" : "Enlarge";
      group.closest(".jc-pair").classList.toggle("is-large", large);
    });
  });
  if (form.dataset.preview) { return; }

  function checked(index) { return groups[index].querySelector("input:checked"); }

  function judgement(index) {
    var input = checked(index);
    if (!input) { return null; }
    return graded ? {grade: parseInt(input.value, 10)} : {relevant: input.value === "yes"};
  }

  function showProgress() {
    var done = groups.filter(function (g, i) { return checked(i); }).length;
    progress.textContent = done + " of " + groups.length + " answered.";
  }

  function clearError(index) {
    document.getElementById("pair-" + index + "-error").textContent = "";
    groups[index].setAttribute("aria-invalid", "false");
  }

  function highlight(index, focus) {
    current = Math.max(0, Math.min(index, groups.length - 1));
    groups.forEach(function (g, i) { g.closest(".jc-pair").classList.toggle("is-current", i === current); });
    if (focus) {
      groups[current].focus({preventScroll: true});
      groups[current].closest(".jc-pair").scrollIntoView({block: "nearest"});
    }
  }

  function answerKey(key) {
    var value = graded ? ({"1": "1", "2": "2", "3": "3", "4": "4"})[key] : ({y: "yes", n: "no"})[key.toLowerCase()];
    if (!value) { return false; }
    var input = document.getElementById("pair-" + current + "-" + value);
    input.checked = true;
    clearError(current);
    form.dispatchEvent(new Event("input", {bubbles: true}));  // task.js keeps the draft
    showProgress();
    if (current < groups.length - 1) { highlight(current + 1, true); } else { document.getElementById("submit-button").focus(); }
    return true;
  }

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey || form.hidden) { return; }
    var target = event.target;
    if (target && (target.tagName === "TEXTAREA" || (target.tagName === "INPUT" && target.type === "text"))) { return; }
    if (answerKey(event.key)) { event.preventDefault(); }
  });

  list.addEventListener("focusin", function (event) {  // the pair being worked on is the highlighted one
    var group = event.target.closest(".jc-group");
    if (group) { highlight(groups.indexOf(group), false); }
  });
  list.addEventListener("change", function (event) {
    var group = event.target.closest(".jc-group");
    if (group) { clearError(groups.indexOf(group)); showProgress(); }
  });

  window.TaskKinds = window.TaskKinds || {};
  window.TaskKinds.judge_caption = {
    collect: function () { return {judgements: groups.map(function (g, i) { return judgement(i); })}; },
    validate: function (answer) {
      var errors = {};
      answer.judgements.forEach(function (j, i) {
        if (!j) { errors["pair-" + i] = graded ? "Please choose a grade from 1 to 4." : "Please answer yes or no."; }
      });
      return errors;
    },
    restore: function (saved) {
      (saved.judgements || []).forEach(function (j, i) {
        if (!j || i >= groups.length) { return; }
        var value = graded ? String(j.grade) : (j.relevant ? "yes" : "no");
        var input = document.getElementById("pair-" + i + "-" + value);
        if (input) { input.checked = true; }
      });
      var first = groups.findIndex(function (g, i) { return !checked(i); });
      highlight(first < 0 ? groups.length - 1 : first, false);
      showProgress();
    }
  };
  highlight(0, false);
  showProgress();
})();
