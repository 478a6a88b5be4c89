//! Exact times of impact (Belgrod et al. data set, `simulation/*/roots/*.tar.gz`, Mathematica
//! WXF): our conservative first time of impact equals the earliest valid root up to the
//! numeric evaluation of the closed form (it must never be later than it, and not much earlier).

use crate::common::{data_root, load};
use crate::wxf;

/// Check one scene/step/kind; returns the number of roots files checked.
fn check(scene: &str, step: &str) -> usize {
    let dir = data_root().join("simulation").join(scene);
    let l = load(&dir.join(format!("queries/{step}.csv")));
    let files = wxf::read_tar_gz(&dir.join(format!("roots/{step}_roots.tar.gz")));
    let mut checked = 0;
    let mut unevaluable = 0;
    let mut worst = 0.0f64;
    for (name, bytes) in &files {
        // Names look like `3036vf_q12_roots.wxf`: the query index is 0-based.
        let base = name.rsplit('/').next().unwrap();
        let Some(idx) = base
            .split('_')
            .nth(1)
            .and_then(|q| q.strip_prefix('q')?.parse::<usize>().ok())
        else {
            continue;
        };
        assert!(
            l.truth[idx],
            "{name}: roots file for a query marked not colliding"
        );
        let ts = match wxf::parse(bytes).and_then(|e| wxf::times(&e)) {
            Ok(ts) if !ts.is_empty() => ts,
            _ => {
                unevaluable += 1;
                continue;
            }
        };
        let exact = ts.iter().cloned().fold(f64::INFINITY, f64::min);
        let ours = l.file.queries[idx]
            .first_toi(l.kind)
            .expect("false negative");
        assert!(
            ours <= exact + 1e-9,
            "{name}: toi {ours} later than exact first root {exact}"
        );
        assert!(
            ours >= exact - 1e-8,
            "{name}: toi {ours} much earlier than exact first root {exact}"
        );
        worst = worst.max((ours - exact).abs());
        checked += 1;
    }
    eprintln!(
        "{scene}/{step}: {checked} first roots checked (max |ours - exact| = {worst:.2e}), {unevaluable} not evaluable in f64"
    );
    assert!(
        unevaluable * 50 <= files.len(),
        "too many unevaluable roots files: {unevaluable}"
    );
    checked
}

#[test]
fn cloth_funnel_first_roots() {
    assert!(check("cloth-funnel", "227vf") + check("cloth-funnel", "227ee") > 0);
}

#[test]
fn rod_twist_first_roots() {
    assert!(check("rod-twist", "3036vf") + check("rod-twist", "3036ee") > 4000);
}
