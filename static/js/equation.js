// Live validation of the custom-list builder's equation: asks the server's grammar (the API's) as the reader types.
(function () {
  var form = document.getElementById("custom-list-form");
  if (!form) { return; }
  var input = form.querySelector("input[name='equation']");
  var status = document.getElementById("equation-status");
  var timer = null;
  function check() {
    if (!input.value.trim()) { status.textContent = ""; input.removeAttribute("aria-invalid"); return; }
    fetch(form.dataset.checkUrl + "?equation=" + encodeURIComponent(input.value), { credentials: "same-origin" })
      .then(function (response) { return response.json(); })
      .then(function (answer) {
        if (answer.ok) {
          status.textContent = "valid equation";
          status.className = "ok";
          input.removeAttribute("aria-invalid");
        } else {
          status.textContent = answer.equation + " (at character " + (answer.position + 1) + ")";
          status.className = "error";
          input.setAttribute("aria-invalid", "true");
        }
      })
      .catch(function () { status.textContent = ""; });
  }
  input.addEventListener("input", function () { clearTimeout(timer); timer = setTimeout(check, 250); });
  check();
})();
