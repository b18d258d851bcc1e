// latency-lab's one script: draws the plotly figures the server built, and copies text on request.
//
// Figures (see latency_lab_web/figures/__init__.py): a figure is
//   <div class="plot" data-figure="ID" role="img" aria-label="..."></div>
//   <script type="application/json" id="ID">{"data": [...], "layout": {...}}</script>
// The JSON block is data, not code, so the Content-Security-Policy needs no inline scripts.
// Figures are drawn when the page loads and after every htmx swap; data-filename names the PNG
// the modebar's camera button saves, with the title, scenario and loss rate written in it (see exportPng);
// each chart's toolbar is one tab stop (see rove).
//
// Copying: <button type="button" data-copy="ELEMENT_ID"> copies that element's text to the
// clipboard and says so in the button for two seconds.
(function () {
  "use strict";

  // No "Share chart" (an upload to a cloud service: the app works offline) and no JSON download; plotly's own PNG
  // button is replaced by one that writes the chart's title, scenario and loss rate into the picture (exportPng).
  var CONFIG = {
    responsive: true,
    displaylogo: false,
    showSendToCloud: false,
    showEditInChartStudio: false,
    modeBarButtonsToRemove: ["toImage", "sendChartToCloud", "downloadJson"],
    toImageButtonOptions: { format: "png", scale: 2 },
  };

  // --- the PNG a chart's camera button saves -----------------------------------------------------------------
  // Title: the plot's data-export-title, else the figure's own title, else its section's heading. Scenario and loss
  // rate: data-scenario and data-loss of the plot or of the nearest element around it that has them (the
  // calculator's results, a comparison, an experiment); each is a line under the title.
  function textOf(title) {
    return title ? (typeof title === "string" ? title : title.text || "") : "";
  }
  function exportCaption(node, layout) {
    var title = node.dataset.exportTitle || textOf(layout.title).replace(/<br>/g, " ");
    if (!title) {
      var section = node.closest("section");
      var heading = section && section.querySelector("h2, h3");
      var figure = node.closest("figure");
      var strong = figure && figure.querySelector("figcaption strong");
      var parts = [heading, strong].filter(Boolean).map(function (el) { return el.textContent.trim(); });
      title = parts.join(": ") || (node.getAttribute("aria-label") || "").split(":")[0];
    }
    var around = node.closest("[data-scenario]");
    var lossAround = node.closest("[data-loss]");
    var lines = [];
    if (around && around.dataset.scenario) lines.push(around.dataset.scenario);
    if (lossAround && lossAround.dataset.loss) lines.push(lossAround.dataset.loss);
    return { title: "latency-lab: " + title, lines: lines };
  }
  function escapeText(text) {
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }
  function exportPng(gd) {
    var node = gd;
    var caption = exportCaption(node, node._latencyLabLayout || {});
    var width = Math.max(node.clientWidth || 0, 900);
    var size = 15;
    var perLine = Math.floor(width / (0.6 * size));
    var sub = [];
    caption.lines.forEach(function (line) { sub = sub.concat(wrapWords(line, perLine)); });
    var layout = JSON.parse(JSON.stringify(node._latencyLabLayout || {}));
    var margin = Object.assign({ l: 80, r: 80, t: 100, b: 80 }, layout.margin || {});
    var top = 24 + Math.ceil((1 + sub.length) * size * 1.35) + 12;
    var height = (layout.height || node.clientHeight || 450) + top - (margin.t || 0);
    margin.t = top;
    layout.margin = margin;
    layout.height = height;
    layout.width = width;
    layout.title = {
      // <br> only: plotly.js writes <b> and <span style> as style attributes, which the Content-Security-Policy blocks
      text: [escapeText(caption.title)].concat(sub.map(escapeText)).join("<br>"),
      x: 12 / width, xref: "container", xanchor: "left", y: 1 - 18 / height, yref: "container", yanchor: "top",
      font: { size: size },
    };
    layout.paper_bgcolor = "#fff";
    return Plotly.downloadImage({ data: node.data, layout: layout }, {
      format: "png", scale: 2, width: width, height: height,
      filename: node.dataset.filename || "latency-lab-chart",
    });
  }
  var PNG_BUTTON = {
    name: "downloadPng",
    title: "Download the chart as a PNG (with its title, scenario and loss rate)",
    icon: (typeof Plotly !== "undefined" && Plotly.Icons) ? Plotly.Icons.camera : undefined,
    click: function (gd) { exportPng(gd); },
  };

  // --- one tab stop per chart toolbar ----------------------------------------------------------------------
  // plotly makes every toolbar button a tab stop (about ten a chart, seventy on a results page). A toolbar is one
  // stop here (a roving tabindex, as the ARIA toolbar pattern has it): Tab reaches its current button, the arrow
  // keys (and Home, End) move between its buttons, Tab leaves it.
  function rove(node) {
    node.querySelectorAll(".modebar").forEach(function (bar) {
      bar.setAttribute("role", "toolbar");
      bar.setAttribute("aria-label", "Chart tools" + (node.dataset.filename ? " (" + node.dataset.filename + ")" : ""));
      var buttons = Array.prototype.slice.call(bar.querySelectorAll(".modebar-btn"));
      var current = buttons.filter(function (b) { return b.getAttribute("tabindex") === "0"; })[0] || buttons[0];
      buttons.forEach(function (b) { b.setAttribute("tabindex", b === current ? "0" : "-1"); });
    });
  }
  document.addEventListener("keydown", function (event) {
    var button = event.target.closest && event.target.closest(".modebar-btn");
    var bar = button && button.closest(".modebar");
    if (!bar) return;
    var buttons = Array.prototype.slice.call(bar.querySelectorAll(".modebar-btn"));
    var i = buttons.indexOf(button);
    var next = { ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1, ArrowUp: i - 1, Home: 0, End: buttons.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    next = (next + buttons.length) % buttons.length;
    buttons.forEach(function (b, j) { b.setAttribute("tabindex", j === next ? "0" : "-1"); });
    buttons[next].focus();
  });

  // A title must not run under the toolbar (top right) or past the plot's edge: where the centred one-line title
  // would (a phone), it goes left, in lines that fit, below the toolbar's row, and the plot moves down for it.
  var TOOLBAR_PX = 32; // the modebar's height, with its margin
  var TOOLBAR_WIDTH = 280; // the modebar's width with plotly's default buttons
  function fitTitle(layout, width) {
    var title = layout.title;
    var text = title && (typeof title === "string" ? title : title.text);
    if (!text || !width) return layout;
    var size = (title.font && title.font.size) || 17;
    var charPx = 0.6 * size;
    if (text.length * charPx <= width - 2 * TOOLBAR_WIDTH) return layout; // centred, clear of the toolbar
    var perLine = Math.max(12, Math.floor((width - 16) / charPx));
    var lines = [];
    text.split(" ").forEach(function (word) {
      var last = lines.length - 1;
      if (last >= 0 && (lines[last] + " " + word).length <= perLine) lines[last] += " " + word;
      else lines.push(word);
    });
    var margin = Object.assign({ l: 80, r: 80, t: 100, b: 80 }, layout.margin || {});
    var oldTop = margin.t;
    margin.t = TOOLBAR_PX + Math.ceil(lines.length * size * 1.3) + 16;
    var height = (layout.height || 450) + margin.t - oldTop;
    return Object.assign({}, layout, {
      margin: margin,
      height: height,
      title: Object.assign({}, typeof title === "string" ? {} : title, {
        text: lines.join("<br>"),
        x: 8 / width, xref: "container", xanchor: "left",
        // plotly.js sets a title's top about one font size above the y asked for: ask that much lower
        y: 1 - (TOOLBAR_PX + size) / height, yref: "container", yanchor: "top",
      }),
    });
  }

  // On a narrow chart (a phone) long axis titles wrap, the axes make room for their labels, and the legend
  // goes below everything (plotly.js's legend at a fixed fraction below the plot runs over rotated labels).
  var NARROW_PX = 600;
  function wrapWords(text, perLine) {
    var lines = [];
    String(text).split(" ").forEach(function (word) {
      var last = lines.length - 1;
      if (last >= 0 && (lines[last] + " " + word).length <= perLine) lines[last] += " " + word;
      else lines.push(word);
    });
    return lines;
  }
  function fitNarrow(layout, data, width) {
    if (!width || width >= NARROW_PX) return layout;
    var out = Object.assign({}, layout);
    var added = 0;
    ["xaxis", "yaxis"].forEach(function (name) {
      var axis = layout[name];
      if (!axis) return;
      axis = Object.assign({}, axis, { automargin: true });
      var title = axis.title && (typeof axis.title === "string" ? { text: axis.title } : axis.title);
      if (title && title.text) {
        var top = (layout.margin && layout.margin.t) || 80;
        var along = name === "xaxis" ? width - 40 : (layout.height || 450) - top - 140;
        var lines = wrapWords(title.text, Math.max(12, Math.floor(along / 8)));
        axis.title = Object.assign({}, title, { text: lines.join("<br>") });
        added += (lines.length - 1) * 18;
      }
      out[name] = axis;
    });
    var entries = (data || []).filter(function (t) { return t.showlegend !== false && t.name; }).length;
    if (layout.showlegend !== false && entries > 1) {
      out.legend = Object.assign({}, layout.legend, {
        orientation: "h", x: 0, xanchor: "left", xref: "container", y: 0, yanchor: "bottom", yref: "container",
      });
      added += 22 * entries;
    }
    if (layout.height) out.height = layout.height + added;
    return out;
  }

  function drawIn(root) {
    if (typeof Plotly === "undefined") return Promise.resolve();
    var drawing = [];
    var nodes = (root || document).querySelectorAll(".plot[data-figure]");
    nodes.forEach(function (node) {
      var source = document.getElementById(node.getAttribute("data-figure"));
      if (!source) return;
      var text = source.textContent;
      if (node.getAttribute("data-rendered") === "true" && node._latencyLabSource === text) return;
      // a figure whose points were filled in (fill, below) is drawn again with them, not from its JSON block
      var figure = node._latencyLabFilled && node._latencyLabSource === text ? node._latencyLabFilled : JSON.parse(text);
      var config = Object.assign({}, CONFIG, figure.config || {});
      config.modeBarButtonsToAdd = [PNG_BUTTON];
      if (node.dataset.filename) {
        config.toImageButtonOptions = Object.assign({}, CONFIG.toImageButtonOptions, {
          filename: node.dataset.filename,
        });
      }
      node.removeAttribute("data-rendered");
      node._latencyLabWidth = node.clientWidth;
      var layout = fitNarrow(fitTitle(figure.layout || {}, node.clientWidth), figure.data, node.clientWidth);
      node._latencyLabLayout = figure.layout || {};
      drawing.push(Plotly.react(node, figure.data, layout, config).then(function () {
        node._latencyLabSource = text;
        rove(node);
        if (!node._latencyLabRoving) {
          node._latencyLabRoving = true;
          node.on("plotly_afterplot", function () { rove(node); }); // plotly may draw its toolbar again
        }
        // The chart is described by its group's label and the table beside it: the drawing's own texts (tick
        // labels, legend) are hidden from assistive technology; the toolbar's buttons stay reachable.
        node.querySelectorAll(".main-svg").forEach(function (svg) { svg.setAttribute("aria-hidden", "true"); });
        node.setAttribute("data-rendered", "true");
        if (node.hasAttribute("data-fill")) fill(node);
      }));
    });
    return Promise.all(drawing);
  }

  // --- the points a sweep left out, filled in --------------------------------------------------------------------
  // A plot with data-fill (the calculator's sweep plot or loss chart, where the page left values out to keep within
  // its time budget) asks for them in follow-up requests, one at a time: data-fill is the first one's address
  // (GET /sweep-points, one slice of the values each, each priced within one request's work). Each answer's traces
  // are merged into the drawn figure's traces of the same name, in the order of x; its rows go into the data table
  // (the tbody whose id is data-fill-rows) in the order of their values; its caption replaces the left-out sentence
  // (the element whose id is data-fill-caption); "next" is the following request's address, null after the last.
  // A plot that an htmx swap took out of the page stops asking; a failed request stops too, the caption saying
  // what is still left out.
  function mergedTrace(trace, part) {
    var pairs = [];
    var i;
    for (i = 0; i < trace.x.length; i++) pairs.push([trace.x[i], trace.y[i]]);
    for (i = 0; i < part.x.length; i++) pairs.push([part.x[i], part.y[i]]);
    pairs.sort(function (a, b) { return a[0] - b[0]; });
    return Object.assign({}, trace, {
      x: pairs.map(function (p) { return p[0]; }),
      y: pairs.map(function (p) { return p[1]; }),
    });
  }
  function addRows(tbody, html) {
    if (!tbody) return;
    var holder = document.createElement("tbody");
    holder.innerHTML = html;
    Array.prototype.slice.call(holder.querySelectorAll("tr[data-value]")).forEach(function (row) {
      var value = parseFloat(row.getAttribute("data-value"));
      var after = Array.prototype.filter.call(tbody.querySelectorAll("tr[data-value]"), function (r) {
        return parseFloat(r.getAttribute("data-value")) > value;
      })[0];
      tbody.insertBefore(row, after || null);
    });
  }
  function fill(node) {
    if (node._latencyLabFilling || typeof fetch === "undefined") return;
    node._latencyLabFilling = true;
    function ask(url) {
      return fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" }).then(function (r) {
        return r.ok ? r.json() : null;
      }).then(function (part) {
        if (!part || !document.contains(node)) return;
        var drawn = (node._latencyLabFilled || JSON.parse(node._latencyLabSource)).data;
        var data = drawn.slice();
        part.figure.data.forEach(function (piece) {
          var at = -1;
          data.forEach(function (t, i) { if (t.name === piece.name) at = i; });
          if (at >= 0) data[at] = mergedTrace(data[at], piece);
          else data.push(piece);
        });
        node._latencyLabFilled = { data: data, layout: node._latencyLabLayout };
        addRows(document.getElementById(node.getAttribute("data-fill-rows")), part.rows);
        var caption = document.getElementById(node.getAttribute("data-fill-caption"));
        if (caption) caption.textContent = part.caption;
        node.removeAttribute("data-rendered");
        return drawIn(node.parentNode).then(function () {
          if (part.next && document.contains(node)) return ask(part.next);
        });
      });
    }
    ask(node.getAttribute("data-fill")).catch(function () { /* the caption still says what is left out */ });
  }

  // A table that stacks on a phone (style.css) names each cell's column before it: where the template did not write
  // the names (data-label), they are the table's column headings.
  function labelCells(root) {
    (root || document).querySelectorAll("table.stack, table.side-by-side").forEach(function (table) {
      var heads = Array.prototype.map.call(table.querySelectorAll("thead th"), function (th) {
        return th.textContent.replace(/\s+/g, " ").trim();
      });
      table.querySelectorAll("tbody tr").forEach(function (row) {
        Array.prototype.forEach.call(row.cells, function (cell, i) {
          if (!cell.hasAttribute("data-label") && heads[i]) cell.setAttribute("data-label", heads[i]);
        });
      });
    });
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

  // Titles, axis titles and legends are fitted to a chart's width when it is drawn: draw again when the width
  // changes (a phone turned sideways, a window resized); plotly.js's own resizing keeps the old fitting.
  var resizeTimer = null;
  window.addEventListener("resize", function () {
    window.clearTimeout(resizeTimer);
    resizeTimer = window.setTimeout(function () {
      document.querySelectorAll(".plot[data-rendered='true']").forEach(function (node) {
        if (node._latencyLabWidth !== node.clientWidth) node.removeAttribute("data-rendered");
      });
      drawIn(document);
    }, 250);
  });

  // The form's action bar sticks to the window's bottom: the page's bottom scroll padding is the bar's own
  // height (style.css has a fixed one for pages without JavaScript), so a field reached with Tab stops above
  // the bar, and a field already clear of it does not move.
  function fitScrollPadding() {
    var bar = document.querySelector("#calc .actions");
    if (!bar) return;
    document.documentElement.style.scrollPaddingBottom = (bar.getBoundingClientRect().height + 8) + "px";
  }

  window.latencyLab = { draw: drawIn, copy: copyText };
  document.addEventListener("DOMContentLoaded", function () { fitScrollPadding(); labelCells(document); drawIn(document); });
  window.addEventListener("resize", fitScrollPadding);
  // The results beside the form scroll on their own (style.css): a swap replaces them, so their scroll
  // position is carried over (and set again once the plots have their height).
  var resultsScroll = null;
  // htmx 4 event names are htmx:<phase>:<action>
  // A <details> the reader opened (every other setting, the presets' sources) stays open after a swap.
  var openDetails = [];
  // A field being typed in when the answer to an earlier edit arrives keeps what was typed: the answer was
  // rendered before it, and its field (empty or the old value) would replace the newer text; leaving the field
  // then sends it (a programmatic value fires no change event of its own).
  var typing = null;
  var TEXT_TYPES = ["text", "number", "search", "tel", "url", "email"];
  function isTyping(el) {
    return el && el.id && el.tagName === "INPUT" && TEXT_TYPES.indexOf(el.type) >= 0 && el.form &&
      el.closest("#calc") && el.value !== el.defaultValue;
  }
  function sendOnLeave(el) {
    el.setAttribute("data-typed", "true");
    el.addEventListener("change", function () { el.removeAttribute("data-typed"); }, { once: true });
    el.addEventListener("blur", function () {
      if (el.getAttribute("data-typed") !== "true") return;
      el.removeAttribute("data-typed");
      if (el.value !== el.defaultValue) el.dispatchEvent(new Event("change", { bubbles: true }));
    }, { once: true });
  }
  document.addEventListener("htmx:before:swap", function () {
    var results = document.getElementById("results");
    resultsScroll = results ? results.scrollTop : null;
    openDetails = Array.prototype.map.call(document.querySelectorAll("details[id][open]"), function (d) { return d.id; });
    var active = document.activeElement;
    typing = isTyping(active) ?
      { id: active.id, value: active.value, start: active.selectionStart, end: active.selectionEnd } : null;
  });
  document.addEventListener("htmx:after:swap", function () {
    fitScrollPadding();
    labelCells(document);
    var keep = resultsScroll;
    var typed = typing;
    typing = null;
    var field = typed && document.getElementById(typed.id);
    if (field && field.tagName === "INPUT" && field.value !== typed.value) {
      field.value = typed.value;
      if (document.activeElement !== field) field.focus({ preventScroll: true });
      try { field.setSelectionRange(typed.start, typed.end); } catch (e) { /* number inputs have no selection */ }
      sendOnLeave(field);
    }
    openDetails.forEach(function (id) {
      var details = document.getElementById(id);
      if (details && details.tagName === "DETAILS") details.open = true;
    });
    function restore() {
      var results = document.getElementById("results");
      if (results && keep !== null && results.scrollTop !== keep) results.scrollTop = keep;
    }
    restore();
    drawIn(document).then(restore, restore);
  });
})();
