// Exports page: show the options of the chosen format only, and follow the exports being built.
(function () {
  "use strict";
  var POLL_MS = 1000;

  function showChosenOptions() {
    var chosen = document.querySelector("input[name=format]:checked");
    document.querySelectorAll("fieldset.options").forEach(function (box) {
      box.hidden = !chosen || box.dataset.format !== chosen.value;
    });
    // campaigns the chosen format cannot export leave the list (a ticked one stays, and the server says why)
    var kinds = chosen && chosen.dataset.kinds ? chosen.dataset.kinds.split(" ") : [];
    var list = document.querySelector(".campaign-choice[data-checklist]");
    if (!list) {
      return;
    }
    list.querySelectorAll(".checklist-item[data-kind]").forEach(function (item) {
      item.dataset.excluded = String(kinds.length > 0 && kinds.indexOf(item.dataset.kind) === -1);
    });
    list.dispatchEvent(new CustomEvent("checklist:refresh"));
  }
  document.querySelectorAll("input[name=format]").forEach(function (radio) {
    radio.addEventListener("change", showChosenOptions);
  });
  showChosenOptions();

  var problem = document.querySelector(".export-request [role=alert]");
  if (problem) {  // a refused request: bring its message into view, for the keyboard too
    problem.setAttribute("tabindex", "-1");
    problem.focus();
  }

  function link(href, text) {
    var a = document.createElement("a");
    a.href = href;
    a.textContent = text;
    return a;
  }

  function showFiles(row, data) {
    var cell = row.querySelector(".export-files");
    cell.textContent = "";
    if (!data.download_url) {
      cell.textContent = "–";
      return;
    }
    var download = link(data.download_url, "Download zip of export #" + data.id);
    download.setAttribute("download", "");
    cell.appendChild(download);
    if (data.reports.length) {
      var list = document.createElement("ul");
      list.className = "reports";
      list.setAttribute("aria-label", "Reports of export #" + data.id);
      data.reports.forEach(function (report) {
        var item = document.createElement("li");
        item.appendChild(link(report.url, report.name));
        list.appendChild(item);
      });
      cell.appendChild(list);
    }
  }

  function show(row, data) {
    row.dataset.status = data.status;
    var state = row.querySelector(".state");
    state.textContent = data.status_label;
    state.className = "state state-" + data.status;
    var bar = row.querySelector("[role=progressbar]");
    bar.setAttribute("aria-valuenow", String(data.percent));
    bar.setAttribute("aria-valuetext", data.percent + "%");
    bar.firstElementChild.style.width = data.percent + "%";
    var steps = data.total && data.status !== "done" ? " (" + data.done + " / " + data.total + " steps)" : "";
    row.querySelector(".progress-text").textContent = data.percent + "%" + steps;
    var error = row.querySelector(".export-error");
    error.textContent = data.error;
    error.hidden = !data.error;
    row.querySelector(".export-records").textContent = data.records === null ? "–" : String(data.records);
    if (data.status === "done" || data.status === "failed") {
      showFiles(row, data);
    }
  }

  function follow(row) {
    fetch(row.dataset.statusUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) throw new Error("status " + response.status);
        return response.json();
      })
      .then(function (data) {
        show(row, data);
        if (data.status === "queued" || data.status === "running") {
          window.setTimeout(function () { follow(row); }, POLL_MS);
        }
      })
      .catch(function () {
        window.setTimeout(function () { follow(row); }, POLL_MS * 5);
      });
  }

  document.querySelectorAll("tr.export-row").forEach(function (row) {
    if (row.dataset.status === "queued" || row.dataset.status === "running") {
      follow(row);
    }
  });
})();
