// Replay of a Signorini run on a canvas: bodies at every recorded step, contacts drawn, with
// play/pause/scrub. 2D runs are drawn in the x-y plane; 3D runs (polyhedra, meshes) in an
// orthographic view with z up that the mouse rotates (drag), faces sorted far to near and
// shaded; deformables (cloth, soft shells) and the rigid bodies of deformable runs are drawn
// from their recorded vertex positions (frame field "v", list "vertex_track" of the body, else
// "deformable_index"), open meshes from both sides. Sets body[data-status] to "ready" once the first frame is drawn, or to
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
    var legend = document.getElementById("legend");
    var frames = data.frames;
    var h = data.h;
    var palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2",
                   "#17becf", "#bcbd22", "#d62728", "#7f7f7f"];
    var bodies = data.bodies;
    var byDyn = {};
    function track(b) {
      if (b.vertex_track !== undefined && b.vertex_track !== null) { return b.vertex_track; }
      return b.deformable_index;
    }
    var deformables = bodies.filter(function (b) {
      return track(b) !== undefined && track(b) !== null;
    });
    var rigidCount = deformables.filter(function (b) {
      return b.rigid_index !== undefined && b.rigid_index !== null;
    }).length;
    bodies.forEach(function (b, k) {
      if (b.dynamic_index !== null && b.dynamic_index !== undefined) { byDyn[b.dynamic_index] = b; }
      if (!b.color) {
        b.color = b.is_static ? "#8c8c8c" : palette[(b.dynamic_index || k) % palette.length];
      }
    });
    function background() {
      ctx.clearRect(0, 0, canvas.width, canvas.height);
      ctx.fillStyle = "#fdfdf8"; ctx.fillRect(0, 0, canvas.width, canvas.height);
    }

    // ---- 2D: polygons in the x-y plane. ----
    function make2d() {
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
      return function paint(f) {
        background();
        bodies.forEach(function (b) {
          if (b.is_static) { poly(place(b, b.position[0], b.position[1], b.angle), b.color, "#333"); }
        });
        if (!f) { return; }
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
      };
    }

    // ---- 3D: orthographic view, z up, rotated by dragging. ----
    function make3d() {
      var yaw = -0.6, pitch = 0.45; // radians
      legend.textContent = "Orthographic view, z up: drag on the picture to rotate. Faces shaded by " +
        "their normal; red dots: vertices within 5 mm of (or inside) another body, with that " +
        "body's outward normal. Drag the slider to scrub.";
      if (deformables.length > 0) {
        legend.textContent = "Orthographic view, z up: drag on the picture to rotate. " +
          (deformables.length - rigidCount) + " deformables" +
          (rigidCount > 0 ? " and " + rigidCount + " rigid bodies" : "") +
          " drawn from their recorded vertex positions (" +
          frames.length + " frames); open meshes shown from both sides, static obstacles in grey. " +
          "Drag the slider to scrub.";
      }
      // A tracked body's vertices in frame f (its initial shape if f has none).
      function shape(b, f) {
        var x = f && f.v ? f.v[track(b)] : null;
        if (!x) { return b.vertices; }
        var pts = [];
        for (var i = 0; i + 2 < x.length; i += 3) { pts.push([x[i], x[i + 1], x[i + 2]]); }
        return pts;
      }
      function rot(q, v) { // unit quaternion [w, x, y, z] applied to v
        var n = Math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]) || 1;
        var w = q[0] / n, x = q[1] / n, y = q[2] / n, z = q[3] / n;
        var tx = 2 * (y * v[2] - z * v[1]), ty = 2 * (z * v[0] - x * v[2]), tz = 2 * (x * v[1] - y * v[0]);
        return [v[0] + w * tx + (y * tz - z * ty), v[1] + w * ty + (z * tx - x * tz),
                v[2] + w * tz + (x * ty - y * tx)];
      }
      function place(b, p, q) {
        return b.vertices.map(function (v) { var r = rot(q, v); return [r[0] + p[0], r[1] + p[1], r[2] + p[2]]; });
      }
      // View coordinates: [screen x, screen up, depth (larger = farther)].
      function cam(v) {
        var cy = Math.cos(yaw), sy = Math.sin(yaw), cp = Math.cos(pitch), sp = Math.sin(pitch);
        var x1 = cy * v[0] - sy * v[1], y1 = sy * v[0] + cy * v[1];
        return [x1, sp * y1 + cp * v[2], cp * y1 - sp * v[2]];
      }
      // A view-independent frame: the sphere around the dynamic bodies' recorded vertices (and
      // the static bodies unless they are much larger, e.g. a ground slab).
      function sphere(points) {
        var lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
        points.forEach(function (p) {
          for (var k = 0; k < 3; k++) { lo[k] = Math.min(lo[k], p[k]); hi[k] = Math.max(hi[k], p[k]); }
        });
        if (!isFinite(lo[0])) { return null; }
        var c = [0, 1, 2].map(function (k) { return (lo[k] + hi[k]) / 2; });
        var r = 0.5 * Math.sqrt([0, 1, 2].reduce(function (a, k) { return a + (hi[k] - lo[k]) * (hi[k] - lo[k]); }, 0));
        return { c: c, r: Math.max(r, 1e-3) };
      }
      var dynPts = [], statPts = [];
      bodies.forEach(function (b) {
        if (b.is_static) { place(b, b.position, b.orientation).forEach(function (p) { statPts.push(p); }); }
      });
      var stride = Math.max(1, Math.floor(frames.length / 200));
      deformables.forEach(function (b) { shape(b, null).forEach(function (p) { dynPts.push(p); }); });
      frames.forEach(function (f, i) {
        if (i % stride !== 0 && i !== frames.length - 1) { return; }
        deformables.forEach(function (b) { shape(b, f).forEach(function (p) { dynPts.push(p); }); });
        f.p.forEach(function (q) {
          var b = byDyn[q[0]];
          if (b) { place(b, [q[1], q[2], q[3]], [q[4], q[5], q[6], q[7]]).forEach(function (p) { dynPts.push(p); }); }
        });
      });
      var sd = sphere(dynPts), ss = sphere(statPts);
      var s = sd && ss && ss.r < 5 * sd.r ? sphere(dynPts.concat(statPts)) : (sd || ss || { c: [0, 0, 0], r: 1 });
      if (sd && ss && ss.r >= 5 * sd.r) { s.r *= 1.6; }
      var scale = 0.47 * Math.min(canvas.width, canvas.height) / s.r;
      function P(v) { // canvas point of a world point
        var q = cam([v[0] - s.c[0], v[1] - s.c[1], v[2] - s.c[2]]);
        return [canvas.width / 2 + scale * q[0], canvas.height / 2 - scale * q[1], q[2]];
      }
      function faces(b, pts, out) {
        b.faces.forEach(function (f) {
          var a = pts[f[0]], bb = pts[f[1]], cc = pts[f[2]];
          var u = [bb[0] - a[0], bb[1] - a[1], bb[2] - a[2]], v = [cc[0] - a[0], cc[1] - a[1], cc[2] - a[2]];
          var n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
          var nn = Math.sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]) || 1;
          var nv = cam([n[0] / nn, n[1] / nn, n[2] / nn]);
          var proj = f.map(function (k) { return P(pts[k]); });
          var depth = proj.reduce(function (d, p) { return d + p[2]; }, 0) / proj.length;
          // Light from the viewer and above; the back faces of open meshes (cloth, the
          // bucket) are lit as seen from behind and drawn dimmer.
          var back = nv[2] > 0, sign = back ? -1 : 1;
          var light = Math.max(0, sign * (-nv[2] * 0.7 + nv[1] * 0.3)) * (back ? 0.6 : 1);
          out.push({ pts: proj, depth: depth, color: b.color, shade: 0.25 + 0.75 * light,
                     back: back, open: !!b.open, stat: b.is_static });
        });
      }
      function fillFaces(list, alpha) {
        list.sort(function (a, b) { return b.depth - a.depth; });
        list.forEach(function (t) {
          if (t.back && !t.open) { return; } // closed bodies: back faces are hidden
          ctx.beginPath();
          t.pts.forEach(function (p, i) { if (i === 0) { ctx.moveTo(p[0], p[1]); } else { ctx.lineTo(p[0], p[1]); } });
          ctx.closePath();
          ctx.globalAlpha = alpha;
          ctx.fillStyle = t.color; ctx.fill();
          ctx.fillStyle = "#000"; ctx.globalAlpha = alpha * (1 - t.shade) * 0.6; ctx.fill();
          ctx.globalAlpha = 1;
          ctx.strokeStyle = t.stat ? "rgba(60,60,60,0.45)" : "rgba(20,20,20,0.6)";
          ctx.lineWidth = 0.7; ctx.stroke();
        });
      }
      // Static bodies first (containers, ground), then the moving bodies over them, so that
      // what moves is never hidden behind a wall; within each group, far faces first.
      function paint(f) {
        background();
        var stat = [], dyn = [];
        bodies.forEach(function (b) {
          if (b.is_static) { faces(b, place(b, b.position, b.orientation), stat); }
        });
        deformables.forEach(function (b) { faces(b, shape(b, f), dyn); });
        if (f) {
          f.p.forEach(function (q) {
            var b = byDyn[q[0]];
            if (b) { faces(b, place(b, [q[1], q[2], q[3]], [q[4], q[5], q[6], q[7]]), dyn); }
          });
        }
        fillFaces(stat, 0.8);
        fillFaces(dyn, 1);
        if (!f) { return; }
        ctx.strokeStyle = "#d62728"; ctx.fillStyle = "#d62728"; ctx.lineWidth = 1.5;
        var len = 0.08 * s.r;
        f.c.forEach(function (c) {
          var a = P([c[0], c[1], c[2]]), b = P([c[0] + len * c[3], c[1] + len * c[4], c[2] + len * c[5]]);
          ctx.beginPath(); ctx.arc(a[0], a[1], 2.5, 0, 2 * Math.PI); ctx.fill();
          ctx.beginPath(); ctx.moveTo(a[0], a[1]); ctx.lineTo(b[0], b[1]); ctx.stroke();
        });
      }
      var dragging = null;
      canvas.style.cursor = "grab";
      canvas.addEventListener("mousedown", function (e) { dragging = [e.clientX, e.clientY]; });
      window.addEventListener("mouseup", function () { dragging = null; });
      window.addEventListener("mousemove", function (e) {
        if (!dragging) { return; }
        yaw += (e.clientX - dragging[0]) * 0.01;
        pitch = Math.max(-1.5, Math.min(1.5, pitch + (e.clientY - dragging[1]) * 0.01));
        dragging = [e.clientX, e.clientY];
        draw(Math.floor(pos));
      });
      return paint;
    }

    var paint = data.dimension === 3 ? make3d() : make2d();
    var cursors = Array.prototype.slice.call(document.querySelectorAll("svg.plot"));
    function draw(i) {
      var f = frames[i];
      paint(f);
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
