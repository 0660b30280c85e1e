/* MTurk hand-off: once our server has stored the answer (task.js fires "task:stored"), show the
   completion code and post MTurk's externalSubmit form (assignmentId, completion_code, answer) in this
   frame. The "Submit to MTurk" button posts it again if the hand-off failed; reloading the task shows
   the same button. The form is built with DOM APIs only (values are never parsed as HTML). */
(function () {
  "use strict";
  var form = document.getElementById("task-form");
  var box = document.getElementById("handoff");
  if (!form || !box || !form.dataset.handoffUrl || form.dataset.preview) { return; }

  function hidden(name, value) {
    var input = document.createElement("input");
    input.type = "hidden";
    input.name = name;
    input.value = value;
    return input;
  }

  function build(code, answer) {
    var handoff = document.createElement("form");
    handoff.id = "handoff-form";
    handoff.method = "post";
    handoff.action = form.dataset.handoffUrl;
    handoff.target = "_self";
    handoff.appendChild(hidden("assignmentId", form.dataset.assignmentId));
    handoff.appendChild(hidden("completion_code", code));
    handoff.appendChild(hidden("answer", JSON.stringify(answer)));
    var button = document.createElement("button");
    button.type = "submit";
    button.id = "handoff-button";
    button.className = "button";
    button.textContent = "Submit to MTurk";
    handoff.appendChild(button);
    return handoff;
  }

  form.addEventListener("task:stored", function (event) {
    var body = event.detail.response;
    var code = body.completion_code || "";
    var previous = document.getElementById("handoff-form");
    if (previous) { previous.remove(); }
    var handoff = build(code, body.answer !== undefined ? body.answer : event.detail.answer);
    document.getElementById("completion-code").textContent = code;
    box.appendChild(handoff);
    box.hidden = false;
    handoff.submit();
  });
})();
