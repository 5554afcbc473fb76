// Render every <div class="plotly-chart" data-figure="ID">, where ID names a json_script
// element holding {"data": [...], "layout": {...}} built on the server with plotly.
// With data-click-url="/runs/{id}/", clicking a point opens that URL with the point's customdata as {id}.
(function () {
  function render() {
    document.querySelectorAll(".plotly-chart[data-figure]").forEach(function (el) {
      var source = document.getElementById(el.dataset.figure);
      if (!source || el.dataset.rendered) { return; }
      var figure = JSON.parse(source.textContent);
      var layout = Object.assign({ margin: { t: 40, r: 20, b: 50, l: 60 } }, figure.layout || {});
      window.Plotly.newPlot(el, figure.data || [], layout, { responsive: true, displaylogo: false })
        .then(function () {
          el.dataset.rendered = "true";
          if (el.dataset.clickUrl) {
            el.on("plotly_click", function (event) {
              var point = event.points && event.points[0];
              if (point && point.customdata !== undefined) {
                window.location.href = el.dataset.clickUrl.replace("{id}", encodeURIComponent(point.customdata));
              }
            });
          }
        });
    });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", render);
  } else {
    render();
  }
})();
