// The stepping ladder of the teaching panel (latency_lab_web/teaching/templates/teaching/stepper.html): the ladder's events one at
// a time, played, paused, stepped forward and back, filtered by kind, the event list and the drawing in step (clicking
// either selects the other), the selected packet's fields and the timers running at its moment. Every time and place
// comes from the page's steps (latency_lab_web/figures/ladder.py steps: the model's packets and events); nothing is computed here
// but which event is selected. The same stepper steps a comparison in lecture mode (latency_lab_web/compare/templates/compare/
// lecture.html): its steps are the table's rows, and its data-plot names a bar chart, whose step's bar (the step's
// "bar", a y label of the chart) is drawn in full and the others dimmed.
(function () {
  "use strict";

  var DIM = 0.25; // opacity of what has not happened yet at the selected moment
  var DIM_BAR = 0.4; // a comparison's bars other than the selected step's: still there to compare against

  function plotOf(stepper) {
    var named = stepper.getAttribute("data-plot");
    if (named) return document.getElementById(named);
    var root = stepper.closest("#explain") || document;
    return root.querySelector(".plot.ladder[data-figure]");
  }

  function traceIndex(gd, step) {
    // the drawing's trace of a step: a packet's line, or a hold's bar (their meta, written by latency_lab_web/figures/ladder.py)
    if (!gd || !gd.data) return -1;
    for (var i = 0; i < gd.data.length; i++) {
      var m = gd.data[i].meta || {};
      if (step.hold ? (m.role === step.hold && m.packet === step.packet) : (m.role === "packet" && m.n === step.packet)) {
        return i;
      }
    }
    return -1;
  }

  function Stepper(el) {
    this.el = el;
    this.steps = JSON.parse(document.getElementById(el.getAttribute("data-steps")).textContent);
    this.list = el.querySelector(".ladder-events");
    this.items = Array.prototype.slice.call(this.list.querySelectorAll("li[data-step]"));
    this.now = el.querySelector(".stepper-now");
    this.timers = el.querySelector(".stepper-timers");
    this.fields = el.querySelector(".packet-fields");
    this.playButton = el.querySelector("[data-action=play]");
    this.speed = el.querySelector("[data-action=speed]");
    this.noun = el.getAttribute("data-noun") || "Event";
    this.bars = el.hasAttribute("data-plot"); // a bar chart, not the ladder
    this.current = -1;
    this.timer = null;
    this.hidden = {};
    this.enhance();
  }

  Stepper.prototype.enhance = function () {
    var self = this;
    this.el.querySelectorAll("[hidden]").forEach(function (n) {
      if (!n.classList.contains("packet-fields")) n.hidden = false;
    });
    this.list.setAttribute("role", "listbox");
    this.list.setAttribute("tabindex", "0");
    this.items.forEach(function (li) {
      li.setAttribute("role", "option");
      li.setAttribute("aria-selected", "false");
    });
    this.el.addEventListener("click", function (event) {
      var button = event.target.closest("button[data-action]");
      if (button) { self.act(button.getAttribute("data-action")); return; }
      var li = event.target.closest("li[data-step]");
      if (li && self.list.contains(li)) { self.stop(); self.select(Number(li.getAttribute("data-step"))); }
    });
    this.el.addEventListener("change", function (event) {
      var box = event.target.closest("input[data-group]");
      if (box) self.filter(box.getAttribute("data-group"), !box.checked);
      if (event.target === self.speed && self.timer) { self.stop(); self.play(); }
    });
    var keysOn = this.el.getAttribute("data-lecture") === "true" ? document : this.el;
    keysOn.addEventListener("keydown", function (event) { self.key(event); });
    this.hook();
  };

  // the drawing: clicking a packet or a timer selects its event (again after each redraw of the plot)
  Stepper.prototype.hook = function () {
    var self = this;
    var gd = plotOf(this.el);
    if (!gd || gd.getAttribute("data-rendered") !== "true" || gd._ladderStepper === this) return;
    gd._ladderStepper = this;
    gd.on("plotly_click", function (data) {
      var point = data && data.points && data.points[0];
      if (self.bars && point) {
        for (var k = 0; k < self.steps.length; k++) {
          if (self.steps[k].bar === point.y) { self.stop(); self.select(k); return; }
        }
        return;
      }
      var m = point && point.data && point.data.meta;
      if (!m) return;
      for (var i = 0; i < self.steps.length; i++) {
        var s = self.steps[i];
        if (m.role === "packet" ? (!s.hold && s.packet === m.n) : (s.hold === m.role && s.packet === m.packet)) {
          self.stop();
          self.select(i);
          return;
        }
      }
    });
    this.shapeIndex = ((gd.layout && gd.layout.shapes) || []).length;
    this.draw();
  };

  Stepper.prototype.visible = function (i) {
    return !this.hidden[this.steps[i].group];
  };

  Stepper.prototype.next = function (from, direction) {
    for (var i = from + direction; i >= 0 && i < this.steps.length; i += direction) {
      if (this.visible(i)) return i;
    }
    return -1;
  };

  Stepper.prototype.act = function (action) {
    if (action === "play") { if (this.timer) this.stop(); else this.play(); return; }
    this.stop();
    if (action === "forward") this.forward();
    else if (action === "back") { var j = this.next(this.current, -1); if (j >= 0) this.select(j); }
    else if (action === "first") { var f = this.next(-1, 1); if (f >= 0) this.select(f); }
    else if (action === "last") { var l = this.next(this.steps.length, -1); if (l >= 0) this.select(l); }
  };

  Stepper.prototype.forward = function () {
    var i = this.next(this.current, 1);
    if (i >= 0) this.select(i);
    return i >= 0;
  };

  Stepper.prototype.play = function () {
    var self = this;
    if (this.next(this.current, 1) < 0) this.current = -1; // at the end: play from the start
    this.playButton.setAttribute("aria-pressed", "true");
    this.playButton.textContent = "Pause";
    this.el.setAttribute("data-playing", "true");
    this.forward();
    this.timer = window.setInterval(function () { if (!self.forward()) self.stop(); }, Number(this.speed.value) || 1000);
  };

  Stepper.prototype.stop = function () {
    if (this.timer) window.clearInterval(this.timer);
    this.timer = null;
    this.playButton.setAttribute("aria-pressed", "false");
    this.playButton.textContent = "Play";
    this.el.removeAttribute("data-playing");
  };

  Stepper.prototype.key = function (event) {
    var t = event.target;
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (t && (t.tagName === "SELECT" || t.tagName === "INPUT" || t.tagName === "TEXTAREA")) return;
    var onButton = t && t.tagName === "BUTTON";
    var actions = { ArrowRight: "forward", ArrowDown: "forward", ArrowLeft: "back", ArrowUp: "back", Home: "first", End: "last" };
    if (actions[event.key]) {
      event.preventDefault();
      this.act(actions[event.key]);
    } else if ((event.key === " " || event.key === "Spacebar") && !onButton) {
      event.preventDefault();
      this.act("play");
    }
  };

  Stepper.prototype.filter = function (group, hide) {
    var self = this;
    this.hidden[group] = hide;
    this.items.forEach(function (li) { li.hidden = !!self.hidden[li.getAttribute("data-group")]; });
    this.el.setAttribute("data-hidden-groups", Object.keys(this.hidden).filter(function (g) { return self.hidden[g]; }).join(" "));
    if (this.current >= 0 && !this.visible(this.current)) {
      var j = this.next(this.current, -1);
      if (j < 0) j = this.next(this.current, 1);
      this.current = -1;
      if (j >= 0) { this.select(j); return; }
      this.show();
    }
    this.draw();
  };

  Stepper.prototype.select = function (i) {
    this.current = i;
    this.show();
    this.draw();
  };

  // the list, the fields and the timers of the selected event
  Stepper.prototype.show = function () {
    var self = this;
    var step = this.steps[this.current];
    this.items.forEach(function (li, k) { li.setAttribute("aria-selected", k === self.current ? "true" : "false"); });
    this.el.setAttribute("data-selected", String(this.current));
    if (!step) {
      this.list.removeAttribute("aria-activedescendant");
      this.now.textContent = "";
      if (this.timers) this.timers.textContent = "";
      this.fields.hidden = true;
      return;
    }
    var li = this.items[this.current];
    this.list.setAttribute("aria-activedescendant", li.id);
    var box = this.list.getBoundingClientRect(), at = li.getBoundingClientRect();
    if (at.top < box.top || at.bottom > box.bottom) this.list.scrollTop += at.top - box.top - box.height / 2;
    this.now.textContent = this.noun + " " + (this.current + 1) + " of " + this.steps.length + ": " + step.text;
    var running = this.steps.filter(function (s) { return s.hold && s.t_ms <= step.t_ms && step.t_ms < s.end_ms; });
    if (this.timers) this.timers.textContent = running.length ? "Timers running: " + running.map(function (s) {
      return s.fields.timer + ", " + s.fields.runs;
    }).join("; ") : "No timer running.";
    var dl = this.fields.querySelector("dl");
    dl.textContent = "";
    function row(name, value) {
      var dt = document.createElement("dt"), dd = document.createElement("dd");
      dt.textContent = name;
      dd.textContent = value;
      dl.appendChild(dt);
      dl.appendChild(dd);
    }
    Object.keys(step.fields).forEach(function (k) { row(k, step.fields[k]); });
    row(step.why_label || (step.hold ? "why" : "why it left then"), step.why.join("; "));
    this.fields.hidden = false;
  };

  // the drawing: what has happened by the selected moment drawn in full, the rest dimmed, the selected event thick,
  // the running timers in full, a line across at the moment; hidden kinds left out
  Stepper.prototype.draw = function () {
    var gd = plotOf(this.el);
    if (!gd || gd.getAttribute("data-rendered") !== "true" || typeof Plotly === "undefined") return;
    if (this.bars) { this.drawBars(gd); return; }
    var self = this;
    var step = this.steps[this.current];
    var selected = step ? traceIndex(gd, step) : -1;
    var t = step ? step.t_ms : Infinity;
    var opacity = [], width = [], visible = [], idx = [];
    var base = gd._ladderWidths || (gd._ladderWidths = gd.data.map(function (tr) { return tr.line ? tr.line.width : null; }));
    var byTrace = {};
    this.steps.forEach(function (s) { byTrace[traceIndex(gd, s)] = s; });
    gd.data.forEach(function (tr, i) {
      var m = tr.meta || {};
      if (!m.group) return;
      var s = byTrace[i];
      idx.push(i);
      visible.push(!self.hidden[m.group]);
      opacity.push(!s || s.t_ms <= t ? 1 : DIM);
      width.push(i === selected ? (base[i] || 2) * 2.2 : base[i]);
    });
    if (!idx.length) return;
    Plotly.restyle(gd, { opacity: opacity, "line.width": width, visible: visible }, idx);
    var shape = step ? {
      type: "line", xref: "paper", x0: 0, x1: 1, y0: step.y, y1: step.y, name: "now",
      line: { color: "#0b5cad", width: 2, dash: "solid" },
    } : null;
    var update = {};
    update["shapes[" + this.shapeIndex + "]"] = shape;
    Plotly.relayout(gd, update);
    gd.setAttribute("data-selected-trace", String(selected));
  };

  // a comparison's chart: the selected step's bar in full, the others dimmed, a hidden scenario's bars fainter still
  Stepper.prototype.drawBars = function (gd) {
    var self = this;
    var step = this.steps[this.current];
    var group = {};
    this.steps.forEach(function (s) { group[s.bar] = s.group; });
    var idx = [], opacity = [];
    gd.data.forEach(function (tr, i) {
      if (tr.type !== "bar" || !tr.y) return;
      idx.push(i);
      opacity.push(tr.y.map(function (y) {
        if (self.hidden[group[y]]) return DIM_BAR / 3;
        return !step || y === step.bar ? 1 : DIM_BAR;
      }));
    });
    if (!idx.length) return;
    Plotly.restyle(gd, { "marker.opacity": opacity }, idx);
    gd.setAttribute("data-selected-bar", step ? step.bar : "");
  };

  function start(root) {
    (root || document).querySelectorAll(".ladder-stepper[data-steps]").forEach(function (el) {
      if (el._stepper) { el._stepper.hook(); return; }
      el._stepper = new Stepper(el);
    });
  }

  // the drawing is drawn by app.js (window.latencyLab.draw) after the page loads or htmx swaps the panel in
  // (a few seconds at most: without plotly.js the list and the controls work alone)
  function whenDrawn(tries) {
    start(document);
    var pending = document.querySelectorAll(".plot.ladder[data-figure]:not([data-rendered='true'])").length;
    document.querySelectorAll(".ladder-stepper[data-plot]").forEach(function (el) {
      var gd = plotOf(el);
      if (gd && gd.getAttribute("data-rendered") !== "true") pending += 1;
    });
    if (pending && tries < 100) window.setTimeout(function () { whenDrawn(tries + 1); }, 100);
  }
  // app.js draws a plot again when the window's width changes (250 ms after the last resize; a projector going full
  // screen): the selected step is drawn on it again once it is drawn
  function again(tries) {
    var waiting = false;
    document.querySelectorAll(".ladder-stepper").forEach(function (el) {
      var s = el._stepper, gd = s && plotOf(el);
      if (!gd) return;
      if (gd.getAttribute("data-rendered") !== "true") { waiting = true; return; }
      if (s.current >= 0) s.draw();
    });
    if (waiting && tries < 100) window.setTimeout(function () { again(tries + 1); }, 100);
  }
  var resized = null;
  window.addEventListener("resize", function () {
    window.clearTimeout(resized);
    resized = window.setTimeout(function () { again(0); }, 400);
  });
  document.addEventListener("DOMContentLoaded", function () { whenDrawn(0); });
  document.addEventListener("htmx:after:swap", function () { window.setTimeout(function () { whenDrawn(0); }, 0); });
})();
