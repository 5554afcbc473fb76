// Render every <div class="plotly-chart" data-figure="ID">, where ID names a json_script
// element holding {"data": [...], "layout": {...}} built on the server with plotly.
(function () {
  function render() {
    document.querySelectorAll(".plotly-chart[data-figure]").forEach(function (el) {
      var source = document.getElementById(el.dataset.figure);
      if (!source || el.dataset.rendered) { return; }
      var figure = JSON.parse(source.textContent);
      var layout = Object.assign({ margin: { t: 40, r: 20, b: 50, l: 60 } }, figure.layout || {});
      window.Plotly.newPlot(el, figure.data || [], layout, { responsive: true, displaylogo: false })
        .then(function () { el.dataset.rendered = "true"; });
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", render);
  } else {
    render();
  }
})();
