// latency-lab's one script: draws the plotly figures the server built.
//
// Convention (see app/figures/__init__.py): a figure is
//   <div class="plot" data-figure="ID" role="img" aria-label="..."></div>
//   <script type="application/json" id="ID">{"data": [...], "layout": {...}}</script>
// The JSON block is data, not code, so the Content-Security-Policy needs no inline scripts.
// Figures are drawn when the page loads and after every htmx swap.
(function () {
  "use strict";

  var CONFIG = {
    responsive: true,
    displaylogo: false,
    toImageButtonOptions: { format: "png", scale: 2 },
  };

  function drawIn(root) {
    if (typeof Plotly === "undefined") return;
    var nodes = (root || document).querySelectorAll(".plot[data-figure]");
    nodes.forEach(function (node) {
      var source = document.getElementById(node.getAttribute("data-figure"));
      if (!source) return;
      var figure = JSON.parse(source.textContent);
      var config = Object.assign({}, CONFIG, figure.config || {});
      if (node.dataset.filename) {
        config.toImageButtonOptions = Object.assign({}, CONFIG.toImageButtonOptions, {
          filename: node.dataset.filename,
        });
      }
      Plotly.react(node, figure.data, figure.layout, config).then(function () {
        node.setAttribute("data-rendered", "true");
      });
    });
  }

  window.latencyLab = { draw: drawIn };
  document.addEventListener("DOMContentLoaded", function () { drawIn(document); });
  // htmx 4 event names are htmx:<phase>:<action>
  document.addEventListener("htmx:after:swap", function () { drawIn(document); });
})();
