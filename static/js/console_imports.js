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

  // Why each chosen file cannot be imported, as the server checks it: [{name, reason}].
  function badFiles(input) {
    var maxZip = Number(input.dataset.maxZip), maxFile = Number(input.dataset.maxFile);
    var accepted = input.accept.split(",").filter(Boolean);
    var several = input.files.length > 1, bad = [];
    for (var i = 0; i < input.files.length; i++) {
      var file = input.files[i], name = file.name.toLowerCase(), reason = "";
      var isZip = /\.zip$/.test(name), limit = isZip ? maxZip : maxFile;
      if (!accepted.some(function (ending) { return name.slice(-ending.length) === ending; })) {
        reason = "not an accepted file type (accepted: " + accepted.join(", ") + ")";
      } else if (several && isZip) {
        reason = "a zip is imported on its own, not together with other files";
      } else if (file.size > limit) {
        reason = "the file is " + file.size + " bytes, over the limit of " + limit + " bytes";
      } else if (file.size === 0) {
        reason = "the file is empty";
      }
      if (reason) { bad.push({name: file.name, reason: reason}); }
    }
    return bad;
  }

  function listed(bad) {
    return bad.map(function (file) { return file.name + ": " + file.reason; }).join("; ");
  }

  // What stops the upload ("" when nothing does) and which files the import will refuse by name while it
  // imports the others (an importer that keeps the good files of several).
  function check(input) {
    var maxCount = Number(input.dataset.maxCount);
    if (input.files.length > maxCount) {
      return {problem: "Too many files in one upload (at most " + maxCount + "): put them in a zip and import the zip.",
              skipped: []};
    }
    var bad = badFiles(input);
    var keepsGood = input.dataset.keepsGood === "true" && input.files.length > 1;
    if (!bad.length || (keepsGood && bad.length < input.files.length)) {
      return {problem: "", skipped: bad};
    }
    if (bad.length === 1) { return {problem: listed(bad), skipped: []}; }
    return {problem: "Nothing was imported, no file can be: " + listed(bad), skipped: []};
  }

  function show(form, state) {
    form.querySelector("[data-import-error]").textContent = state.problem;
    form.querySelector("[data-import-skipped]").textContent = state.skipped.length
      ? "Skipped (each named in the report), the others imported: " + listed(state.skipped) : "";
  }

  function upload(form, event) {
    var input = form.querySelector("input[type=file]");
    var error = form.querySelector("[data-import-error]");
    var box = form.querySelector("[data-import-upload]");
    var bar = box.querySelector("[role=progressbar]");
    var text = box.querySelector("[data-import-upload-text]");
    var button = form.querySelector("button[type=submit]");
    var state = check(input);
    event.preventDefault();
    show(form, state);
    if (state.problem) { input.focus(); return; }
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
    var input = form.querySelector("input[type=file]");
    input.addEventListener("change", function () { show(form, check(input)); });
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
