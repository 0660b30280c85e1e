// The quality page: a computation runs in the background; while it does, the button says so and cannot be
// pressed twice, the status line (read by screen readers) says since when, and the page reloads once it is done.
(function () {
  "use strict";
  var form = document.querySelector("form.recompute");
  if (!form) return;
  var button = form.querySelector("button[type=submit]");
  var status = form.querySelector("[role=status]");
  form.addEventListener("submit", function () {
    button.disabled = true;
    button.textContent = "Computing…";
    if (status) status.textContent = "Asking for the computation: every submitted answer is measured again.";
  });
  var url = form.getAttribute("data-status");
  if (!url) return;
  var started = Date.now();
  function follow() {
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (job) {
        if (job && job.finished) { window.location.reload(); return; }
        if (status) {
          var seconds = Math.round((Date.now() - started) / 1000);
          status.textContent = status.textContent.replace(/ \(\d+ s on this page\)$/, "") + " (" + seconds + " s on this page)";
        }
        window.setTimeout(follow, 2000);
      })
      .catch(function () { window.setTimeout(follow, 5000); });
  }
  window.setTimeout(follow, 2000);
})();
