#!/usr/bin/env python3
"""MuJoCo runs of Signorini's `pile` and `tower` scenes, for comparison only.

MuJoCo is a peer engine used here as a yardstick; it is not a dependency of Signorini.
See README.md in this folder for what is built, what is measured and how to run it.

    pip install mujoco numpy scipy
    python3 bench/mujoco/pile.py --bodies 8,27,64,125,1000 --friction 0 --out a.json
    python3 bench/mujoco/pile.py --bodies 125 --friction 0.5 --out b.json
    python3 bench/mujoco/pile.py --scene tower --out c.json
    python3 bench/mujoco/pile.py --combine a.json b.json c.json --out results.json --txt results.txt
"""

import argparse
import json
import math
import os
import platform
import sys
import time

import mujoco
import numpy as np
from scipy.spatial import ConvexHull

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_POINTS = os.path.normpath(
    os.path.join(HERE, "..", "..", "data", "peg3d", "random_polyhedra.json")
)

SPACING = 1.15  # lattice spacing s (m)
CIRCUMRADIUS = 0.5  # every pile body (m)
BODY_MASS = 0.5  # every pile body (kg)
WALL = 0.25  # wall and floor thickness t (m)
GRAVITY = 9.81
TIMESTEP = 0.01
DURATION = 2.0
TOWER_CUBES = 8
TOWER_EDGE = 1.0
TOWER_MASS = 1.0
TOWER_FRICTION = 0.5


# ----------------------------------------------------------------------------- geometry


def hull_mass_properties(points):
    """Volume, volume centroid and second-moment matrix (about the origin, unit density)
    of the convex hull of `points`: tetrahedra from an interior point to each hull facet."""
    hull = ConvexHull(points)
    apex = points[hull.vertices].mean(axis=0)  # strictly inside the hull
    vol = 0.0
    first = np.zeros(3)
    second = np.zeros((3, 3))
    for tri in hull.simplices:
        v = np.vstack([apex, points[tri]])  # 4 x 3
        dv = abs(np.linalg.det(v[1:] - v[0])) / 6.0
        s = v.sum(axis=0)
        vol += dv
        first += dv * s / 4.0
        # integral of x x^T over a tetrahedron: V/20 (sum v_i v_i^T + s s^T)
        second += dv / 20.0 * (v.T @ v + np.outer(s, s))
    return hull, vol, first / vol, second


def random_body(points):
    """Hull vertices centred on the volume centroid and scaled to circumradius 0.5, with the
    hull's volume and inertia tensor (about the centroid) for mass 0.5."""
    points = np.asarray(points, dtype=float)
    hull, _, centroid, _ = hull_mass_properties(points)
    verts = points[hull.vertices] - centroid
    verts *= CIRCUMRADIUS / np.linalg.norm(verts, axis=1).max()
    _, vol, c2, second = hull_mass_properties(verts)
    assert np.linalg.norm(c2) < 1e-9, c2
    rho = BODY_MASS / vol
    inertia = rho * (np.trace(second) * np.eye(3) - second)
    return verts, vol, inertia


def load_point_sets(path):
    with open(path) as f:
        data = json.load(f)
    return [b["vertices_local"] for b in data["bodies"]]


# ----------------------------------------------------------------------------- scenes


def fmt(v):
    return " ".join(repr(float(x)) for x in v)


def friction_attrs(friction):
    """Geom contact attributes: condim 1 (frictionless) or the default condim 3 with the given
    sliding friction (torsional and rolling coefficients left at MuJoCo's defaults)."""
    if friction == 0.0:
        return 'condim="1"'
    return f'condim="3" friction="{friction!r} 0.005 0.0001"'


def pile_lattice(n_bodies):
    n = math.ceil(round(n_bodies ** (1.0 / 3.0), 9))
    while n**3 < n_bodies:
        n += 1
    while n > 1 and (n - 1) ** 3 >= n_bodies:
        n -= 1
    layers = math.ceil(n_bodies / (n * n))
    s = SPACING
    centres = []
    for k in range(n_bodies):
        i, j, l = k % n, (k // n) % n, k // (n * n)
        centres.append(((i - (n - 1) / 2) * s, (j - (n - 1) / 2) * s, s / 2 + l * s))
    return n, layers, np.array(centres)


def container_boxes(n, layers):
    """The open box: (name, centre, half-extents) of floor and four walls."""
    s, t = SPACING, WALL
    w = n * s + t
    L = n * s + t
    H = layers * s + 1.0
    return [
        ("floor", (0.0, 0.0, -t / 2), ((w + t) / 2, (L + t) / 2, t / 2)),
        ("wall_xp", (w / 2, 0.0, H / 2 - t), (t / 2, (L + t) / 2, H / 2)),
        ("wall_xn", (-w / 2, 0.0, H / 2 - t), (t / 2, (L + t) / 2, H / 2)),
        ("wall_yp", (0.0, L / 2, H / 2 - t), ((w + t) / 2, t / 2, H / 2)),
        ("wall_yn", (0.0, -L / 2, H / 2 - t), ((w + t) / 2, t / 2, H / 2)),
    ]


def pile_xml(n_bodies, shape, friction, point_sets):
    n, layers, centres = pile_lattice(n_bodies)
    fa = friction_attrs(friction)
    assets, bodies, expected = [], [], []
    if shape == "random":
        n_meshes = min(n_bodies, len(point_sets))
        for m in range(n_meshes):
            verts, vol, inertia = random_body(point_sets[m])
            assets.append(f'<mesh name="poly{m}" vertex="{fmt(verts.ravel())}"/>')
            expected.append((vol, inertia))
    for k, c in enumerate(centres):
        if shape == "random":
            geom = f'<geom type="mesh" mesh="poly{k % len(point_sets)}" mass="{BODY_MASS!r}" {fa}/>'
        else:
            half = CIRCUMRADIUS / math.sqrt(3.0)
            geom = f'<geom type="box" size="{fmt([half] * 3)}" mass="{BODY_MASS!r}" {fa}/>'
        bodies.append(f'<body name="b{k}" pos="{fmt(c)}"><freejoint/>{geom}</body>')
    walls = [
        f'<geom name="{name}" type="box" pos="{fmt(c)}" size="{fmt(h)}" {fa}/>'
        for name, c, h in container_boxes(n, layers)
    ]
    xml = f"""<mujoco model="pile">
  <option timestep="{TIMESTEP!r}" gravity="0 0 {-GRAVITY!r}"/>
  <asset>{''.join(assets)}</asset>
  <worldbody>
    {''.join(walls)}
    {''.join(bodies)}
  </worldbody>
</mujoco>"""
    info = {"lattice_n": n, "layers": layers, "box_inner_half": n * SPACING / 2,
            "box_height": layers * SPACING + 1.0}
    return xml, info, expected


def tower_xml():
    fa = friction_attrs(TOWER_FRICTION)
    half = TOWER_EDGE / 2
    bodies = [
        f'<body name="b{k}" pos="0 0 {half + k * TOWER_EDGE!r}"><freejoint/>'
        f'<geom type="box" size="{fmt([half] * 3)}" mass="{TOWER_MASS!r}" {fa}/></body>'
        for k in range(TOWER_CUBES)
    ]
    xml = f"""<mujoco model="tower">
  <option timestep="{TIMESTEP!r}" gravity="0 0 {-GRAVITY!r}"/>
  <worldbody>
    <geom name="floor" type="box" pos="0 0 -0.5" size="5 5 0.5" {fa}/>
    {''.join(bodies)}
  </worldbody>
</mujoco>"""
    return xml


# ----------------------------------------------------------------------------- running


def penetration(data):
    """Deepest penetration (m) over the current contacts (0 if none overlap)."""
    if data.ncon == 0:
        return 0.0
    d = data.contact.dist[: data.ncon]
    return float(max(0.0, -d.min()))


def check_model(model, shape, expected, n_bodies, mass):
    """Every free body has the intended mass (and, for hulls, the intended inertia)."""
    free = [b for b in range(1, model.nbody)]
    assert len(free) == n_bodies
    masses = model.body_mass[free]
    assert np.allclose(masses, mass, rtol=1e-9, atol=0), masses
    worst = 0.0
    if shape == "random":
        for k, b in enumerate(free):
            _, inertia = expected[k % len(expected)]
            want = np.sort(np.linalg.eigvalsh(inertia))
            got = np.sort(model.body_inertia[b])
            worst = max(worst, float(np.max(np.abs(got - want) / want)))
            # body frame = geometry frame; its centre of mass is the volume centroid (origin)
            assert np.linalg.norm(model.body_ipos[b]) < 1e-6, model.body_ipos[b]
        assert worst < 1e-6, f"MuJoCo inertia differs from the hull's by {worst:.3g} (relative)"
    return worst


def run(model, repeats, steps):
    data = mujoco.MjData(model)

    def reset():
        mujoco.mj_resetData(model, data)
        mujoco.mj_forward(model, data)

    # timed repeats: only mj_step inside the timed loop
    times = []
    final_qpos = None
    for _ in range(repeats):
        reset()
        t0 = time.perf_counter()
        for _ in range(steps):
            mujoco.mj_step(model, data)
        times.append(time.perf_counter() - t0)
        q = data.qpos.copy()
        if final_qpos is not None and not np.array_equal(q, final_qpos):
            raise RuntimeError("repeats differ: MuJoCo run is not deterministic")
        final_qpos = q

    # measured pass (same trajectory): after mj_step k, data.contact holds the contacts of the
    # state the step started from (state k-1); a final mj_forward gives those of the end state.
    reset()
    history = np.empty((steps + 1, model.nq))
    history[0] = data.qpos
    max_pen, max_pen_step, max_ncon = penetration(data), 0, data.ncon
    warnings_before = [int(w.number) for w in data.warning]
    for k in range(1, steps + 1):
        mujoco.mj_step(model, data)
        history[k] = data.qpos
        p = penetration(data)
        if p > max_pen:
            max_pen, max_pen_step = p, k - 1
        max_ncon = max(max_ncon, data.ncon)
    mujoco.mj_forward(model, data)
    final_pen = penetration(data)
    if final_pen > max_pen:
        max_pen, max_pen_step = final_pen, steps
    if not np.array_equal(data.qpos, final_qpos):
        raise RuntimeError("measured pass differs from the timed runs")
    warn = {
        mujoco.mjtWarning(i).name: int(w.number) - warnings_before[i]
        for i, w in enumerate(data.warning)
        if int(w.number) - warnings_before[i] > 0
    }
    return {
        "ms_per_step": 1e3 * min(times) / steps,
        "ms_per_step_repeats": [1e3 * t / steps for t in times],
        "max_penetration_mm": 1e3 * max_pen,
        "max_penetration_state": max_pen_step,
        "final_penetration_mm": 1e3 * final_pen,
        "final_contacts": int(data.ncon),
        "max_contacts": int(max_ncon),
        "mujoco_warnings": warn,
    }, history, data


def body_positions(qpos, n_bodies):
    """Body-frame origins (x, y, z) from qpos (one free joint per body): (..., n_bodies, 3)."""
    return qpos.reshape(qpos.shape[:-1] + (n_bodies, 7))[..., :3]


def run_pile(n_bodies, shape, friction, point_sets, repeats, steps):
    xml, info, expected = pile_xml(n_bodies, shape, friction, point_sets)
    model = mujoco.MjModel.from_xml_string(xml)
    inertia_err = check_model(model, shape, expected, n_bodies, BODY_MASS)
    res, history, data = run(model, repeats, steps)
    pos = body_positions(data.qpos, n_bodies)
    every = body_positions(history, n_bodies)  # all states 0..steps
    half = info["box_inner_half"]
    finite = bool(np.all(np.isfinite(history)) and np.all(np.isfinite(data.qvel)))
    # every body centre inside the box's inner volume (above the floor top, below the wall
    # tops, within the walls' inner faces), at every state
    inside = bool(
        finite
        and np.all(np.abs(every[..., 0]) < half)
        and np.all(np.abs(every[..., 1]) < half)
        and np.all(every[..., 2] > 0.0)
        and np.all(every[..., 2] < info["box_height"] - WALL)
    )
    res.update({
        "scene": "pile",
        "shape": shape,
        "bodies": n_bodies,
        "friction": friction,
        "condim": 1 if friction == 0.0 else 3,
        "steps": steps,
        "timestep": TIMESTEP,
        **info,
        "mass_check": float(model.body_mass[1:].min()),
        "inertia_rel_err_vs_hull": inertia_err,
        "final_com_z_min": float(pos[:, 2].min()),
        "final_com_z_max": float(pos[:, 2].max()),
        "final_max_speed": float(np.abs(data.qvel).max()),
        "finite": finite,
        "inside_box": inside,
        "sane": finite and inside and not res["mujoco_warnings"],
    })
    return res


def run_tower(repeats, steps):
    model = mujoco.MjModel.from_xml_string(tower_xml())
    check_model(model, "boxes", None, TOWER_CUBES, TOWER_MASS)
    res, history, data = run(model, repeats, steps)
    every = body_positions(history, TOWER_CUBES)
    p0 = every[0]
    p1 = body_positions(data.qpos, TOWER_CUBES)
    top_dz = every[:, -1, 2] - p0[-1, 2]
    finite = bool(np.all(np.isfinite(history)) and np.all(np.isfinite(data.qvel)))
    drift = np.linalg.norm(p1 - p0, axis=1)
    res.update({
        "scene": "tower",
        "shape": "cubes edge 1.0, mass 1.0",
        "bodies": TOWER_CUBES,
        "friction": TOWER_FRICTION,
        "condim": 3,
        "steps": steps,
        "timestep": TIMESTEP,
        "max_drift_mm": 1e3 * float(drift.max()),
        "top_dz_mm": 1e3 * float(p1[-1, 2] - p0[-1, 2]),
        "bottom_dz_mm": 1e3 * float(p1[0, 2] - p0[0, 2]),
        "top_dz_min_mm": 1e3 * float(top_dz.min()),
        "top_dz_min_state": int(top_dz.argmin()),
        "top_dz_max_mm": 1e3 * float(top_dz.max()),
        "max_horizontal_drift_mm": 1e3 * float(np.linalg.norm(p1[:, :2] - p0[:, :2], axis=1).max()),
        "final_max_speed": float(np.abs(data.qvel).max()),
        "finite": finite,
        "sane": finite and not res["mujoco_warnings"] and float(drift.max()) < 0.5,
    })
    return res


# ----------------------------------------------------------------------------- output


def environment():
    m = mujoco.MjModel.from_xml_string(
        '<mujoco><worldbody><geom type="box" size="1 1 1"/></worldbody></mujoco>')
    o = m.opt
    return {
        "mujoco_version": mujoco.mj_versionString(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": platform.machine(),
        "processor": platform.processor(),
        "cpu_affinity": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "mujoco_defaults": {
            "integrator": mujoco.mjtIntegrator(o.integrator).name,
            "cone": mujoco.mjtCone(o.cone).name,
            "solver": mujoco.mjtSolver(o.solver).name,
            "iterations": int(o.iterations),
            "tolerance": float(o.tolerance),
            "impratio": float(o.impratio),
            "geom_solref": [float(x) for x in m.geom_solref[0]],
            "geom_solimp": [float(x) for x in m.geom_solimp[0]],
            "geom_margin": float(m.geom_margin[0]),
            "enableflags": int(o.enableflags),
            "disableflags": int(o.disableflags),
        },
    }


def table(runs):
    lines = [
        f"{'scene':<6} {'shape':<7} {'N':>5} {'mu':>4} {'steps':>5} {'ms/step':>9} "
        f"{'maxpen mm':>10} {'endpen mm':>10} {'contacts':>8} {'sane':>5}  extra"
    ]
    for r in runs:
        extra = ""
        if r["scene"] == "tower":
            extra = (f"final: max drift {r['max_drift_mm']:.3f} mm, top dz {r['top_dz_mm']:+.3f} mm, "
                     f"bottom dz {r['bottom_dz_mm']:+.3f} mm; top dz during run "
                     f"{r['top_dz_min_mm']:+.3f}..{r['top_dz_max_mm']:+.3f} mm")
        shape = r["shape"] if r["scene"] == "pile" else "cubes"
        lines.append(
            f"{r['scene']:<6} {shape:<7} {r['bodies']:>5} {r['friction']:>4g} {r['steps']:>5} "
            f"{r['ms_per_step']:>9.3f} {r['max_penetration_mm']:>10.3f} "
            f"{r['final_penetration_mm']:>10.3f} {r['final_contacts']:>8} {str(r['sane']):>5}  {extra}"
        )
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scene", choices=["pile", "tower"], default="pile")
    ap.add_argument("--bodies", default="8,27,64,125,1000", help="comma-separated N (pile)")
    ap.add_argument("--shape", choices=["random", "boxes"], default="random")
    ap.add_argument("--friction", type=float, default=0.0, help="0 = frictionless (condim 1)")
    ap.add_argument("--points", default=DEFAULT_POINTS, help="random_polyhedra.json")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--steps", type=int, default=round(DURATION / TIMESTEP))
    ap.add_argument("--out", help="write JSON here")
    ap.add_argument("--txt", help="(with --combine) write the plain-text table here")
    ap.add_argument("--combine", nargs="+", metavar="JSON",
                    help="merge earlier --out files into one (--out) and a table (--txt)")
    args = ap.parse_args()

    if args.combine:
        invocations, runs = [], []
        for path in args.combine:
            with open(path) as f:
                d = json.load(f)
            invocations.append({"command": d["command"], "environment": d["environment"]})
            runs.extend(d["runs"])
        text = table(runs) + "\n\nms/step per repeat:\n" + "\n".join(
            f"  {r['scene']} N={r['bodies']} mu={r['friction']:g}: "
            + ", ".join(f"{t:.3f}" for t in r["ms_per_step_repeats"]) for r in runs)
        print(text)
        if args.out:
            with open(args.out, "w") as f:
                json.dump({"invocations": invocations, "runs": runs}, f, indent=1)
        if args.txt:
            env = invocations[0]["environment"]
            with open(args.txt, "w") as f:
                f.write("MuJoCo comparison runs of Signorini's pile / tower scenes "
                        "(bench/mujoco/pile.py)\n")
                f.write(f"MuJoCo {env['mujoco_version']}, Python {env['python']}, "
                        f"{env['machine']}; CPU affinity {env['cpu_affinity']}\n")
                f.write("ms/step: wall time of mj_step only, min over repeats of the whole run; "
                        "pen: max over contacts of -dist (mm).\n")
                f.write("maxpen: over all states 0..steps; endpen/contacts: the final state.\n")
                f.write("Single machine, one core (CPU affinity above); other processes may have been "
                        "running: the\nper-repeat times are in results.json (ms_per_step_repeats).\n\n")
                f.write("Commands (from the repository root; CPU affinity of each run: "
                        + ", ".join(str(i["environment"]["cpu_affinity"]) for i in invocations)
                        + ", i.e. run under taskset -c 1 here):\n")
                for inv in invocations:
                    f.write("  " + inv["command"] + "\n")
                f.write("\n" + text + "\n")
        return

    env = environment()
    runs = []
    if args.scene == "tower":
        runs.append(run_tower(args.repeats, args.steps))
    else:
        point_sets = load_point_sets(args.points) if args.shape == "random" else None
        for n in [int(x) for x in args.bodies.split(",") if x]:
            runs.append(run_pile(n, args.shape, args.friction, point_sets, args.repeats, args.steps))
            r = runs[-1]
            print(f"  N={n}: {r['ms_per_step']:.3f} ms/step, max pen {r['max_penetration_mm']:.3f} mm, "
                  f"sane={r['sane']}", file=sys.stderr, flush=True)
    for r in runs:
        r["mujoco_version"] = env["mujoco_version"]
    print(f"MuJoCo {env['mujoco_version']}")
    print(table(runs))
    bad = [r for r in runs if not r["sane"]]
    for r in bad:
        print(f"WARNING: not sane: {r['scene']} N={r['bodies']}: warnings {r['mujoco_warnings']}, "
              f"finite {r['finite']}, inside {r.get('inside_box')}", file=sys.stderr)
    if args.out:
        cmd = "python3 " + " ".join([os.path.relpath(sys.argv[0])] + sys.argv[1:])
        with open(args.out, "w") as f:
            json.dump({"command": cmd, "environment": env, "runs": runs}, f, indent=1)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
