//! Which objects cross in a `rings` run, and when: every `EVERY` steps, the edge–triangle
//! crossings (the measure of `crossings.rs`) grouped by object pair (`ringI-pinJ`,
//! `ringI-base`, `ringI-ringJ`) with their count and deepest depth; after the last step the
//! rings' centres and mean velocities, each crossing (edge, triangle, depth), and when each
//! object pair first crossed. Used for the `rings --full` analysis in
//! docs/deformable.md.
//!
//! ```sh
//! cargo run --release -p signorini-experiments --example rings_crossings -- full 300 15
//! # environment overrides: MODEL=cpf|dpf|dpf-ccd, K (N/m), DT (s), DROP (m/s), G (m/s²),
//! # LIMIT (vertex stiffness limit), STAGGER=m (start heights 1 cm × (k mod m) instead of 1 cm × k),
//! # DRAG (air drag of the deformables, 1/s)
//! ```
//! Arguments: `small|full|bucket-small|bucket-full` (default small), steps (default 300), every
//! (default 30). The `bucket` variants run the bucket experiment's world instead (objects
//! `bodyI` and `bucket`; only `MODEL` applies).

use signorini_experiments::bucket::{self, BucketParams};
use signorini_experiments::rings::{RingsParams, spec};
use signorini_harness::crossings::segment_triangle;
use signorini_harness::deform_build::{WorldSpec, build_world};
use signorini_math::Vec3;
use signorini_penalty::ForceModel;
use signorini_world::penalty::DeformableWorld;
use std::collections::BTreeMap;

/// One mesh at the current instant, with its bounds.
struct Mesh {
    x: Vec<Vec3>,
    triangles: Vec<[u32; 3]>,
    edges: Vec<[u32; 2]>,
    is_static: bool,
    lo: Vec3,
    hi: Vec3,
}

/// Edge `edge` of mesh `em` passes through triangle `tri` of mesh `tm`, `depth` deep.
#[derive(Clone, Copy, Debug)]
struct Crossing {
    em: usize,
    edge: usize,
    tm: usize,
    tri: usize,
    depth: f64,
}

fn mesh(x: Vec<Vec3>, triangles: Vec<[u32; 3]>, edges: Vec<[u32; 2]>, is_static: bool) -> Mesh {
    let (mut lo, mut hi) = (Vec3::repeat(f64::INFINITY), Vec3::repeat(f64::NEG_INFINITY));
    for p in &x {
        lo = lo.inf(p);
        hi = hi.sup(p);
    }
    Mesh {
        x,
        triangles,
        edges,
        is_static,
        lo,
        hi,
    }
}

/// The deformables, then the obstacles (the object order of the stepper without rigid bodies).
fn meshes(w: &DeformableWorld) -> Vec<Mesh> {
    let d = w
        .deformables
        .iter()
        .map(|d| mesh(d.x.clone(), d.triangles().to_vec(), d.mesh().edges(), false));
    let o = w.obstacles.iter().map(|o| {
        let m = o.mesh();
        mesh(
            m.vertices().to_vec(),
            m.triangles().to_vec(),
            m.edges(),
            true,
        )
    });
    d.chain(o).collect()
}

/// Every crossing, brute force over overlapping object pairs (as `crossings::crossings`).
fn all_crossings(ms: &[Mesh]) -> Vec<Crossing> {
    let mut out = Vec::new();
    for (em, a) in ms.iter().enumerate() {
        for (tm, b) in ms.iter().enumerate() {
            let apart = (0..3).any(|k| a.lo[k] > b.hi[k] || b.lo[k] > a.hi[k]);
            if (a.is_static && b.is_static) || apart {
                continue;
            }
            for (edge, ed) in a.edges.iter().enumerate() {
                let (p, q) = (a.x[ed[0] as usize], a.x[ed[1] as usize]);
                for (tri, t) in b.triangles.iter().enumerate() {
                    if em == tm && (t.contains(&ed[0]) || t.contains(&ed[1])) {
                        continue;
                    }
                    let [u, v, z] = t.map(|k| b.x[k as usize]);
                    if let Some(depth) = segment_triangle(&p, &q, &u, &v, &z) {
                        out.push(Crossing {
                            em,
                            edge,
                            tm,
                            tri,
                            depth,
                        });
                    }
                }
            }
        }
    }
    out
}

/// How objects are named: `ringI`, `base`, `pinJ` (rings) or `bodyI`, `bucket` (bucket).
struct Names {
    deformables: usize,
    bucket: bool,
}

fn name(i: usize, n: &Names) -> String {
    match (i.checked_sub(n.deformables), n.bucket) {
        (None, false) => format!("ring{i}"),
        (None, true) => format!("body{i}"),
        (Some(0), false) => "base".into(),
        (Some(_), true) => "bucket".into(),
        (Some(j), false) => format!("pin{}", j - 1),
    }
}

/// The `bucket` experiment's world (`bucket-small` or `bucket-full`), model from `MODEL`.
fn bucket_spec(full: bool) -> Result<WorldSpec, Box<dyn std::error::Error>> {
    let model = match std::env::var("MODEL") {
        Ok(m) => ForceModel::parse(&m.replace('-', "_")).ok_or("MODEL: cpf, dpf or dpf-ccd")?,
        Err(_) => ForceModel::Cpf,
    };
    let p = if full {
        BucketParams::full(model)
    } else {
        BucketParams::small(model)
    };
    Ok(bucket::spec(&p)?)
}

fn report_end(w: &DeformableWorld, ms: &[Mesh], cs: &[Crossing], names: &Names) {
    for (i, d) in w.deformables.iter().enumerate() {
        let n = d.x.len() as f64;
        let c: Vec3 = d.x.iter().sum::<Vec3>() / n;
        let v: Vec3 = d.v.iter().sum::<Vec3>() / n;
        println!(
            "{}: centre ({:.4}, {:.4}, {:.4}) m, mean velocity ({:.2e}, {:.2e}, {:.2e}) m/s",
            name(i, names),
            c.x,
            c.y,
            c.z,
            v.x,
            v.y,
            v.z
        );
    }
    for c in cs {
        println!(
            "  {} edge {} {:?} through {} triangle {} {:?}, {:.2} mm",
            name(c.em, names),
            c.edge,
            ms[c.em].edges[c.edge],
            name(c.tm, names),
            c.tri,
            ms[c.tm].triangles[c.tri],
            c.depth * 1e3
        );
    }
}

fn params(full: bool) -> Result<RingsParams, Box<dyn std::error::Error>> {
    let mut p = if full {
        RingsParams::full(ForceModel::Cpf)
    } else {
        RingsParams::small(ForceModel::Cpf)
    };
    let env = |k: &str| std::env::var(k).ok().and_then(|s| s.parse::<f64>().ok());
    if let Ok(m) = std::env::var("MODEL") {
        p.penalty.model =
            ForceModel::parse(&m.replace('-', "_")).ok_or("MODEL: cpf, dpf or dpf-ccd")?;
    }
    for (key, field) in [
        ("K", &mut p.penalty.stiffness),
        ("DT", &mut p.penalty.dt),
        ("DROP", &mut p.drop_speed),
        ("G", &mut p.gravity),
        ("LIMIT", &mut p.penalty.vertex_stiffness_limit),
    ] {
        if let Some(x) = env(key) {
            *field = x;
        }
    }
    Ok(p)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let variant = args.first().map_or("small", String::as_str);
    let full = variant.ends_with("full");
    let steps: usize = args.get(1).map(|s| s.parse()).transpose()?.unwrap_or(300);
    let every: usize = args
        .get(2)
        .map(|s| s.parse())
        .transpose()?
        .unwrap_or(30)
        .max(1);
    let mut sp = if variant.starts_with("bucket") {
        bucket_spec(full)?
    } else {
        spec(&params(full)?)?
    };
    if let Some(m) = std::env::var("STAGGER")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
    {
        for (k, b) in sp.bodies.iter_mut().enumerate() {
            let dz = -0.01 * (k - k % m.max(1)) as f64;
            b.mesh = b.mesh.map(|v| v + Vec3::new(0.0, 0.0, dz))?;
        }
    }
    if let Some(c) = std::env::var("DRAG")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
    {
        for b in &mut sp.bodies {
            b.material.drag = c;
        }
    }
    let mut w = build_world(&sp)?;
    let names = Names {
        deformables: w.deformables.len(),
        bucket: variant.starts_with("bucket"),
    };
    let names = &names;
    let mut first: BTreeMap<(usize, usize), usize> = BTreeMap::new();
    for n in 0..steps {
        let rep = w.step();
        let last = n + 1 == steps;
        if (n + 1) % every != 0 && !last {
            continue;
        }
        let ms = meshes(&w);
        let cs = all_crossings(&ms);
        let mut by: BTreeMap<(usize, usize), (usize, f64)> = BTreeMap::new();
        for c in &cs {
            let key = (c.em.min(c.tm), c.em.max(c.tm));
            let e = by.entry(key).or_default();
            e.0 += 1;
            e.1 = e.1.max(c.depth);
            first.entry(key).or_insert(n);
        }
        let groups: Vec<String> = by
            .iter()
            .map(|((a, b), (k, d))| {
                format!(
                    "{}-{}: {k} ({:.1} mm)",
                    name(*a, names),
                    name(*b, names),
                    d * 1e3
                )
            })
            .collect();
        println!(
            "step {n} t = {:.2} s: {} crossings, {} pairs in the step ({} penetrating at its end) | {}",
            w.time(),
            cs.len(),
            rep.pairs,
            rep.penetrating_pairs,
            groups.join(", ")
        );
        if last {
            report_end(&w, &ms, &cs, names);
        }
    }
    for ((a, b), n) in &first {
        println!(
            "{}-{} first crossed at step {n}",
            name(*a, names),
            name(*b, names)
        );
    }
    Ok(())
}
