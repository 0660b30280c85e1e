// The console's Imports page: uploads with a progress bar (XMLHttpRequest upload events), then the import
// job's page polls its status and shows the report when the job has finished. Without this script the forms
// post normally and the job page refreshes itself.
(function () {
  "use strict";

  function setBar(bar, percent, text) {
    bar.setAttribute("aria-valuenow", String(percent));
    if (text) { bar.setAttribute("aria-valuetext", text); }
    bar.firstElementChild.style.width = percent + "%";
  }

  function tooLarge(input) {
    var maxZip = Number(input.dataset.maxZip), maxFile = Number(input.dataset.maxFile);
    var maxCount = Number(input.dataset.maxCount);
    if (input.files.length > maxCount) {
      return "Too many files in one upload (at most " + maxCount + "): put them in a zip and import the zip.";
    }
    for (var i = 0; i < input.files.length; i++) {
      var file = input.files[i];
      var limit = /\.zip$/i.test(file.name) ? maxZip : maxFile;
      if (file.size > limit) {
        return file.name + ": the file is " + file.size + " bytes, over the limit of " + limit + " bytes";
      }
    }
    return "";
  }

  function upload(form, event) {
    var input = form.querySelector("input[type=file]");
    var error = form.querySelector("[data-import-error]");
    var box = form.querySelector("[data-import-upload]");
    var bar = box.querySelector("[role=progressbar]");
    var text = box.querySelector("[data-import-upload-text]");
    var button = form.querySelector("button[type=submit]");
    var problem = tooLarge(input);
    event.preventDefault();
    error.textContent = problem;
    if (problem) { input.focus(); return; }
    var request = new XMLHttpRequest();
    request.open("POST", form.action);
    request.setRequestHeader("X-Requested-With", "XMLHttpRequest");
    request.responseType = "json";
    request.upload.addEventListener("progress", function (e) {
      if (!e.lengthComputable) { return; }
      var percent = Math.round(100 * e.loaded / e.total);
      setBar(bar, percent, percent + "% uploaded");
      text.textContent = "Uploading… " + percent + "%";
    });
    request.addEventListener("load", function () {
      var answer = request.response || {};
      if (request.status === 201 && answer.page) {
        setBar(bar, 100, "uploaded");
        text.textContent = "Uploaded. Opening the import…";
        window.location.assign(answer.page);
        return;
      }
      box.hidden = true;
      button.disabled = false;
      error.textContent = answer.error || ("The upload was refused (HTTP " + request.status + ").");
    });
    request.addEventListener("error", function () {
      box.hidden = true;
      button.disabled = false;
      error.textContent = "The upload failed (the connection was lost). Nothing was imported; try again.";
    });
    setBar(bar, 0, "0% uploaded");
    text.textContent = "Uploading… 0%";
    box.hidden = false;
    button.disabled = true;
    request.send(new FormData(form));
  }

  document.querySelectorAll("form[data-import-form]").forEach(function (form) {
    form.addEventListener("submit", function (event) { upload(form, event); });
  });

  var job = document.querySelector("[data-import-job]");
  if (!job || job.dataset.finished === "true") { return; }
  var bar = job.querySelector("[data-import-bar]");
  var count = job.querySelector("[data-import-count]");
  var status = job.querySelector("[data-import-status]");

  function poll() {
    fetch(job.dataset.statusUrl, {headers: {"Accept": "application/json"}, credentials: "same-origin"})
      .then(function (response) { return response.ok ? response.json() : Promise.reject(response.status); })
      .then(function (state) {
        var total = state.total === null ? "?" : state.total;
        setBar(bar, state.percent, state.done + " of " + total + (state.unit ? " " + state.unit : ""));
        count.textContent = state.done + " / " + total + (state.unit ? " " + state.unit : "");
        status.textContent = state.status.charAt(0).toUpperCase() + state.status.slice(1);
        if (state.finished) { window.location.reload(); } else { window.setTimeout(poll, 1000); }
      })
      .catch(function () { window.setTimeout(poll, 3000); });
  }
  window.setTimeout(poll, 500);
})();
