// Lists of checkboxes with a filter box: typing hides the items whose text does not contain what was typed
// (ticked items stay shown), and says how many are shown. Without JavaScript every item is shown.
(function () {
  "use strict";
  document.querySelectorAll("[data-checklist]").forEach(function (list) {
    var box = list.querySelector(".checklist-filter");
    var input = box && box.querySelector("input");
    var count = list.querySelector(".checklist-count");
    var items = Array.prototype.slice.call(list.querySelectorAll(".checklist-items .checklist-item"));
    if (!input) {
      return;
    }
    box.hidden = false;
    function apply() {
      var words = input.value.trim().toLowerCase().split(/\s+/).filter(Boolean);
      var shown = 0;
      items.forEach(function (item) {
        var text = item.textContent.toLowerCase();
        var ticked = item.querySelector("input").checked;
        var match = words.every(function (word) { return text.indexOf(word) !== -1; });
        var excluded = item.dataset.excluded === "true";
        item.hidden = !ticked && (!match || excluded);
        if (!item.hidden) {
          shown += 1;
        }
      });
      if (count) {
        count.textContent = shown + " of " + items.length + " shown";
      }
    }
    input.addEventListener("input", apply);
    list.addEventListener("checklist:refresh", apply);
    apply();
  });
})();
