//! `signorini report DIR`: one self-contained `report.html` (inline SVG plots, an inline canvas
//! replay with play/pause/scrub and contacts drawn, no network access) plus each plot as an SVG
//! file for papers.
//!
//! Owns: reading a run folder (the files `run` writes), the plots (`signorini_harness::svg::TimePlot`, the project's one SVG plotter) and the
//! HTML page (`page.html` + `replay.js`, embedded at compile time). The page's script sets
//! `data-status="ready"` on `<body>` once it has drawn the first frame, or `error: …` if
//! anything threw — the headless-browser test reads that marker.

use crate::error::SceneError;
use serde_json::{Value, json};
use signorini_harness::svg::{Line, TimePlot};
use signorini_harness::write_atomic;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What [`write_report`] produced.
#[derive(Debug, Clone)]
pub struct ReportFiles {
    /// The HTML page.
    pub html: PathBuf,
    /// The SVG plots.
    pub svgs: Vec<PathBuf>,
}

/// A CSV file as named columns of strings.
struct Table {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Table {
    fn read(path: &Path) -> Result<Option<Table>, SceneError> {
        let text = match std::fs::read_to_string(path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(SceneError::Io {
                    path: path.to_path_buf(),
                    source: e,
                });
            }
        };
        let mut lines = text.lines();
        let header = lines
            .next()
            .unwrap_or("")
            .split(',')
            .map(String::from)
            .collect();
        // `# …` lines are comments (`# interrupted: SIGINT` ends a file cut short by a signal).
        let rows = lines
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(|l| l.split(',').map(String::from).collect())
            .collect();
        Ok(Some(Table { header, rows }))
    }

    fn col(&self, name: &str) -> Vec<f64> {
        match self.header.iter().position(|h| h == name) {
            Some(k) => self
                .rows
                .iter()
                .map(|r| r.get(k).and_then(|v| v.parse().ok()).unwrap_or(f64::NAN))
                .collect(),
            None => Vec::new(),
        }
    }
}

fn read_json(path: &Path) -> Result<Value, SceneError> {
    let text = std::fs::read_to_string(path).map_err(|e| SceneError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    serde_json::from_str(&text).map_err(|e| {
        SceneError::Invalid(crate::error::Located {
            file: path.to_path_buf(),
            line: Some(e.line()),
            column: Some(e.column()),
            field: String::new(),
            reason: e.to_string(),
        })
    })
}

/// Round for display (the replay does not need full precision; keeps the page small).
fn r5(v: f64) -> Value {
    if v.is_finite() {
        json!((v * 1e5).round() / 1e5)
    } else {
        Value::Null
    }
}

/// Build the plots from `steps.csv` for a run of `kind` (`planar`, `polyhedra`, `meshes`,
/// `deformables`).
fn plots(steps: &Table, kind: &str) -> Vec<(&'static str, TimePlot)> {
    let t = steps.col("time");
    let line = |name: &str, color: &str, col: &str| Line {
        name: name.into(),
        color: color.into(),
        y: steps.col(col),
    };
    let plot = |title: &str, ylabel: &str, log_y: bool, lines: Vec<Line>| TimePlot {
        title: title.into(),
        ylabel: ylabel.into(),
        log_y,
        x: t.clone(),
        lines,
    };
    let energy = (
        "energy",
        plot(
            "Mechanical energy (kinetic + potential of the external forces)",
            "energy (J)",
            false,
            vec![
                line("kinetic", "#ff7f0e", "kinetic_energy"),
                line("potential", "#2ca02c", "potential_energy"),
                line("total", "#000000", "energy"),
            ],
        ),
    );
    if kind == "deformables" {
        return vec![
            (
                "penetration",
                plot(
                    "Deepest edge-triangle crossing after each step",
                    "depth (m)",
                    false,
                    vec![line("crossing depth", "#d62728", "crossing_max_depth")],
                ),
            ),
            (
                "pairs",
                plot(
                    "Penalty pairs and crossings per step",
                    "count",
                    false,
                    vec![
                        line("evaluated", "#7f7f7f", "pairs"),
                        line("new (CCD hits)", "#1f77b4", "new_pairs"),
                        line("tracked penetrating", "#ff7f0e", "tracked_penetrating"),
                        line("edge-triangle crossings", "#d62728", "crossing_pairs"),
                    ],
                ),
            ),
            (
                "contact_force",
                plot(
                    "Total contact force",
                    "force (N)",
                    false,
                    vec![line("contact force", "#17becf", "contact_force")],
                ),
            ),
            (
                "speed",
                plot(
                    "RMS vertex speed of the deformables",
                    "speed (m/s)",
                    true,
                    vec![line("RMS vertex speed", "#8c564b", "rms_speed")],
                ),
            ),
            (
                "energy",
                plot(
                    "Energy of the deformables (kinetic + springs, pressure, gravity) and rigid bodies (kinetic + gravity)",
                    "energy (J)",
                    false,
                    vec![
                        line("kinetic", "#ff7f0e", "kinetic_energy"),
                        line("potential", "#2ca02c", "potential_energy"),
                        line("total", "#000000", "energy"),
                    ],
                ),
            ),
        ];
    }
    if kind == "meshes" {
        return vec![
            (
                "penetration",
                plot(
                    "Deepest penetration after each step",
                    "depth (m)",
                    false,
                    vec![
                        line("penetration", "#d62728", "max_penetration"),
                        line("tracked depth", "#9467bd", "max_depth"),
                    ],
                ),
            ),
            (
                "pairs",
                plot(
                    "Penalty feature pairs per step",
                    "count",
                    false,
                    vec![
                        line("evaluated", "#7f7f7f", "pairs"),
                        line("new (CCD hits)", "#1f77b4", "new_pairs"),
                        line("still penetrating", "#ff7f0e", "penetrating_pairs"),
                    ],
                ),
            ),
            (
                "contact_force",
                plot(
                    "Total contact force (sum over dynamic bodies)",
                    "force (N)",
                    false,
                    vec![line("contact force", "#17becf", "contact_force")],
                ),
            ),
            (
                "speed",
                plot(
                    "Largest vertex speed of a dynamic body",
                    "speed (m/s)",
                    true,
                    vec![line("max vertex speed", "#8c564b", "max_vertex_speed")],
                ),
            ),
            energy,
        ];
    }
    let (title, unit) = if kind == "polyhedra" {
        ("Total overlap volume after each step", "overlap (m³)")
    } else {
        ("Total overlap area after each step", "overlap (m²)")
    };
    vec![
        (
            "overlap",
            plot(
                title,
                unit,
                true,
                vec![line("overlap", "#d62728", "overlap")],
            ),
        ),
        (
            "constraints",
            plot(
                "Contacts and constraints per step",
                "count",
                false,
                vec![
                    line("contacts", "#7f7f7f", "contacts"),
                    line("U (unilateral)", "#1f77b4", "unilateral"),
                    line("I (inter)", "#2ca02c", "inter"),
                    line("X (cross)", "#ff7f0e", "cross"),
                ],
            ),
        ),
        (
            "solver",
            plot(
                "Solver iterations (pivots) per step",
                "iterations",
                false,
                vec![line("iterations", "#9467bd", "iterations")],
            ),
        ),
        (
            "residual",
            plot(
                "Solver residual (natural map)",
                "residual",
                true,
                vec![line("residual", "#8c564b", "residual")],
            ),
        ),
        (
            "contact_force",
            plot(
                "Total normal contact force (impulse / h)",
                "force (N)",
                false,
                vec![line("normal force", "#17becf", "contact_force")],
            ),
        ),
        energy,
    ]
}

/// Numbers of a CSV row (NaN where unparsable).
fn nums(r: &[String]) -> Vec<f64> {
    r.iter().map(|v| v.parse().unwrap_or(f64::NAN)).collect()
}

/// The replay data: bodies, one frame of dynamic poses (and contacts) per recorded step.
/// 2D poses are `[dynamic index, x, y, angle]`, 3D poses `[dynamic index, x, y, z, qw, qx, qy,
/// qz]`; 2D contacts `[x, y, nx, ny]`, 3D contacts `[x, y, z, nx, ny, nz]`. Deformable runs:
/// `v`, per deformable and then per rigid body its flat vertex positions `[x0, y0, z0, x1, …]`
/// from `vertices.json`.
fn replay_data(dir: &Path, bodies: &Value) -> Result<Value, SceneError> {
    let vertices_file = dir.join("vertices.json");
    let mut verts: BTreeMap<i64, Value> = BTreeMap::new();
    if vertices_file.is_file() {
        let v = read_json(&vertices_file)?;
        for f in v["frames"].as_array().into_iter().flatten() {
            if let Some(s) = f["s"].as_i64() {
                verts.insert(s, f["x"].clone());
            }
        }
    }
    let traj = Table::read(&dir.join("trajectories.csv"))?;
    let contacts = Table::read(&dir.join("contacts.csv"))?;
    let dimension = bodies["dimension"].as_u64().unwrap_or(2);
    let (pose_len, touch_len) = if dimension == 3 { (9, 10) } else { (5, 8) };
    let mut frames: BTreeMap<i64, Vec<Value>> = BTreeMap::new();
    if let Some(t) = &traj {
        for n in t.rows.iter().map(|r| nums(r)) {
            if n.len() >= pose_len {
                let mut p = vec![json!(n[1] as i64)];
                p.extend(n[2..pose_len].iter().map(|&v| r5(v)));
                frames.entry(n[0] as i64).or_default().push(Value::Array(p));
            }
        }
    }
    let mut touch: BTreeMap<i64, Vec<Value>> = BTreeMap::new();
    if let Some(c) = &contacts {
        for n in c.rows.iter().map(|r| nums(r)) {
            if n.len() >= touch_len {
                let c: Vec<Value> = n[3..touch_len - 1].iter().map(|&v| r5(v)).collect();
                touch.entry(n[0] as i64).or_default().push(Value::Array(c));
            }
        }
    }
    let mut steps: Vec<i64> = frames
        .keys()
        .chain(touch.keys())
        .chain(verts.keys())
        .copied()
        .collect();
    steps.sort_unstable();
    steps.dedup();
    let h = bodies["h"].as_f64().unwrap_or(0.0);
    let frames: Vec<Value> = steps
        .iter()
        .map(|s| {
            let mut f = json!({
                "s": s,
                "p": frames.get(s).cloned().unwrap_or_default(),
                "c": touch.get(s).cloned().unwrap_or_default(),
            });
            if let Some(v) = verts.get(s) {
                f["v"] = v.clone();
            }
            f
        })
        .collect();
    Ok(json!({ "h": h, "dimension": dimension, "bodies": bodies["bodies"], "frames": frames }))
}

/// Make the report of a run folder: `report.html` and one SVG per plot.
pub fn write_report(dir: &Path) -> Result<ReportFiles, SceneError> {
    let summary = read_json(&dir.join("summary.json"))?;
    let bodies = read_json(&dir.join("bodies.json"))?;
    let steps = Table::read(&dir.join("steps.csv"))?;
    let mut svgs = Vec::new();
    let mut inline = String::new();
    if let Some(steps) = &steps {
        for (name, p) in plots(steps, summary["kind"].as_str().unwrap_or("planar")) {
            let svg = p.to_svg();
            let path = dir.join(format!("{name}.svg"));
            write_atomic(&path, svg.as_bytes())?;
            svgs.push(path);
            let _ = writeln!(inline, "<figure id=\"plot-{name}\">{svg}</figure>");
        }
    }
    let data = replay_data(dir, &bodies)?;
    // `</` must not appear inside the inline <script> element.
    let data_json =
        crate::run::json_text(&data, &dir.join("report.html"), false)?.replace("</", "<\\/");
    let html = include_str!("page.html")
        .replace(
            "{{title}}",
            &esc(summary["scene"].as_str().unwrap_or("run")),
        )
        .replace("{{summary}}", &summary_table(&summary))
        .replace("{{plots}}", &inline)
        .replace("{{script}}", include_str!("replay.js"))
        .replace("{{data}}", &data_json);
    let path = dir.join("report.html");
    write_atomic(&path, html.as_bytes())?;
    Ok(ReportFiles { html: path, svgs })
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

fn summary_table(s: &Value) -> String {
    let mut out = String::from("<table class=\"summary\">");
    let row = |out: &mut String, k: &str, v: String| {
        let _ = write!(out, "<tr><th>{}</th><td>{}</td></tr>", esc(k), esc(&v));
    };
    let num = |k: &str| match &s[k] {
        Value::Number(n) => {
            let f = n.as_f64().unwrap_or(f64::NAN);
            if n.is_f64() && (f.abs() < 1e-3 || f.abs() >= 1e5) && f != 0.0 {
                format!("{f:.3e}")
            } else if n.is_f64() {
                format!("{f:.4}")
            } else {
                n.to_string()
            }
        }
        Value::String(t) => t.clone(),
        Value::Bool(b) => b.to_string(),
        _ => "-".into(),
    };
    for (k, label) in [
        ("scene", "scene"),
        ("model", "contact model"),
        ("h", "step size h (s)"),
        ("steps", "steps taken"),
        ("time", "simulated time (s)"),
        ("interrupted", "interrupted"),
        ("dynamic_bodies", "dynamic bodies"),
        ("failed_steps", "failed steps"),
        ("kind", "bodies"),
        ("max_overlap", "max overlap (m² in 2D, m³ in 3D)"),
        ("median_overlap", "median overlap"),
        ("max_penetration", "max penetration (m, meshes)"),
        ("mean_contacts", "mean contacts / step"),
        ("mean_iterations", "mean solver iterations"),
        ("max_residual", "max residual"),
        ("max_contact_force", "max contact force (N)"),
        ("energy_initial", "energy at start (J)"),
        ("energy_final", "energy at end (J)"),
    ] {
        row(&mut out, label, num(k));
    }
    if let Some(checks) = s["checks"].as_array() {
        for c in checks {
            row(
                &mut out,
                &format!("check {}", c["name"].as_str().unwrap_or("?")),
                format!(
                    "{} ({} ≤ {})",
                    if c["pass"].as_bool() == Some(true) {
                        "PASS"
                    } else {
                        "FAIL"
                    },
                    c["value"],
                    c["limit"]
                ),
            );
        }
    }
    out.push_str("</table>");
    out
}
