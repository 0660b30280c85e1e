/* Generic task page behaviour: collect the answer, check it, store it once, show the result.
   Task kinds may add window.TaskKinds[kind] = {collect(form), validate(answer, form),
   draft(form) (what to keep as the draft; default: collect), restore(saved, form) (reload a draft),
   confirm(answer) (a question asked in the page before submitting: {text, yes, no}; null: none),
   focusAfterCancel(form) (where focus goes when the worker answers "no")}.
   The frame counts down the seconds the server sent (not the browser's clock): a warning is announced once,
   and when the time is up the submit button gives way to a plain message and the next task.
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

  function fixed(el) {  // a field marked invalid that now passes its own check
    var min = parseInt(el.dataset.minWords || "0", 10);
    if (min) { return countWords(el.value) >= min; }
    if (el.type === "radio" || el.type === "checkbox") { return el.checked; }
    return el.value.trim() !== "";
  }

  function clearFixed(event) {  // error messages go as soon as the field is fixed (kinds re-check their groups)
    var el = event.target;
    if (el && el.name && el.getAttribute("aria-invalid") === "true" && fixed(el)) { fieldError(el.name, ""); }
    if (status.classList.contains("error") && !form.querySelector("[aria-invalid='true']")) {
      status.textContent = "";
      status.className = "status";
    }
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
    stored = true;
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

  /* The frame's countdown, from the seconds left when the server made the page. */
  var frame = document.getElementById("task-frame"), clock = document.getElementById("time-left");
  var warning = document.getElementById("time-warning"), expired = false, stored = false;

  function clockText(seconds) {
    var h = Math.floor(seconds / 3600), m = Math.floor(seconds % 3600 / 60), s = seconds % 60;
    var mm = h ? String(m).padStart(2, "0") : String(m);
    return (h ? h + ":" : "") + mm + ":" + String(s).padStart(2, "0");
  }

  function minutesText(seconds) {
    var m = Math.ceil(seconds / 60);
    return seconds > 60 ? m + " minutes" : seconds + " seconds";
  }

  function noLonger(message) {  // the time ran out (on this page, or the server says so): no dead submit button
    expired = true;
    button.hidden = true;
    var returnForm = document.getElementById("return-form");  // nothing left to return
    if (returnForm) { returnForm.hidden = true; }
    hideConfirm();
    var panel = document.getElementById("task-expired");
    if (message) { document.getElementById("task-expired-message").textContent = message; }
    panel.hidden = false;
    var next = document.getElementById("expired-next-task");
    (next || panel).focus();
  }

  function startClock() {
    if (!frame || !clock || frame.dataset.secondsLeft === undefined) { return; }
    var end = Date.now() + 1000 * parseInt(frame.dataset.secondsLeft, 10);  // the server's count, not the clock's time
    var warnAt = parseInt(frame.dataset.warnAt || "0", 10), warned = false;
    function tick() {
      if (stored) { return; }  // the answer is in: the clock stops
      var left = Math.max(0, Math.round((end - Date.now()) / 1000));
      clock.textContent = clockText(left);
      if (!warned && left > 0 && left <= warnAt) {
        warned = true;  // announced once (the timer itself is not read out every second)
        frame.classList.add("is-warning");
        warning.textContent = "Less than " + minutesText(left) + " left: please submit soon.";
      }
      if (left === 0) {
        frame.classList.add("is-warning", "is-over");
        warning.textContent = "The time for this task ran out.";
        if (!expired) { noLonger(); }
        return;
      }
      window.setTimeout(tick, 1000 - (end - Date.now()) % 1000);
    }
    tick();
  }

  /* An in-page confirmation (task kinds' confirm hook): keyboard-first, no window.confirm. */
  var confirmBox = document.getElementById("task-confirm"), confirmed = false;

  function hideConfirm() { if (confirmBox) { confirmBox.hidden = true; } }

  function askFirst(answer) {
    var question = hooks.confirm && !confirmed ? hooks.confirm(answer, form) : null;
    if (!question || !confirmBox) { return false; }
    document.getElementById("task-confirm-text").textContent = question.text;
    document.getElementById("task-confirm-yes").textContent = question.yes || "Submit anyway";
    document.getElementById("task-confirm-no").textContent = question.no || "Go back";
    confirmBox.hidden = false;
    button.hidden = true;
    document.getElementById("task-confirm-yes").focus();
    return true;
  }

  if (form.dataset.preview) { return; }
  kinds.saveDraft = saveDraft;
  restoreDraft();
  updateCounters();
  startClock();
  form.addEventListener("input", function (event) { updateCounters(); saveDraft(); clearFixed(event); });
  form.addEventListener("change", clearFixed);
  if (confirmBox) {
    document.getElementById("task-confirm-yes").addEventListener("click", function () {
      confirmed = true;
      hideConfirm();
      button.hidden = false;
      form.requestSubmit(button);
    });
    document.getElementById("task-confirm-no").addEventListener("click", function () {
      hideConfirm();
      button.hidden = false;
      if (hooks.focusAfterCancel) { hooks.focusAfterCancel(form); } else { button.focus(); }
    });
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (expired) { return; }
    clearErrors();
    var answer = collect();
    var errors = validate(answer);
    if (Object.keys(errors).length) { showErrors(errors); return; }
    if (askFirst(answer)) { return; }
    confirmed = false;
    button.disabled = true;
    status.textContent = "Saving…";
    fetch(form.dataset.submitUrl, {
      method: "POST",
      credentials: "omit",
      headers: {"Content-Type": "application/json", "Accept": "application/json"},
      body: JSON.stringify({token: form.dataset.token, answer: answer})
    }).then(function (response) {
      return response.json().then(function (body) { return {ok: response.ok, status: response.status, body: body}; });
    }).then(function (result) {
      if (result.ok) { done(result.body, answer); return; }
      button.disabled = false;
      status.textContent = "";
      if (result.status === 409 || result.status === 410) {  // expired, returned: the work cannot be stored any more
        document.getElementById("task-expired-title").textContent = "Not submitted";
        noLonger(result.body.error + " Your text is kept on this page; copy it if you want to keep it.");
        return;
      }
      showErrors(result.body.fields || {}, result.body.error);
    }).catch(function () {
      button.disabled = false;
      status.textContent = "Could not reach the server. Your work is kept on this page; please try again.";
      status.className = "status error";
    });
  });
})();
