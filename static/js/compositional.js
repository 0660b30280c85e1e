// The compositional pages: a parse job or an evaluation runs in the background; while it does, its <progress> and
// status line (read by screen readers) follow it, and the page reloads once it is done. A refused form brings its
// message into view, for the keyboard too.
(function () {
  "use strict";
  var POLL_MS = 2000;

  function follow(url, update) {
    fetch(url, {credentials: "same-origin", headers: {"Accept": "application/json"}})
      .then(function (response) { return response.ok ? response.json() : null; })
      .then(function (job) {
        if (job && job.finished) { window.location.reload(); return; }
        if (job) update(job);
        window.setTimeout(function () { follow(url, update); }, POLL_MS);
      })
      .catch(function () { window.setTimeout(function () { follow(url, update); }, POLL_MS * 2); });
  }

  function show(box, job) {
    box.querySelectorAll("progress").forEach(function (bar) {
      bar.max = Math.max(job.total, 1);
      bar.value = job.done;
      bar.textContent = job.done + " of " + job.total;
    });
    box.querySelectorAll(".job-done").forEach(function (node) { node.textContent = job.done; });
    box.querySelectorAll(".job-total").forEach(function (node) { node.textContent = job.total; });
    box.querySelectorAll(".job-figures").forEach(function (node) { node.textContent = job.done + " / " + job.total; });
  }

  document.querySelectorAll(".job-progress[data-status], tr[data-status]").forEach(function (box) {
    var url = box.getAttribute("data-status");
    window.setTimeout(function () { follow(url, function (job) { show(box, job); }); }, POLL_MS);
  });

  document.querySelectorAll("form.recompute").forEach(function (form) {
    form.addEventListener("submit", function () {
      var button = form.querySelector("button[type=submit]");
      button.disabled = true;  // one click, one job
      button.textContent = "Working…";
    });
  });

  var problem = document.querySelector("[data-refused]");
  if (problem) {
    problem.setAttribute("tabindex", "-1");
    problem.focus();
  }
})();
