// The quality page: while quality is computed (the request runs until it is done), the button says so and
// cannot be pressed twice; a screen reader hears it through the status line next to it.
(function () {
  "use strict";
  var form = document.querySelector("form.recompute");
  if (!form) return;
  form.addEventListener("submit", function () {
    var button = form.querySelector("button[type=submit]");
    var status = form.querySelector("[role=status]");
    button.disabled = true;
    button.textContent = "Computing…";
    if (status) status.textContent = "Computing quality: every submitted answer is measured again, this can take a while.";
  });
})();
