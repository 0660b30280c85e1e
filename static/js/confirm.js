// The one confirmation style of the console: an in-page <dialog>, never the browser's confirm().
// - form[data-confirm]: actions that spend money or cannot be undone fetch their confirmation step (the page the
//   form's GET, or POST without `confirmed`, shows without JavaScript: what will happen, the cost, what the checks
//   flagged) and show it in the dialog, with a labelled confirm button that POSTs.
// - [data-ask] on a form or on its submit button: a plain question asked in the same dialog ("{amount}" is
//   replaced by the form's amount field); confirming submits the form as it was.
// Cancel or Escape closes the dialog and gives the focus back. If the step cannot be fetched, the browser simply
// goes to the confirmation page. A form's own checks (a listener that prevents the submit) run first.
(function () {
  "use strict";
  if (typeof HTMLDialogElement !== "function") return;
  var dialog = document.createElement("dialog");
  dialog.className = "confirm-dialog";
  dialog.setAttribute("aria-labelledby", "confirm-title");
  document.body.appendChild(dialog);
  var opener = null;

  function dataOf(form, submitter) {
    var data = new FormData(form);
    if (submitter && submitter.name) data.set(submitter.name, submitter.value);
    return data;
  }

  function target(form) {  // not form.action: a field named "action" hides it
    return new URL(form.getAttribute("action") || window.location.href, window.location.href);
  }

  function urlOf(form, submitter) {
    var url = target(form);
    dataOf(form, submitter).forEach(function (value, name) { url.searchParams.set(name, value); });
    return url.toString();
  }

  function open(step) {
    dialog.replaceChildren(step);
    wire();
    if (!dialog.open) dialog.showModal();
    var first = dialog.querySelector("[data-confirm-submit], [data-confirm-reload], [data-confirm-cancel]");
    if (first) first.focus();
  }

  function fetchStep(url, init) {
    return fetch(url, Object.assign({ credentials: "same-origin", headers: { "X-Requested-With": "fetch" } }, init))
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.text();
      })
      .then(function (html) {
        var step = new DOMParser().parseFromString(html, "text/html").getElementById("confirm-action");
        if (!step) throw new Error("no confirmation step");
        open(document.importNode(step, true));
      });
  }

  function wire() {
    var cancel = dialog.querySelector("[data-confirm-cancel]");
    if (cancel) cancel.addEventListener("click", function (event) { event.preventDefault(); dialog.close(); });
    var ask = dialog.querySelector("[data-confirm-reload]");
    if (ask) ask.form.addEventListener("submit", function (event) {
      event.preventDefault();
      ask.disabled = true;
      ask.textContent = "Asking…";
      fetchStep(urlOf(ask.form)).catch(function () { window.location.href = urlOf(ask.form); });
    });
    var submit = dialog.querySelector("[data-confirm-submit]");
    if (submit && submit.form) submit.form.addEventListener("submit", function () {
      submit.disabled = true;  // one click, one action
      submit.textContent = "Working…";
    });
  }

  function element(tag, className, text) {
    var node = document.createElement(tag);
    if (className) node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  // A question built in the page, in the confirmation step's own markup (mturk/confirm_action.html).
  function question(form, submitter, text) {
    var amount = form.querySelector("[name=amount]");
    var step = element("section", "card confirm-action");
    step.id = "confirm-action";
    step.setAttribute("aria-labelledby", "confirm-title");
    var title = element("h1", "", text.replace("{amount}", amount ? amount.value : ""));
    title.id = "confirm-title";
    var buttons = element("div", "confirm-buttons");
    var yes = element("button", "button" + (form.hasAttribute("data-danger") ? " reject" : ""),
                      (submitter && submitter.textContent.trim()) || "Confirm");
    yes.type = "button";
    yes.setAttribute("data-confirm-submit", "");
    var no = element("button", "button secondary", "Cancel");
    no.type = "button";
    no.setAttribute("data-confirm-cancel", "");
    yes.addEventListener("click", function () {
      yes.disabled = true;
      form.dataset.asked = "1";
      dialog.close();
      if (submitter) form.requestSubmit(submitter); else form.requestSubmit();
    });
    buttons.append(yes, no);
    step.append(title, buttons);
    open(step);
  }

  document.addEventListener("submit", function (event) {
    var form = event.target;
    if (event.defaultPrevented || !(form instanceof HTMLFormElement) || dialog.contains(form)) return;
    var submitter = event.submitter || null;
    if (form.dataset.asked === "1") { delete form.dataset.asked; return; }  // answered in the dialog
    var text = (submitter && submitter.getAttribute("data-ask")) || form.getAttribute("data-ask");
    if (text) {
      event.preventDefault();
      opener = submitter || form.querySelector("button[type=submit], button:not([type])");
      question(form, submitter, text);
      return;
    }
    if (!form.hasAttribute("data-confirm")) return;
    event.preventDefault();
    opener = submitter || form.querySelector("button[type=submit], button:not([type])");
    if ((form.getAttribute("method") || "get").toLowerCase() === "post") {
      var data = dataOf(form, submitter);
      fetchStep(target(form).toString(), { method: "POST", body: data }).catch(function () {
        if (submitter && submitter.name) {  // the step as a page: the form sent without this script
          var field = element("input");
          field.type = "hidden";
          field.name = submitter.name;
          field.value = submitter.value;
          form.appendChild(field);
        }
        form.submit();
      });
    } else {
      var url = urlOf(form, submitter);
      fetchStep(url).catch(function () { window.location.href = url; });
    }
  });

  dialog.addEventListener("close", function () { if (opener && document.contains(opener)) opener.focus(); });
})();
