// Replay of a Signorini run on a canvas: bodies at every recorded step, contacts drawn, with
// play/pause/scrub. Sets body[data-status] to "ready" once the first frame is drawn, or to
// "error: ..." if anything throws (read by the headless-browser test).
(function () {
  "use strict";
  var body = document.body;
  window.addEventListener("error", function (e) {
    body.setAttribute("data-status", "error: " + e.message);
  });
  try {
    var data = JSON.parse(document.getElementById("replay-data").textContent);
    var canvas = document.getElementById("replay");
    var ctx = canvas.getContext("2d");
    var scrub = document.getElementById("scrub");
    var play = document.getElementById("play");
    var speed = document.getElementById("speed");
    var clock = document.getElementById("clock");
    var frames = data.frames;
    var h = data.h;
    var palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
                   "#17becf", "#bcbd22", "#d62728", "#7f7f7f"];
    var bodies = data.bodies;
    var byDyn = {};
    bodies.forEach(function (b, k) {
      if (b.dynamic_index !== null) { byDyn[b.dynamic_index] = b; }
      if (!b.color) {
        b.color = b.is_static ? "#8c8c8c" : palette[(b.dynamic_index || k) % palette.length];
      }
    });
    function place(b, x, y, a) {
      var c = Math.cos(a), s = Math.sin(a);
      return b.vertices.map(function (v) {
        return [x + c * v[0] - s * v[1], y + s * v[0] + c * v[1]];
      });
    }
    // World bounds from static bodies and every recorded pose.
    var lo = [Infinity, Infinity], hi = [-Infinity, -Infinity];
    function grow(p) {
      lo[0] = Math.min(lo[0], p[0]); lo[1] = Math.min(lo[1], p[1]);
      hi[0] = Math.max(hi[0], p[0]); hi[1] = Math.max(hi[1], p[1]);
    }
    bodies.forEach(function (b) {
      place(b, b.position[0], b.position[1], b.angle).forEach(grow);
    });
    frames.forEach(function (f) {
      f.p.forEach(function (q) {
        var b = byDyn[q[0]];
        if (b) { place(b, q[1], q[2], q[3]).forEach(grow); }
      });
    });
    if (!isFinite(lo[0])) { lo = [-1, -1]; hi = [1, 1]; }
    var pad = 0.05 * Math.max(hi[0] - lo[0], hi[1] - lo[1], 1e-3);
    lo = [lo[0] - pad, lo[1] - pad]; hi = [hi[0] + pad, hi[1] + pad];
    var scale = Math.min(canvas.width / (hi[0] - lo[0]), canvas.height / (hi[1] - lo[1]));
    var ox = (canvas.width - scale * (hi[0] - lo[0])) / 2;
    var oy = (canvas.height - scale * (hi[1] - lo[1])) / 2;
    function X(x) { return ox + (x - lo[0]) * scale; }
    function Y(y) { return canvas.height - oy - (y - lo[1]) * scale; }
    function poly(pts, fill, stroke) {
      ctx.beginPath();
      pts.forEach(function (p, i) { if (i === 0) { ctx.moveTo(X(p[0]), Y(p[1])); } else { ctx.lineTo(X(p[0]), Y(p[1])); } });
      ctx.closePath();
      ctx.fillStyle = fill; ctx.fill();
      ctx.strokeStyle = stroke; ctx.lineWidth = 1; ctx.stroke();
    }
    var cursors = Array.prototype.slice.call(document.querySelectorAll("svg.plot"));
    function draw(i) {
      ctx.clearRect(0, 0, canvas.width, canvas.height);
      ctx.fillStyle = "#fdfdf8"; ctx.fillRect(0, 0, canvas.width, canvas.height);
      bodies.forEach(function (b) {
        if (b.is_static) { poly(place(b, b.position[0], b.position[1], b.angle), b.color, "#333"); }
      });
      var f = frames[i];
      if (f) {
        f.p.forEach(function (q) {
          var b = byDyn[q[0]];
          if (b) { poly(place(b, q[1], q[2], q[3]), b.color, "#222"); }
        });
        ctx.strokeStyle = "#d62728"; ctx.fillStyle = "#d62728"; ctx.lineWidth = 1.5;
        f.c.forEach(function (c) {
          ctx.beginPath(); ctx.arc(X(c[0]), Y(c[1]), 2.5, 0, 2 * Math.PI); ctx.fill();
          ctx.beginPath(); ctx.moveTo(X(c[0]), Y(c[1]));
          ctx.lineTo(X(c[0]) + 10 * c[2], Y(c[1]) - 10 * c[3]); ctx.stroke();
        });
      }
      var t = f ? f.s * h : 0;
      clock.textContent = "t = " + t.toFixed(3) + " s (step " + (f ? f.s : 0) + ")";
      cursors.forEach(function (svg) {
        var x0 = +svg.getAttribute("data-x0"), x1 = +svg.getAttribute("data-x1");
        var p0 = +svg.getAttribute("data-px0"), p1 = +svg.getAttribute("data-px1");
        var line = svg.querySelector("line.cursor");
        if (!line || !(x1 > x0)) { return; }
        var px = p0 + (Math.min(Math.max(t, x0), x1) - x0) / (x1 - x0) * (p1 - p0);
        line.setAttribute("x1", px); line.setAttribute("x2", px);
        line.setAttribute("visibility", "visible");
      });
    }
    scrub.max = Math.max(frames.length - 1, 0);
    var playing = false, last = null, pos = 0;
    function tick(now) {
      if (!playing) { return; }
      if (last !== null) {
        pos += (now - last) / 1000 / h * (+speed.value) / Math.max(1, frames.length > 1 ? (frames[1].s - frames[0].s) : 1);
      }
      last = now;
      if (pos >= frames.length - 1) { pos = frames.length - 1; playing = false; play.textContent = "Play"; }
      scrub.value = Math.floor(pos);
      draw(Math.floor(pos));
      if (playing) { window.requestAnimationFrame(tick); }
    }
    play.addEventListener("click", function () {
      playing = !playing;
      play.textContent = playing ? "Pause" : "Play";
      if (playing) {
        if (pos >= frames.length - 1) { pos = 0; }
        last = null; window.requestAnimationFrame(tick);
      }
    });
    scrub.addEventListener("input", function () { pos = +scrub.value; draw(pos); });
    // First view: the last frame (where everything ended up); Play restarts from the start.
    pos = Math.max(frames.length - 1, 0);
    scrub.value = pos;
    draw(pos);
    if (body.getAttribute("data-status") === "loading") { body.setAttribute("data-status", "ready"); }
  } catch (e) {
    body.setAttribute("data-status", "error: " + e);
  }
})();
