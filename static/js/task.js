/* Generic task page behaviour: collect the answer, check it, store it once, show the result.
   Task kinds may add window.TaskKinds[kind] = {collect(form), validate(answer, form),
   draft(form) (what to keep as the draft; default: collect), restore(saved, form) (reload a draft)}.
   Kind scripts call window.TaskKinds.saveDraft() (or dispatch an "input" event on the form) after a change.
   No cookies: the signed token in the page identifies the assignment.
   Once the server has stored the answer, the form gets a "task:stored" event (detail: {response, answer})
   for marketplace hand-offs (see mturk_handoff.js). A response with follow_next (Prolific) sends the browser
   to next_url (a GET) right away. */
(function () {
  "use strict";
  var form = document.getElementById("task-form");
  if (!form) { return; }
  var kinds = window.TaskKinds = window.TaskKinds || {};
  var hooks = kinds[form.dataset.kind] || {};
  var status = document.getElementById("task-status");
  var button = document.getElementById("submit-button");
  var draftKey = form.dataset.draftKey;
  var WORD = /[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu;

  function countWords(text) { return (text.match(WORD) || []).length; }

  function fields() { return form.querySelectorAll("textarea[name], input[name], select[name]"); }

  function collect() {
    if (hooks.collect) { return hooks.collect(form); }
    var answer = {};
    fields().forEach(function (el) { answer[el.name] = el.value; });
    return answer;
  }

  function fieldError(name, message) {
    var el = form.querySelector("[name='" + name + "']");
    var box = el && document.getElementById(el.id + "-error");
    if (box) { box.textContent = message || ""; }
    if (el) { el.setAttribute("aria-invalid", message ? "true" : "false"); }
    return el;
  }

  function clearErrors() {
    fields().forEach(function (el) { fieldError(el.name, ""); });
    status.textContent = "";
    status.className = "status";
  }

  function validate(answer) {
    var errors = {};
    fields().forEach(function (el) {
      var min = parseInt(el.dataset.minWords || "0", 10);
      var n = countWords(el.value);
      if (min && n < min) {
        errors[el.name] = "Please describe the image in at least " + min + " words (you wrote " + n + ").";
      }
    });
    if (hooks.validate) { Object.assign(errors, hooks.validate(answer, form)); }
    return errors;
  }

  function flatten(value) {  // server messages may be nested (lists of per-item errors)
    if (Array.isArray(value)) { return value.map(flatten).filter(Boolean).join(" "); }
    if (value && typeof value === "object") {
      return Object.keys(value).map(function (k) { return flatten(value[k]); }).filter(Boolean).join(" ");
    }
    return value == null ? "" : String(value);
  }

  function showErrors(errors, message) {
    var first = null;
    Object.keys(errors).forEach(function (name) {
      var msg = flatten(errors[name]);
      var el = fieldError(name, msg);
      if (!el) { message = (message ? message + " " : "") + msg; }
      first = first || el;
    });
    status.textContent = message || "Please correct the highlighted fields.";
    status.className = "status error";
    (first || status).focus();
  }

  function saveDraft() {
    try {
      localStorage.setItem(draftKey, JSON.stringify(hooks.draft ? hooks.draft(form) : collect()));
    } catch (e) { /* storage may be blocked in iframes */ }
  }

  function restoreDraft() {
    var saved = null;
    try { saved = JSON.parse(localStorage.getItem(draftKey) || "null"); } catch (e) { saved = null; }
    if (!saved) { return; }
    if (hooks.restore) {
      try { hooks.restore(saved, form); } catch (e) { /* an outdated or damaged draft is ignored */ }
      return;
    }
    fields().forEach(function (el) { if (typeof saved[el.name] === "string" && !el.value) { el.value = saved[el.name]; } });
  }

  function updateCounters() {
    fields().forEach(function (el) {
      var counter = document.getElementById(el.id + "-count");
      if (counter && el.dataset.minWords) {
        counter.textContent = countWords(el.value) + " / " + el.dataset.minWords + " words";
      }
    });
  }

  function done(body, answer) {
    try { localStorage.removeItem(draftKey); } catch (e) { /* ignore */ }
    form.hidden = true;
    var returnForm = document.getElementById("return-form");  // an answered task can no longer be returned
    if (returnForm) { returnForm.hidden = true; }
    var panel = document.getElementById("task-done");
    document.getElementById("task-done-message").textContent = body.message;
    var next = document.getElementById("next-task");
    var nextForm = document.getElementById("next-task-form");  // a POST: the worker's explicit start of the next task
    if (body.next_url) { nextForm.action = body.next_url; nextForm.hidden = false; }
    panel.hidden = false;
    (body.next_url ? next : panel).focus();
    form.dispatchEvent(new CustomEvent("task:stored", {detail: {response: body, answer: answer}}));
    // Prolific: on at once to the session's next task or its completion page (the button stays as the fallback).
    if (body.follow_next && body.next_url) { window.location.assign(body.next_url); }
  }

  if (form.dataset.preview) { return; }
  kinds.saveDraft = saveDraft;
  restoreDraft();
  updateCounters();
  form.addEventListener("input", function () { updateCounters(); saveDraft(); });

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    clearErrors();
    var answer = collect();
    var errors = validate(answer);
    if (Object.keys(errors).length) { showErrors(errors); return; }
    button.disabled = true;
    status.textContent = "Saving…";
    fetch(form.dataset.submitUrl, {
      method: "POST",
      credentials: "omit",
      headers: {"Content-Type": "application/json", "Accept": "application/json"},
      body: JSON.stringify({token: form.dataset.token, answer: answer})
    }).then(function (response) {
      return response.json().then(function (body) { return {ok: response.ok, body: body}; });
    }).then(function (result) {
      if (result.ok) { done(result.body, answer); return; }
      button.disabled = false;
      showErrors(result.body.fields || {}, result.body.error);
    }).catch(function () {
      button.disabled = false;
      status.textContent = "Could not reach the server. Your work is kept on this page; please try again.";
      status.className = "status error";
    });
  });
})();
