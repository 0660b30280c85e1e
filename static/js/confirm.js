// The campaign page's actions that spend money or cannot be undone open their confirmation step in a
// <dialog> (the same page the form's GET shows without JavaScript): what will happen, the cost, and a
// labelled confirm button that POSTs; Cancel or Escape closes it. If the step cannot be fetched, the
// browser simply goes to the confirmation page.
(function () {
  "use strict";
  if (typeof HTMLDialogElement !== "function") return;
  var dialog = document.createElement("dialog");
  dialog.className = "confirm-dialog";
  dialog.setAttribute("aria-labelledby", "confirm-title");
  document.body.appendChild(dialog);
  var opener = null;

  function urlOf(form) {
    var params = new URLSearchParams(new FormData(form));
    var url = new URL(form.getAttribute("action") || window.location.href, window.location.href);
    params.forEach(function (value, name) { url.searchParams.set(name, value); });
    return url.toString();
  }

  function show(url) {
    return fetch(url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.text();
      })
      .then(function (html) {
        var step = new DOMParser().parseFromString(html, "text/html").getElementById("confirm-action");
        if (!step) throw new Error("no confirmation step");
        dialog.replaceChildren(document.importNode(step, true));
        wire();
        if (!dialog.open) dialog.showModal();
        var first = dialog.querySelector("[data-confirm-submit], [data-confirm-reload], [data-confirm-cancel]");
        if (first) first.focus();
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
      show(urlOf(ask.form)).catch(function () { window.location.href = urlOf(ask.form); });
    });
    var submit = dialog.querySelector("[data-confirm-submit]");
    if (submit) submit.form.addEventListener("submit", function () {
      submit.disabled = true;  // one click, one action
      submit.textContent = "Working…";
    });
  }

  dialog.addEventListener("close", function () { if (opener) opener.focus(); });

  document.querySelectorAll("form[data-confirm]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      opener = form.querySelector("button[type=submit]");
      var url = urlOf(form);
      show(url).catch(function () { window.location.href = url; });
    });
  });
})();
