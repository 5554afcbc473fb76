// The upload page and an upload's status (templates/submissions/): a file dropped on the form's file box, the
// upload's progress while it is sent, then the ingest's status polled as the server asks (Retry-After).
// Served as a file: the site's Content-Security-Policy allows no inline script.
(function () {
  "use strict";

  function bindDropZone(form) {
    var zone = form.querySelector("#drop-zone");
    var input = form.querySelector("input[type=file]");
    if (!zone || !input) { return; }
    zone.addEventListener("dragover", function (event) {
      event.preventDefault();
      zone.classList.add("dragging");
    });
    zone.addEventListener("dragleave", function () { zone.classList.remove("dragging"); });
    zone.addEventListener("drop", function (event) {
      event.preventDefault();
      zone.classList.remove("dragging");
      if (event.dataTransfer && event.dataTransfer.files.length) {
        input.files = event.dataTransfer.files;
      }
    });
  }

  function bindUploadForm(form) {
    bindDropZone(form);
    form.addEventListener("submit", function (event) {
      if (!window.FormData || !window.XMLHttpRequest) { return; }
      event.preventDefault();
      var bar = form.querySelector("#upload-progress");
      var text = form.querySelector("#upload-progress-text");
      var button = form.querySelector("button[type=submit]");
      var request = new XMLHttpRequest();
      request.open("POST", form.action || window.location.href);
      request.upload.addEventListener("progress", function (progress) {
        if (!progress.lengthComputable) { return; }
        var percent = Math.round((100 * progress.loaded) / progress.total);
        bar.hidden = false;
        bar.value = percent;
        text.textContent = "Uploading: " + percent + "%";
      });
      request.addEventListener("load", function () {
        if (request.responseURL && request.responseURL.indexOf("/submissions/") !== -1) {
          window.location.assign(request.responseURL);
          return;
        }
        // The form again, with what was wrong: the new page's main part replaces this one's.
        var page = new DOMParser().parseFromString(request.responseText, "text/html");
        var main = page.querySelector("main");
        if (main) {
          document.querySelector("main").replaceWith(main);
          var again = main.querySelector("#upload-form");
          if (again) { bindUploadForm(again); }
        }
      });
      request.addEventListener("error", function () {
        text.textContent = "The upload did not reach the server; try again.";
        button.disabled = false;
      });
      button.disabled = true;
      text.textContent = "Uploading…";
      request.send(new FormData(form));
    });
  }

  function pollStatus(box) {
    var url = box.getAttribute("data-status-url");
    var finished = box.querySelector("[data-finished=yes]");
    if (!url || finished) { return; }
    var wait = parseInt(box.getAttribute("data-retry-after") || "2", 10);
    window.setTimeout(function () {
      fetch(url, { credentials: "same-origin", headers: { Accept: "text/html" } }).then(function (response) {
        box.setAttribute("data-retry-after", response.headers.get("Retry-After") || "2");
        return response.text();
      }).then(function (html) {
        box.innerHTML = html;
        pollStatus(box);
      }).catch(function () {
        box.setAttribute("data-retry-after", "5");
        pollStatus(box);
      });
    }, Math.max(wait, 1) * 1000);
  }

  var form = document.getElementById("upload-form");
  if (form) { bindUploadForm(form); }
  var status = document.getElementById("upload-status");
  if (status) { pollStatus(status); }
}());
