// latency-lab's one script: draws the plotly figures the server built, and copies text on request.
//
// Figures (see app/figures/__init__.py): a figure is
//   <div class="plot" data-figure="ID" role="img" aria-label="..."></div>
//   <script type="application/json" id="ID">{"data": [...], "layout": {...}}</script>
// The JSON block is data, not code, so the Content-Security-Policy needs no inline scripts.
// Figures are drawn when the page loads and after every htmx swap; data-filename names the PNG
// the modebar's camera button saves.
//
// Copying: <button type="button" data-copy="ELEMENT_ID"> copies that element's text to the
// clipboard and says so in the button for two seconds.
(function () {
  "use strict";

  var CONFIG = {
    responsive: true,
    displaylogo: false,
    toImageButtonOptions: { format: "png", scale: 2 },
  };

  function drawIn(root) {
    if (typeof Plotly === "undefined") return Promise.resolve();
    var drawing = [];
    var nodes = (root || document).querySelectorAll(".plot[data-figure]");
    nodes.forEach(function (node) {
      var source = document.getElementById(node.getAttribute("data-figure"));
      if (!source) return;
      var text = source.textContent;
      if (node.getAttribute("data-rendered") === "true" && node._latencyLabSource === text) return;
      var figure = JSON.parse(text);
      var config = Object.assign({}, CONFIG, figure.config || {});
      if (node.dataset.filename) {
        config.toImageButtonOptions = Object.assign({}, CONFIG.toImageButtonOptions, {
          filename: node.dataset.filename,
        });
      }
      node.removeAttribute("data-rendered");
      drawing.push(Plotly.react(node, figure.data, figure.layout, config).then(function () {
        node._latencyLabSource = text;
        node.setAttribute("data-rendered", "true");
      }));
    });
    return Promise.all(drawing);
  }

  function copyText(button) {
    var source = document.getElementById(button.getAttribute("data-copy"));
    if (!source) return;
    var text = source.textContent;
    var label = button.getAttribute("data-label") || button.textContent;
    button.setAttribute("data-label", label);
    function done(message) {
      button.textContent = message;
      window.setTimeout(function () { button.textContent = label; }, 2000);
    }
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(
        function () { done("Copied"); },
        function () { fallback(); }
      );
    } else {
      fallback();
    }
    function fallback() {
      // Select the text so Ctrl+C copies it (the clipboard API needs a secure context).
      var range = document.createRange();
      range.selectNodeContents(source);
      var selection = window.getSelection();
      selection.removeAllRanges();
      selection.addRange(range);
      done("Selected: press Ctrl+C");
    }
  }

  document.addEventListener("click", function (event) {
    var button = event.target.closest && event.target.closest("button[data-copy]");
    if (button) copyText(button);
  });

  // A plot drawn while hidden (closed <details>) has no width: draw it again when it is shown.
  document.addEventListener("toggle", function (event) {
    if (event.target.open && typeof Plotly !== "undefined") {
      event.target.querySelectorAll(".plot[data-rendered]").forEach(function (node) {
        Plotly.Plots.resize(node);
      });
    }
  }, true);

  window.latencyLab = { draw: drawIn, copy: copyText };
  document.addEventListener("DOMContentLoaded", function () { drawIn(document); });
  // The results beside the form scroll on their own (style.css): a swap replaces them, so their scroll
  // position is carried over (and set again once the plots have their height).
  var resultsScroll = null;
  // htmx 4 event names are htmx:<phase>:<action>
  document.addEventListener("htmx:before:swap", function () {
    var results = document.getElementById("results");
    resultsScroll = results ? results.scrollTop : null;
  });
  document.addEventListener("htmx:after:swap", function () {
    var keep = resultsScroll;
    function restore() {
      var results = document.getElementById("results");
      if (results && keep !== null && results.scrollTop !== keep) results.scrollTop = keep;
    }
    restore();
    drawIn(document).then(restore, restore);
  });
})();
